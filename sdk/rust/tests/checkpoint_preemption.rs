//! The preemption agreement of a checkpoint engine (ABI 2.3): without a
//! comm it reports this process's notice, over a "local" comm (a group of
//! one) the group's; a notice agreed on stays pending.
//!
//! The notice is process-wide, so everything runs in one test function of
//! its own test binary (as tests/preemption.rs does): no other test can see
//! or race it.

mod common;

use common::{fs_store, TempDir};
use frugal::{preemption, CkptEngine, Comm, Options};

#[test]
fn the_agreement_reports_a_notice_and_leaves_it_pending() {
    let context = common::context();
    let dir = TempDir::new("ckpt-preemption");
    let store = fs_store(&context, &dir);
    let mut alone = CkptEngine::new(&store, None).unwrap();
    let comm = Comm::new(&context, "local", None).expect("the local comm");
    let mut options = Options::new().unwrap();
    options.set_string("prefix", "job/").unwrap().set_comm("comm", &comm).unwrap();
    let mut sharded = CkptEngine::new(&store, Some(&options)).unwrap();
    drop((comm, options)); // the engine keeps sub-groups of its own

    preemption::clear();
    for engine in [&mut alone, &mut sharded] {
        assert!(!engine.preemption_agree().unwrap(), "no notice yet");
        preemption::notify();
        assert!(engine.preemption_agree().unwrap());
        assert!(preemption::pending(), "agreeing does not consume the notice");
        assert!(engine.preemption_agree().unwrap(), "nor does agreeing twice");
        preemption::clear();
        assert!(!engine.preemption_agree().unwrap());
    }

    // A notice from another thread is this process's too.
    std::thread::spawn(preemption::notify).join().unwrap();
    assert!(alone.preemption_agree().unwrap());
    preemption::clear();
    assert!(!preemption::pending());
}
