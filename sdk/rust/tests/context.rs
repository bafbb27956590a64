//! Context introspection and the loaded library's version.

mod common;

use frugal::{abi_version, sys, version_string, AbiVersion, Context, ErrorCode};

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
}
