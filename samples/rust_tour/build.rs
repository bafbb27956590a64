//! Embeds an rpath to the libfrugal the `frugal` crate linked, so the
//! sample runs from the repository without `LD_LIBRARY_PATH`. Link
//! arguments of a dependency's build script do not reach this binary;
//! the directory arrives as `DEP_FRUGAL_LIB_DIR` because the crate
//! declares `links = "frugal"`.

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_FRUGAL_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_FRUGAL_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
    }
}
