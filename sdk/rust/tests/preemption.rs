//! Preemption notices: notify -> pending -> clear, and a SIGTERM caught by
//! the opt-in handler becomes a notice instead of ending the process.
//!
//! The notice and the handler are process-wide, so everything runs in one
//! test function of its own test binary: no other test can see or race it.

use frugal::preemption;

extern "C" {
    // The C library's raise(3), linked into every Rust program on Linux.
    fn raise(signal: i32) -> i32;
}

/// SIGTERM's number on Linux (and every other POSIX system in use).
const SIGTERM: i32 = 15;

#[test]
fn notices_from_notify_and_from_sigterm_are_pending_until_cleared() {
    preemption::clear();
    assert!(!preemption::pending());

    preemption::notify();
    assert!(preemption::pending());
    assert!(preemption::pending(), "reading does not consume the notice");
    preemption::clear();
    assert!(!preemption::pending());

    // Notices are process-wide: one from another thread is seen here.
    std::thread::spawn(preemption::notify).join().unwrap();
    assert!(preemption::pending());
    preemption::clear();

    preemption::install_sigterm().unwrap();
    preemption::install_sigterm().unwrap(); // idempotent
    // SAFETY: the handler installed above only records the signal.
    assert_eq!(unsafe { raise(SIGTERM) }, 0);
    // raise returns after the handler ran (the signal goes to this thread).
    assert!(preemption::pending(), "SIGTERM recorded as a notice, the process still alive");
    preemption::clear();
    assert!(!preemption::pending());
    preemption::uninstall_sigterm();
    preemption::uninstall_sigterm(); // without an install: nothing to restore
    assert!(!preemption::pending());
}
