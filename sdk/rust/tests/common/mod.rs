//! Shared by the integration tests: a context with the built-in plugins.

use frugal::Context;

/// A context that discovered the built-in plugins (libfrugal finds them
/// next to itself). FRUGAL_PLUGIN_PATH is ignored, so the tests see the
/// plugins of the library they link and nothing from the environment.
pub fn context() -> Context {
    let context = Context::new().expect("context");
    let loaded = context.discover_plugins_with(frugal::sys::FRUGAL_DISCOVER_NO_ENV).expect("discovery");
    assert!(loaded > 0, "no built-in plugin found next to libfrugal");
    context
}
