//! Context introspection, strategy lookup, the log callback (a Rust
//! closure owned by the context), and the loaded library's version.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use frugal::{abi_version, built_with_cuda, cuda_device_count, sys, version_string, AbiVersion, Context, ErrorCode, LogLevel};

#[test]
fn library_version_equals_the_header() {
    // The header values, as the C compiler sees them, are checked against
    // sys:: by tests/layout.rs; here the loaded library against sys::.
    assert_eq!(version_string(), sys::FRUGAL_VERSION_STRING);
    assert_eq!(
        version_string(),
        format!("{}.{}.{}", sys::FRUGAL_VERSION_MAJOR, sys::FRUGAL_VERSION_MINOR, sys::FRUGAL_VERSION_PATCH)
    );
    assert_eq!(
        abi_version(),
        AbiVersion { major: sys::FRUGAL_ABI_VERSION_MAJOR, minor: sys::FRUGAL_ABI_VERSION_MINOR }
    );
}

#[test]
fn plugins_list_the_built_in_strategies() {
    let context = common::context();
    let plugins = context.plugins().unwrap();
    let schedule_lr = plugins.iter().find(|p| p.name == "schedule_lr").expect("schedule_lr loaded");
    assert_eq!(schedule_lr.abi_major, sys::FRUGAL_ABI_VERSION_MAJOR);
    let cosine = schedule_lr.strategies.iter().find(|s| s.name == "cosine").expect("cosine listed");
    assert_eq!(cosine.kind, sys::FRUGAL_KIND_SCHEDULE);
    assert_eq!(cosine.kind_name, "schedule");
    assert_eq!(cosine.plugin_name, "schedule_lr");
    let packer_seq = plugins.iter().find(|p| p.name == "packer_seq").expect("packer_seq loaded");
    assert!(packer_seq.strategies.iter().any(|s| s.kind == sys::FRUGAL_KIND_PACKER));
}

#[test]
fn missing_plugin_file_is_not_found_naming_it() {
    let context = Context::new().unwrap();
    let err = context.load_plugin(std::path::Path::new("no/such/plugin.so")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert!(err.message().contains("no/such/plugin.so"), "message: {}", err.message());
    let failures = context.load_failures().unwrap();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].code, sys::FRUGAL_ERR_NOT_FOUND);
    assert!(context.plugins().unwrap().is_empty());
}

#[test]
fn handles_have_the_thread_traits_the_headers_allow() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<Context>();
    sync::<Context>();
    send::<frugal::Options>();
    send::<frugal::Schedule>();
    send::<frugal::Packer>();
    send::<frugal::PackPlan>();
    sync::<frugal::PackPlan>();
    send::<frugal::Error>();
    sync::<frugal::Error>();
    send::<frugal::LossScaler>();
    send::<frugal::PackStream>();
}

#[test]
fn cuda_device_count_agrees_with_the_build() {
    let count = cuda_device_count();
    assert!(count >= 0);
    if !built_with_cuda() {
        assert_eq!(count, 0, "a build without CUDA sees no device");
    }
}

#[test]
fn find_strategy_finds_every_built_in_and_names_what_is_missing() {
    let context = common::context();
    let built_ins = [
        (sys::FRUGAL_KIND_PACKER, "packer_seq", "packer_seq"),
        (sys::FRUGAL_KIND_QUANTIZER, "quant_fp8", "quant_fp8"),
        (sys::FRUGAL_KIND_SCHEDULE, "cosine", "schedule_lr"),
        (sys::FRUGAL_KIND_STORE, "fs", "store_fs"),
    ];
    for (kind, name, plugin) in built_ins {
        let found = context.find_strategy(kind, name).unwrap_or_else(|e| panic!("{}: {}", name, e));
        assert_eq!((found.kind, found.name.as_str(), found.plugin_name.as_str()), (kind, name, plugin));
        assert!(!found.shadowed);
        // The same entry as introspection lists, and reachable as plugin/name.
        let listed = context.plugins().unwrap().into_iter().find(|p| p.name == plugin).unwrap();
        assert!(listed.strategies.contains(&found), "{:?}", found);
        assert_eq!(context.find_strategy(kind, &format!("{}/{}", plugin, name)).unwrap(), found);
    }

    let err = context.find_strategy(sys::FRUGAL_KIND_SCHEDULE, "no_such_schedule").unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert!(err.message().contains("no_such_schedule"), "{}", err.message());
    assert!(err.message().contains("schedule"), "{}", err.message());
    assert!(err.message().contains("cosine"), "a short name lists the available ones: {}", err.message());
    // Right name, wrong kind.
    assert_eq!(context.find_strategy(sys::FRUGAL_KIND_ROUTER, "packer_seq").unwrap_err().code(), ErrorCode::NotFound);
}

type Messages = Arc<Mutex<Vec<(LogLevel, String, String)>>>;

fn recording(context: &Context, min_level: LogLevel) -> Messages {
    let messages: Messages = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&messages);
    context
        .set_log_callback(min_level, move |level, source, message| {
            sink.lock().unwrap().push((level, source.to_string(), message.to_string()));
        })
        .unwrap();
    messages
}

#[test]
fn the_log_callback_receives_load_failures_at_its_level() {
    let context = Context::new().unwrap();
    let messages = recording(&context, LogLevel::Warn);
    let err = context.load_plugin(Path::new("no/such/plugin.so")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    let failure = context.load_failures().unwrap().pop().unwrap();
    {
        let got = messages.lock().unwrap();
        assert_eq!(got.len(), 1, "{:?}", *got);
        assert_eq!(got[0], (LogLevel::Warn, "core".to_string(), failure.message.clone()));
        assert!(got[0].2.contains("no/such/plugin.so"), "{:?}", got[0]);
    }

    // Above the message's level: nothing arrives.
    let quiet = recording(&context, LogLevel::Error);
    context.load_plugin(Path::new("no/such/other.so")).unwrap_err();
    assert!(quiet.lock().unwrap().is_empty());
    assert_eq!(messages.lock().unwrap().len(), 1, "the replaced callback gets nothing more");

    // Debug: discovery reports every plugin it loads.
    let verbose = recording(&context, LogLevel::Debug);
    context.discover_plugins_with(sys::FRUGAL_DISCOVER_NO_ENV).unwrap();
    let got = verbose.lock().unwrap();
    for plugin in ["packer_seq", "quant_fp8", "schedule_lr", "store_fs"] {
        assert!(
            got.iter().any(|(l, s, m)| *l == LogLevel::Debug && s == "core" && m.contains(&format!("'{}'", plugin))),
            "no debug message loading {}: {:?}",
            plugin,
            *got
        );
    }
}

/// Counts its drops, to see when the context lets go of a closure.
struct DropCounter(Arc<AtomicUsize>);

impl Drop for DropCounter {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn the_context_owns_the_closure_and_survives_a_panicking_one() {
    let drops = Arc::new(AtomicUsize::new(0));
    let context = Context::new().unwrap();
    let guard = DropCounter(Arc::clone(&drops));
    context
        .set_log_callback(LogLevel::Trace, move |_, _, _| {
            let _keep = &guard;
        })
        .unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), 0);

    // A panic in the callback stays on the Rust side: the call that logged
    // returns its own error as usual.
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&calls);
    context
        .set_log_callback(LogLevel::Trace, move |_, _, _| {
            seen.fetch_add(1, Ordering::SeqCst);
            panic!("a log callback that panics");
        })
        .unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), 1, "replacing the callback drops the old closure");
    let err = context.load_plugin(Path::new("no/such/plugin.so")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    let guard = DropCounter(Arc::clone(&drops));
    context
        .set_log_callback(LogLevel::Trace, move |_, _, _| {
            let _keep = &guard;
        })
        .unwrap();
    drop(context);
    assert_eq!(drops.load(Ordering::SeqCst), 2, "dropping the context drops its closure");

    // silence_log drops the closure too, and nothing arrives afterwards.
    let context = Context::new().unwrap();
    let messages = recording(&context, LogLevel::Trace);
    context.silence_log().unwrap();
    context.load_plugin(Path::new("no/such/plugin.so")).unwrap_err();
    assert!(messages.lock().unwrap().is_empty());
    assert_eq!(Arc::strong_count(&messages), 1, "the closure's clone was dropped");
}
