//! Build script: links libfrugal and records the C side's struct layouts.
//!
//! 1. Finds libfrugal: `FRUGAL_LIB_DIR` if set, else `../../build/lib` (the
//!    repository's default CMake build directory) relative to this crate.
//!    An rpath to that directory is embedded so tests and examples run
//!    without `LD_LIBRARY_PATH`; libfrugal then finds its built-in plugins
//!    relative to itself.
//! 2. Compiles `probe/layout_probe.c` against `../../abi/include` with the
//!    system C compiler (`CC`, default `cc`; `FRUGAL_ABI_INCLUDE_DIR`
//!    overrides the header directory), runs it and writes its output
//!    to `$OUT_DIR/layout.txt`, which `tests/layout.rs` compares with the
//!    Rust structs. The headers are the source of truth, so the probe runs
//!    on every header change.
//!
//! Standard library only: the crate must build offline.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    link_libfrugal(&crate_dir);
    write_c_layout(&crate_dir, &out_dir);
}

fn link_libfrugal(crate_dir: &Path) {
    println!("cargo:rerun-if-env-changed=FRUGAL_LIB_DIR");
    let lib_dir = match env::var_os("FRUGAL_LIB_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => crate_dir.join("../../build/lib"),
    };
    // An absolute path, so the rpath does not depend on where a test runs.
    let lib_dir = fs::canonicalize(&lib_dir).unwrap_or(lib_dir);
    if !lib_dir.join("libfrugal.so").exists() {
        println!(
            "cargo:warning=libfrugal.so not found in {}; build libfrugal or set FRUGAL_LIB_DIR",
            lib_dir.display()
        );
    }
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=frugal");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
    // Lets dependents (links = "frugal") find the same directory.
    println!("cargo:lib_dir={}", lib_dir.display());
}

fn write_c_layout(crate_dir: &Path, out_dir: &Path) {
    // FRUGAL_ABI_INCLUDE_DIR lets a check build the probe from edited
    // headers (tests/layout_detects_moves.sh moves a field on a copy).
    println!("cargo:rerun-if-env-changed=FRUGAL_ABI_INCLUDE_DIR");
    let include_dir = match env::var_os("FRUGAL_ABI_INCLUDE_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => crate_dir.join("../../abi/include"),
    };
    let probe_src = crate_dir.join("probe/layout_probe.c");
    println!("cargo:rerun-if-changed={}", probe_src.display());
    println!("cargo:rerun-if-changed={}", include_dir.join("frugal").display());
    println!("cargo:rerun-if-env-changed=CC");

    // Rerun on an edit of any header, not only on files added or removed.
    if let Ok(entries) = fs::read_dir(include_dir.join("frugal")) {
        for entry in entries.flatten() {
            println!("cargo:rerun-if-changed={}", entry.path().display());
        }
    }

    let compiler = env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let probe_bin = out_dir.join("layout_probe");
    let status = Command::new(&compiler)
        .arg("-std=c99")
        .arg("-I")
        .arg(&include_dir)
        .arg(&probe_src)
        .arg("-o")
        .arg(&probe_bin)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler '{}': {}", compiler, e));
    assert!(status.success(), "the C compiler '{}' failed on {}", compiler, probe_src.display());

    let output = Command::new(&probe_bin)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {}", probe_bin.display(), e));
    assert!(output.status.success(), "{} failed", probe_bin.display());
    fs::write(out_dir.join("layout.txt"), &output.stdout).expect("cannot write layout.txt to OUT_DIR");
}
