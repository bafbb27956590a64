//! `Scheduler`: the run scheduler (frugal/scheduler.h): telemetry in,
//! decisions out, a cost ledger, and state that travels in checkpoints.
//!
//! Across ranks (ABI 2.4): [`Scheduler::with_comm`] makes one scheduler for
//! the whole job. Creating it and every [`Scheduler::step`] are collective
//! over the comm; every rank passes its own telemetry and gets the job's
//! decision, the same on every rank (docs/scheduler-across-ranks.md).

use std::ffi::CString;
use std::mem::size_of;
use std::os::raw::{c_char, c_void};
use std::ptr::{self, NonNull};

use crate::comm::Comm;
use crate::context::Context;
use crate::error::{check, Result};
use crate::options::Options;
use crate::state_blob::export_blob;
use crate::strings::{copy_c_str, to_c_string};
use crate::sys;

/// What a scheduler is made of: an optional LR schedule and policies in
/// priority order, each with its options. The config owns its options;
/// they are read when the scheduler is created and may be dropped after.
#[derive(Default)]
pub struct SchedulerConfig {
    schedule: Option<(CString, Option<Options>)>,
    policies: Vec<(CString, Option<Options>)>,
    gpus_per_node: u32,
}

impl SchedulerConfig {
    /// A config with no schedule (lr 0), no policy and 1 GPU per node.
    pub fn new() -> SchedulerConfig {
        SchedulerConfig::default()
    }

    /// Sets the LR schedule strategy ("cosine", or "plugin/name").
    pub fn schedule(mut self, name: &str, options: Option<Options>) -> Result<SchedulerConfig> {
        self.schedule = Some((to_c_string("schedule name", name)?, options));
        Ok(self)
    }

    /// Appends a policy strategy (e.g. "checkpoint_cadence"); earlier
    /// policies win ties when decisions are merged.
    pub fn policy(mut self, name: &str, options: Option<Options>) -> Result<SchedulerConfig> {
        self.policies.push((to_c_string("policy name", name)?, options));
        Ok(self)
    }

    /// GPUs per node, for the ledger's GPU-hours (0 means 1).
    pub fn gpus_per_node(mut self, gpus: u32) -> SchedulerConfig {
        self.gpus_per_node = gpus;
        self
    }
}

/// One step's report (frugal/telemetry.h); `Default` is all zeros, which
/// the scheduler refuses until nodes, resource and price are set.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Telemetry {
    /// `sys::FRUGAL_TELEMETRY_*` bits.
    pub flags: u32,
    /// Nodes that ran over the interval (>= 1).
    pub nodes: u32,
    /// Optimizer steps completed; the decision's lr is for this step.
    pub step: i64,
    /// Tokens trained so far.
    pub tokens: i64,
    /// Training loss; finite.
    pub loss: f64,
    /// Validation loss when flags has `FRUGAL_TELEMETRY_EVAL_LOSS`.
    pub eval_loss: f64,
    /// The job clock in seconds; never goes back.
    pub wall_time_s: f64,
    /// Dollars per node-hour over the interval.
    pub price_per_node_hour: f64,
    /// `sys::FRUGAL_RESOURCE_SPOT` or `_RESERVED`.
    pub resource: i32,
    /// `sys::FRUGAL_CKPT_*` completed during the interval (`FRUGAL_CKPT_NONE`: none).
    pub checkpoint_done: i32,
    /// Seconds stalled for that checkpoint.
    pub checkpoint_stall_s: f64,
    /// Seconds until the nodes are reclaimed (0: no notice).
    pub preemption_notice_s: f64,
}

impl Telemetry {
    fn raw(&self) -> sys::frugal_telemetry {
        sys::frugal_telemetry {
            struct_size: size_of::<sys::frugal_telemetry>(),
            flags: self.flags,
            nodes: self.nodes,
            step: self.step,
            tokens: self.tokens,
            loss: self.loss,
            eval_loss: self.eval_loss,
            wall_time_s: self.wall_time_s,
            price_per_node_hour: self.price_per_node_hour,
            resource: self.resource,
            checkpoint_done: self.checkpoint_done,
            checkpoint_stall_s: self.checkpoint_stall_s,
            preemption_notice_s: self.preemption_notice_s,
        }
    }
}

/// What to do next, with the reason copied out of the scheduler.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Learning rate for the reported step (0 without a schedule).
    pub lr: f64,
    /// `sys::FRUGAL_CKPT_*` to take now (`FRUGAL_CKPT_NONE`: none); see
    /// [`crate::CkptKind::from_raw`].
    pub checkpoint: i32,
    /// `sys::FRUGAL_RESOURCE_*` to run on from now.
    pub resource: i32,
    /// Nodes to run with from now.
    pub target_nodes: u32,
    /// `sys::FRUGAL_STOP_*`; NONE keeps training.
    pub stop: i32,
    /// Job-clock time the next telemetry is wanted by; 0 when nothing is due.
    pub next_due_s: f64,
    /// "policy: why" clauses separated by "; ", or "".
    pub reason: String,
}

/// Where the money and the time went (frugal/scheduler.h
/// `frugal_cost_ledger`; the same fields, the same meaning).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostLedger {
    pub dollars: f64,
    pub spot_dollars: f64,
    pub reserved_dollars: f64,
    pub productive_dollars: f64,
    pub stall_dollars: f64,
    pub lost_dollars: f64,
    pub gpu_hours: f64,
    pub wall_s: f64,
    pub productive_s: f64,
    pub stall_s: f64,
    pub lost_s: f64,
    pub restarts: i64,
    pub checkpoints_full: i64,
    pub checkpoints_heartbeat: i64,
    pub loss_first: f64,
    pub loss_best: f64,
    pub dollars_per_loss: f64,
}

/// A run scheduler. Dropping it calls `frugal_scheduler_destroy`; it does
/// not reference its context.
///
/// `Send` but not `Sync`: one thread at a time (the core does not lock);
/// every call that changes it takes `&mut self`.
pub struct Scheduler {
    raw: NonNull<sys::frugal_scheduler>,
}

// SAFETY: scheduler.h allows use from one thread at a time, any thread.
unsafe impl Send for Scheduler {}

impl Scheduler {
    /// Creates the schedule and policy instances of `config`. A name that
    /// is not found is `ErrorCode::NotFound`.
    pub fn new(context: &Context, config: &SchedulerConfig) -> Result<Scheduler> {
        Scheduler::create(context, config, ptr::null_mut())
    }

    /// Creates the job's scheduler across `comm`'s ranks (ABI 2.4,
    /// `frugal_scheduler_config.comm`): collective, every rank with the
    /// same schedule, policies and options. Each [`Scheduler::step`] is
    /// then one collective, and every rank gets the same decision, reason
    /// and ledger. The scheduler keeps a sub-group of its own, so `comm`
    /// may be dropped afterwards. The comm must take host memory ("local",
    /// "mpi"); a "nccl" comm is `ErrorCode::InvalidArgument`.
    pub fn with_comm(context: &Context, config: &SchedulerConfig, comm: &Comm) -> Result<Scheduler> {
        Scheduler::create(context, config, comm.as_ptr())
    }

    fn create(context: &Context, config: &SchedulerConfig, comm: *mut sys::frugal_comm) -> Result<Scheduler> {
        let names: Vec<*const c_char> = config.policies.iter().map(|(n, _)| n.as_ptr()).collect();
        let options: Vec<*const sys::frugal_options> =
            config.policies.iter().map(|(_, o)| o.as_ref().map_or(ptr::null(), |o| o.as_ptr())).collect();
        let c_config = sys::frugal_scheduler_config {
            struct_size: size_of::<sys::frugal_scheduler_config>(),
            schedule: config.schedule.as_ref().map_or(ptr::null(), |(n, _)| n.as_ptr()),
            schedule_options: config
                .schedule
                .as_ref()
                .and_then(|(_, o)| o.as_ref())
                .map_or(ptr::null(), |o| o.as_ptr()),
            policies: if names.is_empty() { ptr::null() } else { names.as_ptr() },
            policy_options: if options.is_empty() { ptr::null() } else { options.as_ptr() },
            policy_count: names.len(),
            gpus_per_node: config.gpus_per_node,
            reserved0: 0,
            comm,
        };
        let mut raw = ptr::null_mut();
        // SAFETY: live context; the config and everything it points to
        // (owned by `config`, `names`, `options`; the comm lent by the
        // caller or NULL) outlive the call.
        check(unsafe { sys::frugal_scheduler_create(context.as_ptr(), &c_config, &mut raw) })?;
        Ok(Scheduler { raw: NonNull::new(raw).expect("frugal_scheduler_create succeeded with NULL") })
    }

    /// Books one telemetry record and decides. A malformed record is
    /// `ErrorCode::InvalidArgument` naming the field, and changes nothing.
    pub fn step(&mut self, telemetry: &Telemetry) -> Result<Decision> {
        let telemetry = telemetry.raw();
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut d: sys::frugal_decision = unsafe { std::mem::zeroed() };
        d.struct_size = size_of::<sys::frugal_decision>();
        // SAFETY: live scheduler, exclusively borrowed; caller-owned structs.
        check(unsafe { sys::frugal_scheduler_step(self.raw.as_ptr(), &telemetry, &mut d) })?;
        Ok(Decision {
            lr: d.lr,
            checkpoint: d.checkpoint,
            resource: d.resource,
            target_nodes: d.target_nodes,
            stop: d.stop,
            next_due_s: d.next_due_s,
            // SAFETY: owned by the scheduler until its next call; copied now.
            reason: unsafe { copy_c_str(d.reason) },
        })
    }

    /// A copy of the ledger.
    pub fn ledger(&self) -> Result<CostLedger> {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut l: sys::frugal_cost_ledger = unsafe { std::mem::zeroed() };
        l.struct_size = size_of::<sys::frugal_cost_ledger>();
        // SAFETY: live scheduler; caller-allocated out struct.
        check(unsafe { sys::frugal_scheduler_ledger(self.raw.as_ptr(), &mut l) })?;
        Ok(CostLedger {
            dollars: l.dollars,
            spot_dollars: l.spot_dollars,
            reserved_dollars: l.reserved_dollars,
            productive_dollars: l.productive_dollars,
            stall_dollars: l.stall_dollars,
            lost_dollars: l.lost_dollars,
            gpu_hours: l.gpu_hours,
            wall_s: l.wall_s,
            productive_s: l.productive_s,
            stall_s: l.stall_s,
            lost_s: l.lost_s,
            restarts: l.restarts,
            checkpoints_full: l.checkpoints_full,
            checkpoints_heartbeat: l.checkpoints_heartbeat,
            loss_first: l.loss_first,
            loss_best: l.loss_best,
            dollars_per_loss: l.dollars_per_loss,
        })
    }

    /// Serialises the scheduler. The export counts as a checkpoint for the
    /// ledger (work before it is kept), hence `&mut self`.
    pub fn export_state(&mut self) -> Result<Vec<u8>> {
        let raw = self.raw.as_ptr();
        // SAFETY: live scheduler, exclusively borrowed; valid buffer and size.
        export_blob(|buffer, capacity, size| unsafe { sys::frugal_scheduler_export_state(raw, buffer, capacity, size) })
    }

    /// Restores a blob exported by a scheduler with the same configuration;
    /// a bad blob is an error and leaves the scheduler as it was.
    pub fn import_state(&mut self, state: &[u8]) -> Result<()> {
        // SAFETY: live scheduler, exclusively borrowed; `state` read during the call.
        check(unsafe { sys::frugal_scheduler_import_state(self.raw.as_ptr(), state.as_ptr() as *const c_void, state.len()) })
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *mut sys::frugal_scheduler {
        self.raw.as_ptr()
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        // SAFETY: we own the scheduler.
        unsafe { sys::frugal_scheduler_destroy(self.raw.as_ptr()) }
    }
}
