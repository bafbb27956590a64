//! Loss scaler values: growth after growth_interval clean steps, backoff
//! and skip on overflow, the floor and the ceiling, state round trips into
//! a fresh scaler, and bad options or states as native errors.

use frugal::{ErrorCode, LossScaler, LossScalerStatus, Options};

const INIT: f64 = 1024.0;
const INTERVAL: i64 = 3;
const MAX: f64 = 4096.0;

fn options() -> Options {
    let mut options = Options::new().unwrap();
    options
        .set_double("init_scale", INIT)
        .unwrap()
        .set_double("growth_factor", 2.0)
        .unwrap()
        .set_double("backoff_factor", 0.25)
        .unwrap()
        .set_int("growth_interval", INTERVAL)
        .unwrap()
        .set_double("min_scale", 16.0)
        .unwrap()
        .set_double("max_scale", MAX)
        .unwrap();
    options
}

fn scaler() -> LossScaler {
    LossScaler::new(Some(&options())).unwrap()
}

#[test]
fn defaults_follow_the_header() {
    let mut s = LossScaler::new(None).unwrap();
    assert_eq!(s.scale(), 65536.0);
    // growth_interval 2000: 1999 clean steps do not grow, the 2000th does.
    for _ in 0..1999 {
        assert!(s.update(false).unwrap());
    }
    assert_eq!(s.scale(), 65536.0);
    assert!(s.update(false).unwrap());
    assert_eq!(s.scale(), 131072.0);
    // backoff 0.5
    assert!(!s.update(true).unwrap());
    assert_eq!(s.scale(), 65536.0);
}

#[test]
fn grows_after_growth_interval_clean_steps_and_stops_at_the_ceiling() {
    let mut s = scaler();
    assert_eq!(s.scale(), INIT);
    for step in 1..INTERVAL {
        assert!(s.update(false).unwrap(), "clean step {} is applied", step);
        assert_eq!(s.scale(), INIT, "no growth before {} clean steps", INTERVAL);
        assert_eq!(s.status().unwrap(), LossScalerStatus { scale: INIT, clean_steps: step, skipped_steps: 0 });
    }
    assert!(s.update(false).unwrap());
    assert_eq!(s.scale(), INIT * 2.0, "initial * growth_factor after growth_interval clean steps");
    assert_eq!(s.status().unwrap().clean_steps, 0);

    // 2048 -> 4096 -> min(8192, max_scale) = 4096.
    for _ in 0..2 * INTERVAL {
        s.update(false).unwrap();
    }
    assert_eq!(s.scale(), MAX);
    assert_eq!(s.status().unwrap(), LossScalerStatus { scale: MAX, clean_steps: 0, skipped_steps: 0 });
}

#[test]
fn an_overflow_backs_off_skips_and_resets_the_counter_down_to_the_floor() {
    let mut s = scaler();
    s.update(false).unwrap();
    s.update(false).unwrap();
    assert!(!s.update(true).unwrap(), "an overflow step must be skipped");
    assert_eq!(s.status().unwrap(), LossScalerStatus { scale: INIT * 0.25, clean_steps: 0, skipped_steps: 1 });
    // The counter restarted: two clean steps are not enough to grow.
    s.update(false).unwrap();
    s.update(false).unwrap();
    assert_eq!(s.scale(), 256.0);
    // 256 -> 64 -> 16 -> max(4, min_scale 16) = 16.
    for expected in [64.0, 16.0, 16.0] {
        assert!(!s.update(true).unwrap());
        assert_eq!(s.scale(), expected);
    }
    assert_eq!(s.status().unwrap().skipped_steps, 4);
}

#[test]
fn state_round_trips_into_a_fresh_scaler_and_later_scales_match() {
    let mut a = scaler();
    for found_inf in [false, false, false, true, false, false] {
        a.update(found_inf).unwrap();
    }
    let state = a.status().unwrap();
    assert_eq!(state, LossScalerStatus { scale: 512.0, clean_steps: 2, skipped_steps: 1 });

    let mut b = scaler();
    b.set_status(&state).unwrap();
    assert_eq!(b.status().unwrap(), state);
    assert_eq!(b.scale(), 512.0);
    // The restored counter matters: one more clean step grows both.
    for (i, found_inf) in [false, false, true, false, false, false, false].iter().enumerate() {
        assert_eq!(a.update(*found_inf).unwrap(), b.update(*found_inf).unwrap(), "step {}", i);
        assert_eq!(a.scale(), b.scale(), "step {}", i);
        assert_eq!(a.status().unwrap(), b.status().unwrap(), "step {}", i);
    }
    assert_eq!(b.scale(), 512.0, "512 -> 1024 -> 256 -> 512 after three clean steps");
}

#[test]
fn bad_options_and_states_are_invalid_argument_naming_the_problem() {
    // Each case spelled as a config file would (set_parsed picks the type).
    let cases = [
        ("growth_factor", "1", "growth_factor"),
        ("backoff_factor", "1.5", "backoff_factor"),
        ("growth_interval", "0", "growth_interval"),
        ("init_scale", "1e9", "init_scale"),
        ("growth", "2", "growth"),
        ("min_scale", "one", "min_scale"),
    ];
    for (name, text, mention) in cases {
        let mut o = options();
        o.set_parsed(name, text).unwrap();
        let err = LossScaler::new(Some(&o)).err().expect("a bad option must be refused");
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
        assert_eq!(err.name(), "INVALID_ARGUMENT");
        assert!(err.message().contains(mention), "message {:?} should name {}", err.message(), mention);
    }

    let mut s = scaler();
    s.update(false).unwrap();
    let before = s.status().unwrap();
    for (bad, mention) in [
        (LossScalerStatus { scale: MAX * 2.0, ..before }, "scale"),
        (LossScalerStatus { clean_steps: INTERVAL, ..before }, "clean_steps"),
        (LossScalerStatus { skipped_steps: -1, ..before }, "skipped_steps"),
    ] {
        let err = s.set_status(&bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert!(err.message().contains(mention), "{}", err);
        assert_eq!(s.status().unwrap(), before, "a refused state changes nothing");
    }
}
