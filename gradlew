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
#       mvn -B deploy -Dmaven.install.skip=true
#       Root pom: scripts/check-comments, cargo fmt --all -- --check, cargo clippy --workspace
#       --all-targets -- -D warnings, cargo test --workspace. java/pom.xml: scripts/check-versions,
#       cargo build --release -p talus-jni, the jar with libtalusjni.so inside, its sources
#       and Javadoc jars (a Javadoc warning fails), JUnit 5 tests against the packaged jar.
#       bom/: dev.talus:talus-bom. Compiles the examples and runs their tests; builds and
#       tests the adapters (adapters/slf4j, adapters/micrometer, adapters/kafka-streams). Deploys
#       dev.talus:talus and dev.talus:talus-bom to the file repository target/staging-repo.
#       Then the consumer check (check_consumer below):
#       mvn -B -f examples/consumer-maven/pom.xml verify, a separate project that
#       resolves Talus from target/staging-repo only (its own local repository
#       target/consumer-repository, emptied first; other artifacts are copied from
#       the local repository of the main build, or downloaded), runs its JUnit test
#       and its program, then checks that Maven recorded target/staging-repo as the
#       origin of every dev.talus file it used. Installs nothing outside the project
#       except Maven's and Cargo's download caches.
#   ./gradlew publishToMavenLocal
#       mvn -B install -DskipTests
#       Puts dev.talus:talus (with its sources and Javadoc jars) and dev.talus:talus-bom,
#       version from .mvn/maven.config, in the local repository (~/.m2).
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
  check                          Rust fmt/clippy/tests, build the jar, run the Java tests,
                                 stage the artifacts in target/staging-repo and build
                                 examples/consumer-maven against them
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
# The consumer check's flags: MVN_FLAGS less -Dmaven.repo.local (it has a repository of its own).
CONSUMER_FLAGS="-B -ntp"
# The main build's local repository: read by the consumer check for artifacts other than Talus.
MAIN_REPO="${HOME:-}/.m2/repository"
SKIP_TESTS=0
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
    -d | --debug)
      MVN_FLAGS="$MVN_FLAGS -X"
      CONSUMER_FLAGS="$CONSUMER_FLAGS -X"
      ;;
    -s | --stacktrace | -S | --full-stacktrace)
      MVN_FLAGS="$MVN_FLAGS -e"
      CONSUMER_FLAGS="$CONSUMER_FLAGS -e"
      ;;
    --offline)
      MVN_FLAGS="$MVN_FLAGS -o"
      CONSUMER_FLAGS="$CONSUMER_FLAGS -o"
      ;;
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
        test | :test | :java:test)
          MVN_FLAGS="$MVN_FLAGS -DskipTests"
          SKIP_TESTS=1
          ;;
        *) say "ignoring '$1 $2': only '-x test' has a Maven counterpart here" ;;
      esac
      shift
      ;;
    -D*)
      case "$1" in
        *[[:space:]]*) usage_error "'$1': -D values with spaces are not supported" ;;
      esac
      MVN_FLAGS="$MVN_FLAGS $1"
      case "$1" in
        -Dmaven.repo.local=*) MAIN_REPO=${1#-Dmaven.repo.local=} ;;
        -DskipTests | -DskipTests=true) SKIP_TESTS=1 ;;
        *) CONSUMER_FLAGS="$CONSUMER_FLAGS $1" ;;
      esac
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
  CONSUMER_FLAGS="$CONSUMER_FLAGS -q"
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
  # deploy, not verify: the consumer check needs the staged artifacts. Nothing is installed into
  # the local repository (maven.install.skip), as with verify.
  # shellcheck disable=SC2086
  mvn $MVN_FLAGS deploy -Dmaven.install.skip=true
  if [ "$SKIP_TESTS" -eq 1 ]; then
    say "skipping the consumer check (examples/consumer-maven): tests are skipped"
    return 0
  fi
  check_consumer
}

# Builds examples/consumer-maven against target/staging-repo, the repository the deploy above
# staged into. Its local repository (target/consumer-repository) starts empty, so no dev.talus
# file can come from the reactor or from an earlier install. Other artifacts (JUnit, plugins)
# are copied from the main build's local repository, declared to that build as a read-only
# repository of releases (so never the source of a SNAPSHOT such as the Talus under test), and
# otherwise downloaded. Afterwards every dev.talus file it resolved must have come from
# talus-staging, as Maven records in _remote.repositories.
check_consumer() {
  [ "$QUIET" -eq 1 ] || say "> Consumer check: examples/consumer-maven against target/staging-repo"
  staging="$APP_HOME/target/staging-repo"
  [ -d "$staging/dev/talus" ] ||
    die "consumer check: $staging holds no dev.talus artifacts (the deploy staged nothing)"
  case "$MAIN_REPO" in
    /*) ;;
    *) MAIN_REPO="$APP_HOME/$MAIN_REPO" ;; # Maven runs from $APP_HOME, so relative to it
  esac
  repo="$APP_HOME/target/consumer-repository"
  settings="$APP_HOME/target/consumer-settings.xml"
  rm -rf "$repo"
  mkdir -p "$repo"
  cat >"$settings" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by ./gradlew check for the consumer check (check_consumer in ./gradlew). -->
<settings>
  <profiles>
    <profile>
      <id>main-build-cache</id>
      <repositories>
        <repository>
          <id>main-build-cache</id>
          <url>file://$MAIN_REPO</url>
          <releases><checksumPolicy>ignore</checksumPolicy></releases>
          <snapshots><enabled>false</enabled></snapshots>
        </repository>
      </repositories>
      <pluginRepositories>
        <pluginRepository>
          <id>main-build-cache</id>
          <url>file://$MAIN_REPO</url>
          <releases><checksumPolicy>ignore</checksumPolicy></releases>
          <snapshots><enabled>false</enabled></snapshots>
        </pluginRepository>
      </pluginRepositories>
    </profile>
  </profiles>
  <activeProfiles><activeProfile>main-build-cache</activeProfile></activeProfiles>
</settings>
EOF
  # -gs, not -s: the user's own settings (mirrors, proxies) still apply.
  # aether.offline.protocols: with --offline the file repositories stay readable.
  # shellcheck disable=SC2086
  mvn $CONSUMER_FLAGS -f examples/consumer-maven/pom.xml -gs "$settings" \
    "-Dmaven.repo.local=$repo" -Daether.offline.protocols=file \
    "-Dtalus.staging.url=file://$staging" verify
  origins=$(find "$repo/dev/talus" -name _remote.repositories -exec cat {} + 2>/dev/null |
    grep -v '^#' || true)
  [ -n "$origins" ] || die "consumer check: the consumer resolved no dev.talus artifact"
  foreign=$(printf '%s\n' "$origins" | grep -v '>talus-staging=$' || true)
  [ -z "$foreign" ] ||
    die "consumer check: dev.talus files resolved from elsewhere than target/staging-repo: $foreign"
  for kind in .jar -sources.jar -javadoc.jar; do
    printf '%s\n' "$origins" | grep -q "^talus-[0-9].*[0-9]$kind>talus-staging=\$" ||
      die "consumer check: no dev.talus:talus $kind was resolved from target/staging-repo"
  done
  printf '%s\n' "$origins" | grep -q '^talus-bom-.*\.pom>talus-staging=$' ||
    die "consumer check: dev.talus:talus-bom was not resolved from target/staging-repo"
  [ "$QUIET" -eq 1 ] || say "consumer check: every dev.talus file came from target/staging-repo"
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
    # The consumer sample imports dev.talus:talus-bom from target/staging-repo, which may be
    # gone; its build output is all there is to remove.
    if [ "$dir" = examples/consumer-maven ]; then
      rm -rf "$dir/target"
      continue
    fi
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
  if [ "$name" = consumer-maven ]; then
    die "task ':examples:consumer-maven:run': that sample is built and run by ./gradlew check (against the artifacts it deploys to target/staging-repo), not by a :run task"
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
