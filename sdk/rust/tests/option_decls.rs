//! What strategies declare about their options (`OptionDecl`), read back
//! through the context: schedule_lr's declarations value by value, and
//! none from a strategy that declares nothing.

mod common;

use std::path::{Path, PathBuf};

use frugal::{sys, Context, ErrorCode, OptionDecl, OptionType};

/// A declaration as schedule_lr makes it, doc left empty (checked apart).
fn declared(name: &str, value_type: OptionType, default: Option<&str>) -> OptionDecl {
    OptionDecl {
        name: name.to_string(),
        value_type,
        required: false,
        default: default.map(str::to_string),
        min: None,
        max: None,
        choices: None,
        directory: false,
        doc: String::new(),
    }
}

fn required(name: &str, min: f64) -> OptionDecl {
    OptionDecl { required: true, min: Some(min), ..declared(name, OptionType::Int, None) }
}

fn lr() -> OptionDecl {
    declared("lr", OptionType::Double, Some("0.001"))
}

fn min_lr() -> OptionDecl {
    OptionDecl { min: Some(0.0), ..declared("min_lr", OptionType::Double, Some("0")) }
}

fn warmup_steps() -> OptionDecl {
    OptionDecl { min: Some(0.0), ..declared("warmup_steps", OptionType::Int, Some("0")) }
}

/// `options` equal `want` but for their docs, which must be non-empty.
fn assert_declares(options: Vec<OptionDecl>, want: Vec<OptionDecl>) {
    for option in &options {
        assert!(!option.doc.trim().is_empty(), "{} has no doc", option.name);
    }
    let undocumented: Vec<OptionDecl> = options.into_iter().map(|o| OptionDecl { doc: String::new(), ..o }).collect();
    assert_eq!(undocumented, want);
}

#[test]
fn cosine_declares_its_four_options() {
    let options = common::context().strategy_options(sys::FRUGAL_KIND_SCHEDULE, "cosine").unwrap();
    assert_declares(options, vec![lr(), min_lr(), warmup_steps(), required("total_steps", 1.0)]);
}

#[test]
fn sgdr_declares_bounds_and_choices() {
    let options = common::context().strategy_options(sys::FRUGAL_KIND_SCHEDULE, "sgdr").unwrap();
    assert_declares(
        options,
        vec![
            lr(),
            min_lr(),
            warmup_steps(),
            required("cycle_steps", 1.0),
            OptionDecl { min: Some(1.0), max: Some(1024.0), ..declared("cycle_mult", OptionType::Int, Some("1")) },
            OptionDecl { max: Some(1.0), ..declared("restart_decay", OptionType::Double, Some("1")) },
            OptionDecl {
                choices: Some(vec!["cosine".to_string(), "linear".to_string()]),
                ..declared("shape", OptionType::String, Some("cosine"))
            },
        ],
    );
}

#[test]
fn the_listing_and_the_lookup_agree() {
    let context = common::context();
    let plugins = context.plugins().unwrap();
    let schedule_lr = plugins.iter().find(|p| p.name == "schedule_lr").expect("schedule_lr loaded");
    for name in ["constant", "cosine", "sgdr", "wsd"] {
        let listed = schedule_lr.strategies.iter().find(|s| s.name == name).expect("listed");
        assert!(!listed.options.is_empty(), "{} declares nothing", name);
        let found = context.find_strategy(sys::FRUGAL_KIND_SCHEDULE, name).unwrap();
        assert_eq!(found.options, listed.options, "{}", name);
        let qualified = context.strategy_options(sys::FRUGAL_KIND_SCHEDULE, &format!("schedule_lr/{}", name)).unwrap();
        assert_eq!(qualified, listed.options, "schedule_lr/{}", name);
    }
}

/// `<build>/tests/plugins/<name>.so` of the build whose schedule_lr.so
/// (`<build>/lib/frugal/v2/plugins`) the context loaded.
fn built_test_plugin(context: &Context, name: &str) -> PathBuf {
    let plugins = context.plugins().unwrap();
    let schedule_lr = plugins.iter().find(|p| p.name == "schedule_lr").expect("schedule_lr loaded");
    let build = Path::new(&schedule_lr.path).ancestors().nth(5).expect("schedule_lr.so lies 5 levels deep");
    build.join("tests/plugins").join(format!("{}.so", name))
}

#[test]
fn a_strategy_declaring_nothing_lists_no_options() {
    let path = built_test_plugin(&common::context(), "alpha");
    if !path.is_file() {
        // A checkout holds the test plugins' source; a copy of the crate
        // tested against an install does not.
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/core/loader/test_plugin.cpp");
        assert!(!source.exists(), "{} is missing: build the target test_plugin_alpha", path.display());
        eprintln!("skipped: no test plugin {} (the crate is tested outside the source tree)", path.display());
        return;
    }
    let context = Context::new().unwrap();
    context.silence_log().unwrap(); // alpha's strategy of an unknown kind is skipped with a warning
    context.load_plugin(&path).unwrap();
    let plugins = context.plugins().unwrap();
    assert_eq!(plugins.len(), 1);
    assert!(plugins[0].strategies.iter().any(|s| s.name == "linear"));
    for strategy in &plugins[0].strategies {
        assert_eq!(strategy.options, Vec::new(), "alpha's {}", strategy.name);
    }
    assert_eq!(context.strategy_options(sys::FRUGAL_KIND_SCHEDULE, "linear").unwrap(), Vec::new());
}

#[test]
fn an_unknown_strategy_is_not_found() {
    let err = common::context().strategy_options(sys::FRUGAL_KIND_SCHEDULE, "no_such_schedule").unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert!(err.message().contains("no_such_schedule"), "message: {}", err.message());
}
