//! frugal/telemetry.h and frugal/scheduler.h: per-step telemetry, decisions,
//! the run scheduler and its cost ledger.
//!
//! One scheduler is used by one thread at a time (the core does not lock).

use std::os::raw::{c_char, c_void};

use super::types::{frugal_comm, frugal_context, frugal_error, frugal_options};

// Checkpoints in telemetry and decisions are frugal_ckpt_kind_values
// (FRUGAL_CKPT_NONE, _HEARTBEAT, _FULL in sys/checkpoint.rs).

/// frugal_resource_class_values.
pub const FRUGAL_RESOURCE_UNSPECIFIED: i32 = 0;
pub const FRUGAL_RESOURCE_SPOT: i32 = 1;
pub const FRUGAL_RESOURCE_RESERVED: i32 = 2;

/// frugal_stop_reason_values.
pub const FRUGAL_STOP_NONE: i32 = 0;
pub const FRUGAL_STOP_PLATEAU: i32 = 1;
pub const FRUGAL_STOP_TARGET: i32 = 2;
pub const FRUGAL_STOP_BUDGET: i32 = 3;
pub const FRUGAL_STOP_POLICY: i32 = 4;

/// frugal_telemetry.flags bits.
pub const FRUGAL_TELEMETRY_EVAL_LOSS: u32 = 1;
pub const FRUGAL_TELEMETRY_RESTARTED: u32 = 2;

/// One step's report; caller-owned, read during the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_telemetry {
    pub struct_size: usize,
    pub flags: u32,
    pub nodes: u32,
    pub step: i64,
    pub tokens: i64,
    pub loss: f64,
    pub eval_loss: f64,
    pub wall_time_s: f64,
    pub price_per_node_hour: f64,
    pub resource: i32,
    pub checkpoint_done: i32,
    pub checkpoint_stall_s: f64,
    pub preemption_notice_s: f64,
}

/// What to do next. `reason` is owned by the scheduler and valid until its
/// next call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_decision {
    pub struct_size: usize,
    pub lr: f64,
    pub checkpoint: i32,
    pub resource: i32,
    pub target_nodes: u32,
    pub stop: i32,
    pub next_due_s: f64,
    pub reason: *const c_char,
}

/// What a scheduler is made of; read during `frugal_scheduler_create` only.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_scheduler_config {
    pub struct_size: usize,
    pub schedule: *const c_char,
    pub schedule_options: *const frugal_options,
    pub policies: *const *const c_char,
    pub policy_options: *const *const frugal_options,
    pub policy_count: usize,
    pub gpus_per_node: u32,
    pub reserved0: u32,
    /// ABI 2.4: the job's ranks, or NULL for one process. With a comm,
    /// create and every step are collective over it; the scheduler keeps a
    /// sub-group of its own, not this handle.
    pub comm: *mut frugal_comm,
}

/// Where the money and the time went; caller-owned copy.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_cost_ledger {
    pub struct_size: usize,
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

/// Opaque run scheduler; owned by its creator.
#[repr(C)]
pub struct frugal_scheduler {
    _opaque: [u8; 0],
}

extern "C" {
    pub fn frugal_scheduler_create(
        context: *mut frugal_context,
        config: *const frugal_scheduler_config,
        out: *mut *mut frugal_scheduler,
    ) -> *mut frugal_error;
    pub fn frugal_scheduler_step(
        scheduler: *mut frugal_scheduler,
        telemetry: *const frugal_telemetry,
        decision: *mut frugal_decision,
    ) -> *mut frugal_error;
    pub fn frugal_scheduler_ledger(scheduler: *const frugal_scheduler, out: *mut frugal_cost_ledger)
        -> *mut frugal_error;
    /// `buffer` NULL queries the size.
    pub fn frugal_scheduler_export_state(
        scheduler: *mut frugal_scheduler,
        buffer: *mut c_void,
        capacity: usize,
        size: *mut usize,
    ) -> *mut frugal_error;
    pub fn frugal_scheduler_import_state(
        scheduler: *mut frugal_scheduler,
        data: *const c_void,
        size: usize,
    ) -> *mut frugal_error;
    /// NULL allowed.
    pub fn frugal_scheduler_destroy(scheduler: *mut frugal_scheduler);
}
