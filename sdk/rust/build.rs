//! Build script: finds libfrugal and tells cargo how to link it.
//!
//! Where libfrugal is, in this order:
//! 1. `FRUGAL_LIB_DIR` (the directory holding `libfrugal.so`), when set;
//! 2. otherwise `pkg-config --cflags --libs frugal` (`PKG_CONFIG` names
//!    another tool): the installed `frugal.pc`, or a build tree's
//!    `<build>/pkgconfig/frugal-uninstalled.pc` when `PKG_CONFIG_PATH`
//!    holds that directory.
//!
//! `FRUGAL_INCLUDE_DIR` (the directory holding `frugal/*.h`), when set,
//! names the headers in either case.
//!
//! The link flags reach every dependent's link of this crate, so a crate
//! using this one needs no build script. No rpath is embedded (cargo would
//! not pass one to dependents, and an rpath into a build tree is wrong
//! anywhere else): at run time the dynamic loader finds libfrugal, through
//! its cache for a system install or through `LD_LIBRARY_PATH`.
//!
//! The header directory is only needed by the layout test
//! (`tests/layout.rs`), which compiles `probe/layout_probe.c` itself, so a
//! plain `cargo build` runs no C compiler. It reaches the test as
//! `FRUGAL_SYS_INCLUDE_DIRS` and dependents' build scripts as
//! `DEP_FRUGAL_INCLUDE`, next to `DEP_FRUGAL_LIB_DIR` (`links = "frugal"`).
//!
//! Standard library only: the crate must build offline.

use std::env;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

/// What linking and the layout probe need.
struct Found {
    /// `-L` directories; empty when the library is in a default one.
    lib_dirs: Vec<PathBuf>,
    /// `-l` names (`frugal`).
    libs: Vec<String>,
    /// `-I` directories; empty when the headers are in a default one.
    include_dirs: Vec<PathBuf>,
}

fn main() {
    for var in [
        "FRUGAL_LIB_DIR",
        "FRUGAL_INCLUDE_DIR",
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
    ] {
        println!("cargo:rerun-if-env-changed={}", var);
    }

    let mut found = from_env().unwrap_or_else(|| {
        from_pkg_config().unwrap_or_else(|why| {
            panic!(
                "cannot find libfrugal: {}.\n\
                 Either make `pkg-config frugal` work (install frugal, or put the directory \
                 holding frugal.pc in PKG_CONFIG_PATH: <libdir>/pkgconfig for an install, \
                 <build>/pkgconfig for a build tree), or set FRUGAL_LIB_DIR to the directory \
                 holding libfrugal.so (and FRUGAL_INCLUDE_DIR to the one holding frugal/*.h).",
                why
            )
        })
    });
    // Set alone, it picks the headers wherever the library comes from
    // (tests/layout_detects_moves.sh builds the probe from edited copies).
    if let Some(dir) = non_empty_var("FRUGAL_INCLUDE_DIR") {
        found.include_dirs = vec![PathBuf::from(dir)];
    }

    for dir in &found.lib_dirs {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    for lib in &found.libs {
        println!("cargo:rustc-link-lib=dylib={}", lib);
    }
    if let Some(dir) = found.lib_dirs.first() {
        println!("cargo:lib_dir={}", dir.display());
    }
    let includes = env::join_paths(&found.include_dirs).expect("an include directory holds a path separator");
    println!("cargo:include={}", includes.to_string_lossy());
    println!("cargo:rustc-env=FRUGAL_SYS_INCLUDE_DIRS={}", includes.to_string_lossy());
}

/// `FRUGAL_LIB_DIR`, or None when it is unset.
fn from_env() -> Option<Found> {
    let lib_dir = non_empty_var("FRUGAL_LIB_DIR")?;
    let lib_dir = PathBuf::from(lib_dir);
    if !lib_dir.join("libfrugal.so").exists() {
        panic!("FRUGAL_LIB_DIR is {} but it holds no libfrugal.so", lib_dir.display());
    }
    Some(Found { lib_dirs: vec![lib_dir], libs: vec!["frugal".to_string()], include_dirs: Vec::new() })
}

/// `pkg-config --cflags --libs frugal`, split into what cargo needs.
fn from_pkg_config() -> Result<Found, String> {
    let tool = non_empty_var("PKG_CONFIG").unwrap_or_else(|| OsString::from("pkg-config"));
    let output = Command::new(&tool)
        .args(["--cflags", "--libs", "frugal"])
        .output()
        .map_err(|e| format!("FRUGAL_LIB_DIR is not set and `{}` cannot run ({})", tool.to_string_lossy(), e))?;
    if !output.status.success() {
        return Err(format!(
            "FRUGAL_LIB_DIR is not set and `{} --cflags --libs frugal` failed: {}",
            tool.to_string_lossy(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let flags = String::from_utf8(output.stdout).map_err(|_| "pkg-config printed flags that are not UTF-8".to_string())?;
    let mut found = Found { lib_dirs: Vec::new(), libs: Vec::new(), include_dirs: Vec::new() };
    for flag in flags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            found.lib_dirs.push(PathBuf::from(dir));
        } else if let Some(lib) = flag.strip_prefix("-l") {
            found.libs.push(lib.to_string());
        } else if let Some(dir) = flag.strip_prefix("-I") {
            found.include_dirs.push(PathBuf::from(dir));
        } else {
            // Other compiler flags do not concern Rust code; other link
            // flags could not reach dependents anyway.
            println!("cargo:warning=frugal.pc flag {} ignored", flag);
        }
    }
    if !found.libs.iter().any(|lib| lib == "frugal") {
        return Err(format!("`pkg-config --libs frugal` names no -lfrugal: {}", flags.trim()));
    }
    Ok(found)
}

fn non_empty_var(name: &str) -> Option<OsString> {
    env::var_os(name).filter(|value| !value.is_empty())
}
