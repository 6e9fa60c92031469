#!/bin/sh
#
# gradlew - runs the README's Gradle commands on this project's Maven build.
#
# Why not the real Gradle wrapper: the project wanted the Gradle 9.3.1 wrapper,
# but no Gradle distribution can be fetched on the machines this project is
# built on (developers' and CI's alike): the Gradle distribution server does
# not resolve from them, and the Maven repository they reach does not serve the
# Gradle zip (com.github.hazendaz.gradle:gradle:9.3.1:zip:bin, nor 9.x or
# 8.14.x). So Java is built with Maven (Maven 3.8.7+ and JDK 17+ are
# installed): pom.xml at the root, java/pom.xml, examples/*/pom.xml. This
# script keeps the README's command shape by mapping the Gradle task names it
# uses onto Maven:
#
#   ./gradlew check
#       mvn -B verify
#       Root pom: scripts/check-comments, cargo fmt --all -- --check, cargo clippy --workspace
#       --all-targets -- -D warnings, cargo test --workspace. java/pom.xml: cargo
#       build --release -p talus-jni, the jar with libtalusjni.so inside, JUnit 5
#       tests against the packaged jar. Compiles the examples; builds and tests the
#       adapters (adapters/slf4j, adapters/micrometer, adapters/kafka-streams). Installs nothing
#       outside the project except Maven's and Cargo's download caches.
#   ./gradlew publishToMavenLocal
#       mvn -B install -DskipTests
#       Puts dev.talus:talus:0.1.0-SNAPSHOT in the local repository (~/.m2).
#   ./gradlew :examples:NAME:run [--args="..."]
#       mvn -B -q install -DskipTests                      (the library, quietly)
#       mvn -B -q -f examples/NAME/pom.xml compile exec:exec -Dexample.args="..."
#       The example is a project of its own, run in a new JVM against the jar
#       installed in ~/.m2. A missing examples/NAME is a clear error.
#   ./gradlew clean
#       mvn -B clean, then cargo clean
#   ./gradlew help | tasks | --help
#       prints the task list
#
# Several tasks run in the order given (./gradlew clean check).
#
# Gradle flags:
#   -q, --quiet                 mvn -q, and Cargo quiet (CARGO_TERM_QUIET=true)
#   -i, --info                  Maven's normal output, the default: nothing to do
#   -d, --debug                 mvn -X
#   -s, --stacktrace, -S, --full-stacktrace   mvn -e
#   --offline                   mvn -o
#   --continue                  mvn -fae
#   -x test, --exclude-task test   -DskipTests (Java tests and the Rust checks)
#   -Dname=value                passed to Maven as a system property (no spaces)
#   --args=STRING, --args STRING   program arguments of the :run task
#   Anything else starting with - (--no-daemon, --parallel, --console=plain,
#   --warning-mode=all, --build-cache, --scan, -Pname=value, other -x TASK, ...)
#   is ignored with a note on stderr.
#
# Exit status: that of the failing command; 2 for an unknown task or bad usage.

set -eu

APP_HOME=$(cd "$(dirname "$0")" && pwd -P)
cd "$APP_HOME"

say() {
  printf 'gradlew: %s\n' "$*" >&2
}

die() {
  say "$*"
  exit 1
}

usage() {
  cat <<'EOF'
Usage: ./gradlew [flags] TASK...   (a Gradle-style front end for this project's Maven build)

Tasks:
  check                          Rust fmt/clippy/tests, build the jar, run the Java tests
  publishToMavenLocal            install dev.talus:talus into ~/.m2 (tests skipped)
  :examples:NAME:run [--args="..."]
                                 install the library, then run examples/NAME
  clean                          remove Maven and Cargo build outputs
  help, tasks                    this list

Flags: -q/--quiet, -i/--info, -d/--debug, -s/--stacktrace, --offline, --continue,
       -x test, -Dname=value, --args=STRING. See the comment at the top of ./gradlew.
EOF
}

usage_error() {
  say "$*"
  usage >&2
  exit 2
}

MVN_FLAGS="-B -ntp"
# Debian's Maven 3.8.7 writes ANSI reset codes even in batch mode; this jansi
# switch (read at JVM start, so it goes in MAVEN_OPTS) stops that.
MAVEN_OPTS="${MAVEN_OPTS:-} -Djansi.noreset=true"
export MAVEN_OPTS
QUIET=0
TASKS=""
RUN_ARGS=""

while [ $# -gt 0 ]; do
  case "$1" in
    -q | --quiet) QUIET=1 ;;
    -i | --info) ;;
    -d | --debug) MVN_FLAGS="$MVN_FLAGS -X" ;;
    -s | --stacktrace | -S | --full-stacktrace) MVN_FLAGS="$MVN_FLAGS -e" ;;
    --offline) MVN_FLAGS="$MVN_FLAGS -o" ;;
    --continue) MVN_FLAGS="$MVN_FLAGS -fae" ;;
    --args=*) RUN_ARGS=${1#--args=} ;;
    --args)
      [ $# -ge 2 ] || usage_error "--args needs a value"
      RUN_ARGS=$2
      shift
      ;;
    -x | --exclude-task)
      [ $# -ge 2 ] || usage_error "$1 needs a task name"
      case "$2" in
        test | :test | :java:test) MVN_FLAGS="$MVN_FLAGS -DskipTests" ;;
        *) say "ignoring '$1 $2': only '-x test' has a Maven counterpart here" ;;
      esac
      shift
      ;;
    -D*)
      case "$1" in
        *[[:space:]]*) usage_error "'$1': -D values with spaces are not supported" ;;
      esac
      MVN_FLAGS="$MVN_FLAGS $1"
      ;;
    -h | --help | -\?)
      usage
      exit 0
      ;;
    -*) say "ignoring Gradle flag '$1': it has no meaning for the Maven build" ;;
    check | publishToMavenLocal | clean | help | tasks) TASKS="$TASKS $1" ;;
    :examples:*:run)
      name=${1#:examples:}
      name=${name%:run}
      case "$name" in
        '' | *[!A-Za-z0-9._-]*) usage_error "bad example name in task '$1'" ;;
      esac
      TASKS="$TASKS $1"
      ;;
    *) usage_error "unknown task '$1'" ;;
  esac
  shift
done

if [ -z "$TASKS" ]; then
  usage
  exit 0
fi

if [ "$QUIET" -eq 1 ]; then
  MVN_FLAGS="$MVN_FLAGS -q"
  CARGO_TERM_QUIET=true
  export CARGO_TERM_QUIET
fi

need_tools() {
  command -v mvn >/dev/null 2>&1 ||
    die "'mvn' is not on PATH: this project builds its Java code with Apache Maven 3.8+ on JDK 17+ (see the comment at the top of ./gradlew)."
  command -v cargo >/dev/null 2>&1 ||
    die "'cargo' is not on PATH: the native library is built with the Rust toolchain (Cargo, rustfmt, clippy; see rust-version in Cargo.toml)."
}

# Word splitting of $MVN_FLAGS is intended below: it holds flags without spaces.

task_check() {
  # shellcheck disable=SC2086
  mvn $MVN_FLAGS verify
}

task_publish() {
  # shellcheck disable=SC2086
  mvn $MVN_FLAGS install -DskipTests
}

task_clean() {
  # shellcheck disable=SC2086
  mvn $MVN_FLAGS clean
  # Examples outside the root reactor, if any, are cleaned on their own.
  for pom in examples/*/pom.xml; do
    [ -f "$pom" ] || continue
    dir=${pom%/pom.xml}
    grep -q "<module>$dir</module>" pom.xml && continue
    # shellcheck disable=SC2086
    mvn $MVN_FLAGS -q -f "$pom" clean
  done
  cargo clean
}

task_run_example() {
  name=$1
  dir="examples/$name"
  if [ ! -f "$dir/pom.xml" ]; then
    have=$(for p in examples/*/pom.xml; do [ -f "$p" ] && basename "$(dirname "$p")"; done | tr '\n' ' ')
    die "task ':examples:$name:run': $dir does not exist in this checkout (no $dir/pom.xml), so there is nothing to run yet. Examples present: ${have:-none}"
  fi
  [ "$QUIET" -eq 1 ] || say "installing dev.talus:talus into the local Maven repository (mvn -q install -DskipTests) ..."
  # shellcheck disable=SC2086
  mvn $MVN_FLAGS -q install -DskipTests
  [ "$QUIET" -eq 1 ] || say "running $dir ..."
  # shellcheck disable=SC2086
  mvn $MVN_FLAGS -q -f "$dir/pom.xml" compile exec:exec "-Dexample.args=$RUN_ARGS"
}

for task in $TASKS; do
  case "$task" in
    help | tasks)
      usage
      continue
      ;;
  esac
  need_tools
  [ "$QUIET" -eq 1 ] || say "> Task $task"
  case "$task" in
    check) task_check ;;
    publishToMavenLocal) task_publish ;;
    clean) task_clean ;;
    :examples:*:run)
      name=${task#:examples:}
      task_run_example "${name%:run}"
      ;;
  esac
done
