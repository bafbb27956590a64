//! How a tour step fails: a frugal error, or a value that differs from
//! what the step expected, reported with both numbers.

use std::fmt;

/// The first thing that went wrong in a step.
#[derive(Debug)]
pub enum Failure {
    /// A call into frugal returned an error (code and message kept).
    Frugal(frugal::Error),
    /// A computed value did not match the expectation.
    Mismatch(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Frugal(e) => write!(f, "frugal error {}", e),
            Failure::Mismatch(what) => write!(f, "mismatch: {}", what),
        }
    }
}

impl From<frugal::Error> for Failure {
    fn from(e: frugal::Error) -> Failure {
        Failure::Frugal(e)
    }
}

/// The result of a tour step.
pub type StepResult = Result<(), Failure>;

/// Fails the step with `what` unless `ok`.
pub fn ensure(ok: bool, what: impl FnOnce() -> String) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(Failure::Mismatch(what()))
    }
}

/// `value` as C's `%.6e` writes it ("3.000000e-06"), so the tour's lines
/// compare equal with the C and C++ tours' (Rust's `{:e}` writes "e-6").
pub fn sci(value: f64) -> String {
    let text = format!("{:.6e}", value);
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let (sign, digits) = match exponent.strip_prefix('-') {
                Some(digits) => ('-', digits),
                None => ('+', exponent),
            };
            format!("{}e{}{:0>2}", mantissa, sign, digits)
        }
        None => text,
    }
}
