//! Schedule values against the closed form, and the errors a caller sees.

mod common;

use frugal::{ErrorCode, Options, Schedule};

#[test]
fn cosine_equals_the_closed_form() {
    let context = common::context();
    let (lr, min_lr, warmup, total) = (3e-4, 3e-5, 10i64, 110i64);
    let mut options = Options::new().unwrap();
    options
        .set_double("lr", lr)
        .unwrap()
        .set_double("min_lr", min_lr)
        .unwrap()
        .set_int("warmup_steps", warmup)
        .unwrap()
        .set_int("total_steps", total)
        .unwrap();
    let schedule = Schedule::new(&context, "cosine", Some(&options)).unwrap();
    // The schedule must not depend on the context or options staying alive.
    drop(options);
    drop(context);

    // Warm-up: linear from lr/warmup to lr.
    assert!((schedule.lr(0).unwrap() - lr / warmup as f64).abs() < 1e-15);
    assert!((schedule.lr(9).unwrap() - lr).abs() < 1e-15);
    // Decay: min + (lr - min) * (1 + cos(pi * progress)) / 2.
    for &step in &[10i64, 35, 60, 85, 109] {
        let progress = (step - warmup) as f64 / (total - warmup) as f64;
        let expected = min_lr + (lr - min_lr) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
        let got = schedule.lr(step).unwrap();
        assert!((got - expected).abs() < 1e-15, "step {}: {} != {}", step, got, expected);
    }
    assert_eq!(schedule.lr(60).unwrap(), min_lr + (lr - min_lr) * 0.5);
    // After the end: the floor.
    assert_eq!(schedule.lr(1000).unwrap(), min_lr);
}

#[test]
fn unknown_strategy_is_not_found_naming_it() {
    let context = common::context();
    let err = Schedule::new(&context, "no_such_schedule", None).err().expect("an error");
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert_eq!(err.name(), "NOT_FOUND");
    assert!(err.message().contains("no_such_schedule"), "message: {}", err.message());
    // The native error trait works, with code name and message in Display.
    let dynamic: Box<dyn std::error::Error> = Box::new(err.clone());
    assert_eq!(dynamic.to_string(), format!("NOT_FOUND: {}", err.message()));
}

#[test]
fn bad_option_value_is_invalid_argument_naming_the_option() {
    let context = common::context();
    let mut options = Options::new().unwrap();
    options.set_double("lr", -1.0).unwrap().set_int("total_steps", 100).unwrap();
    let err = Schedule::new(&context, "cosine", Some(&options)).err().expect("an error");
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("'lr'"), "message: {}", err.message());
    assert!(err.message().starts_with("schedule 'cosine': "), "message: {}", err.message());
}

#[test]
fn bad_option_name_is_refused_when_set() {
    let mut options = Options::new().unwrap();
    let err = options.set_int("bad name!", 1).err().expect("an error");
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("bad name!"), "message: {}", err.message());
    // A NUL byte never reaches the C side; the error names the argument.
    let err = options.set_int("a\0b", 1).err().expect("an error");
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("option name"), "message: {}", err.message());
    assert!(options.is_empty());
}

#[test]
fn negative_step_is_out_of_range() {
    let context = common::context();
    let mut options = Options::new().unwrap();
    options.set_int("total_steps", 10).unwrap();
    let schedule = Schedule::new(&context, "cosine", Some(&options)).unwrap();
    assert_eq!(schedule.lr(-1).unwrap_err().code(), ErrorCode::OutOfRange);
}
