//! Shared by the integration tests: a context with the built-in plugins.

use frugal::{Context, ErrorCode, Options, Store};

/// A context that discovered the built-in plugins (libfrugal finds them
/// next to itself). FRUGAL_PLUGIN_PATH is ignored, so the tests see the
/// plugins of the library they link and nothing from the environment.
pub fn context() -> Context {
    let context = Context::new().expect("context");
    let loaded = context.discover_plugins_with(frugal::sys::FRUGAL_DISCOVER_NO_ENV).expect("discovery");
    assert!(loaded > 0, "no built-in plugin found next to libfrugal");
    context
}

/// A fresh directory under the system's temporary directory, removed with
/// its contents when dropped.
#[allow(dead_code)] // not every test file uses it
pub struct TempDir {
    pub path: std::path::PathBuf,
}

#[allow(dead_code)]
impl TempDir {
    /// A new empty directory whose name starts with `tag`.
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        // Tests of one binary run in parallel threads of one process.
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "frugal-rust-{}-{}-{}",
            tag,
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir(&path).expect("create a fresh temporary directory");
        TempDir { path }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The tour's input stream (samples/README.md).
#[allow(dead_code)]
pub struct Lcg(pub u64);

#[allow(dead_code)]
impl Lcg {
    /// A value in [-1, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as f64 / 2147483648.0 * 2.0 - 1.0
    }
}

/// The fs store over `dir`, without fsync (the tests do not crash the machine).
#[allow(dead_code)] // not every test file uses it
pub fn fs_store(context: &Context, dir: &TempDir) -> Store {
    let mut options = Options::new().unwrap();
    options.set_string("root", &dir.path.to_string_lossy()).unwrap().set_bool("fsync", false).unwrap();
    Store::new(context, "fs", Some(&options)).unwrap()
}

/// Asserts `result` is an error with `code` whose message holds every word.
#[allow(dead_code)] // not every test file uses it
pub fn expect_error<T>(result: frugal::Result<T>, code: ErrorCode, words: &[&str]) {
    let err = match result {
        Ok(_) => panic!("the call should have been refused with {:?} ({:?})", code, words),
        Err(err) => err,
    };
    assert_eq!(err.code(), code, "{}", err);
    for word in words {
        assert!(err.message().contains(word), "{:?} not in the message: {}", word, err.message());
    }
}
