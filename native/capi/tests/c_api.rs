//! The C tests: builds `libtalus.so` and `libtalus.a`, compiles each
//! `tests/c/test_*.c` with the system C compiler (`cc`, `-Wall -Wextra
//! -Werror`) against `include/talus.h`, runs it, then compiles and runs the
//! same tests under AddressSanitizer and LeakSanitizer
//! (`-fsanitize=address`), builds `examples/c/hello.c` against the static
//! library, and reads back with the Python ctypes example
//! (`examples/c/read_back.py`) what C wrote, when `python3` is present.
//!
//! The library is built by a nested `cargo build -p talus-capi` into this
//! test's own target directory: cargo does not build a `cdylib`-only crate
//! for its integration tests.
//!
//! ASan needs nothing special for the Rust library: it is not instrumented,
//! but it allocates through malloc (the system allocator, no mimalloc), which
//! the sanitizer intercepts, so leaks and frees of what the library hands to
//! C are checked, as are the C tests' own accesses.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `target/<profile>` of this test binary (it lives in `.../deps/`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test binary is in target/<profile>/deps")
        .to_path_buf()
}

/// Builds the library once per test process; returns the directory that
/// holds `libtalus.so` and `libtalus.a`.
fn library() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let profile = profile_dir();
        let target = profile.parent().expect("target directory");
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["build", "-p", "talus-capi", "--lib", "--target-dir"])
            .arg(target)
            .current_dir(repo());
        if profile.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let st = cmd.status().expect("run cargo build -p talus-capi");
        assert!(st.success(), "cargo build -p talus-capi failed: {st}");
        assert!(profile.join("libtalus.so").exists() && profile.join("libtalus.a").exists());
        profile
    })
}

fn c_tests() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read tests/c")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("test_") && name.ends_with(".c")
        })
        .collect();
    v.sort();
    assert!(v.len() >= 3, "the C tests are in {}", dir.display());
    v
}

/// Compiles `src` into `out` with `cc` and `extra` flags, against the
/// shared library (rpath set) unless `extra` names the static one.
fn compile(src: &Path, out: &Path, extra: &[&str]) {
    let lib = library();
    let mut cmd = Command::new("cc");
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-pthread"])
        .arg("-I")
        .arg(repo().join("include"))
        .arg("-I")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c"))
        .arg(src)
        .arg("-o")
        .arg(out)
        .args(extra);
    if !extra.iter().any(|a| a.ends_with("libtalus.a")) {
        cmd.arg("-L")
            .arg(lib)
            .arg("-ltalus")
            .arg(format!("-Wl,-rpath,{}", lib.display()));
    }
    let o = cmd.output().expect("run cc (the system C compiler)");
    assert!(
        o.status.success(),
        "cc {} failed:\n{}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs `exe DIR` in a fresh directory; returns stdout, failing with the
/// program's output when it exits non-zero.
fn run(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> String {
    let o = Command::new(exe)
        .arg(dir)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", exe.display()));
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(
        o.status.success(),
        "{} failed ({}):\nstdout:\n{out}\nstderr:\n{err}",
        exe.display(),
        o.status
    );
    out.into_owned()
}

#[test]
fn c_tests_pass() {
    let build = tempfile::tempdir().unwrap();
    for src in c_tests() {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let exe = build.path().join(&name);
        compile(&src, &exe, &[]);
        let data = tempfile::tempdir().unwrap();
        let out = run(&exe, data.path(), &[]);
        assert!(out.contains(&format!("{name}: ok")), "{out}");
    }
}

#[test]
fn c_tests_pass_under_address_and_leak_sanitizer() {
    let build = tempfile::tempdir().unwrap();
    for src in c_tests() {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let exe = build.path().join(format!("{name}-asan"));
        compile(
            &src,
            &exe,
            &["-fsanitize=address", "-fno-omit-frame-pointer"],
        );
        let data = tempfile::tempdir().unwrap();
        // detect_leaks: LeakSanitizer at exit (a leak fails the run with
        // exit code 23); abort_on_error off so the report reaches stderr.
        let out = run(
            &exe,
            data.path(),
            &[(
                "ASAN_OPTIONS",
                "detect_leaks=1:exitcode=23:strict_string_checks=1",
            )],
        );
        assert!(out.contains(&format!("{name}: ok")), "{out}");
    }
}

/// Every function `talus.h` declares is called by some C test: the tests
/// cover the whole API, and a new function needs a test to pass.
#[test]
fn every_header_function_is_called_by_a_c_test() {
    let header = std::fs::read_to_string(repo().join("include/talus.h")).unwrap();
    let tests: String = c_tests()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut missing = Vec::new();
    for line in header.lines() {
        if line.starts_with("//") || line.starts_with(' ') || line.starts_with('#') {
            continue;
        }
        let Some(open) = line.find('(') else { continue };
        let Some(start) = line[..open].rfind(|c: char| !(c.is_alphanumeric() || c == '_')) else {
            continue;
        };
        let name = &line[start + 1..open];
        if name.starts_with("talus_") && !tests.contains(&format!("{name}(")) {
            missing.push(name.to_owned());
        }
    }
    assert!(missing.is_empty(), "functions no C test calls: {missing:?}");
}

/// `examples/c/hello.c` links against `libtalus.a` and runs; the Python
/// ctypes example then reads what C wrote.
#[test]
fn c_example_links_statically_and_python_reads_what_c_wrote() {
    let lib = library();
    let build = tempfile::tempdir().unwrap();
    let exe = build.path().join("hello");
    let static_lib = lib.join("libtalus.a");
    compile(
        &repo().join("examples/c/hello.c"),
        &exe,
        &[static_lib.to_str().unwrap(), "-lpthread", "-ldl", "-lm"],
    );
    let data = tempfile::tempdir().unwrap();
    let db = data.path().join("hello");
    let o = Command::new(&exe).arg(&db).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("greeting = hello from C"), "{out}");
    assert!(out.contains("planet -> earth"), "{out}");

    let python = Command::new("python3").arg("--version").output();
    if !python.is_ok_and(|o| o.status.success()) {
        println!("skipped the Python ctypes example: python3 is not installed");
        return;
    }
    let o = Command::new("python3")
        .arg(repo().join("examples/c/read_back.py"))
        .arg(lib.join("libtalus.so"))
        .arg(&db)
        .args(["greeting", "planet", "nothing"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "read_back.py failed:\n{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        out,
        "greeting = hello from C\nplanet = earth\nnothing absent\n"
    );
}
