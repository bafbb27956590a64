//! frugal/router.h and the argument structs of frugal/router_vtable.h:
//! mixture-of-experts routers, their dispatch plans and statistics.
//!
//! Calls on one router may run concurrently only when its strategy has
//! FRUGAL_STRATEGY_THREAD_SAFE; destroy must not race other calls.

use std::os::raw::{c_char, c_void};

use super::tensor::frugal_tensor;
use super::types::{frugal_context, frugal_error, frugal_options};

/// frugal_router_choice_values.
pub const FRUGAL_ROUTER_TOKEN_CHOICE: i32 = 0;
pub const FRUGAL_ROUTER_EXPERT_CHOICE: i32 = 1;
/// frugal_router_drop_values.
pub const FRUGAL_ROUTER_DROPLESS: i32 = 0;
pub const FRUGAL_ROUTER_DROP_BY_PROBABILITY: i32 = 1;
pub const FRUGAL_ROUTER_DROP_BY_POSITION: i32 = 2;
/// frugal_route_layout.flags: a selection bias moved by update.
pub const FRUGAL_ROUTE_LAYOUT_BIAS: u32 = 1 << 0;

/// What a router produces; caller sets struct_size, the core fills up to it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_route_layout {
    pub struct_size: usize,
    pub choice: i32,
    pub experts: i32,
    pub top_k: i32,
    pub drop_policy: i32,
    pub capacity_factor: f64,
    pub flags: u32,
    pub reserved: u32,
}

/// The tensors a route call writes; host-allocated with the plan shape.
/// Every pointer is caller-owned and read during the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_route_plan {
    pub struct_size: usize,
    pub expert_ids: *const frugal_tensor,
    pub weights: *const frugal_tensor,
    pub dropped: *const frugal_tensor,
    pub slot_row: *const frugal_tensor,
    pub expert_offsets: *const frugal_tensor,
    pub expert_demand: *const frugal_tensor,
    pub row_token: *const frugal_tensor,
    pub row_weight: *const frugal_tensor,
    pub token_offsets: *const frugal_tensor,
    pub token_rows: *const frugal_tensor,
    pub mean_prob: *const frugal_tensor,
    pub losses: *const frugal_tensor,
}

/// One route call; caller-owned, read during the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_route_args {
    pub struct_size: usize,
    pub logits: *const frugal_tensor,
    pub plan: *const frugal_route_plan,
    pub stream: *mut c_void,
}

/// One permute or combine call; caller-owned, read during the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_route_move_args {
    pub struct_size: usize,
    pub plan: *const frugal_route_plan,
    pub input: *const frugal_tensor,
    pub output: *const frugal_tensor,
    pub stream: *mut c_void,
}

/// The sizes of a plan for T tokens; caller sets struct_size.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_route_shape {
    pub struct_size: usize,
    pub tokens: i64,
    pub capacity: i64,
    pub max_rows: i64,
}

/// A plan's load statistics; caller sets struct_size.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_route_stats {
    pub struct_size: usize,
    pub tokens: i64,
    pub assignments: i64,
    pub kept: i64,
    pub dropped: i64,
    pub max_load: i64,
    pub max_over_mean: f64,
    pub dropped_fraction: f64,
    pub aux_loss: f32,
    pub z_loss: f32,
}

/// Opaque router; owned by its creator, independent of the context.
#[repr(C)]
pub struct frugal_router {
    _opaque: [u8; 0],
}

extern "C" {
    /// `options` may be NULL, read during the call; `*out` owned by the caller.
    pub fn frugal_router_create(
        context: *mut frugal_context,
        name: *const c_char,
        options: *const frugal_options,
        out: *mut *mut frugal_router,
    ) -> *mut frugal_error;
    pub fn frugal_router_layout(router: *const frugal_router, out: *mut frugal_route_layout)
        -> *mut frugal_error;
    pub fn frugal_router_plan_shape(router: *const frugal_router, tokens: i64, out: *mut frugal_route_shape)
        -> *mut frugal_error;
    pub fn frugal_router_route(router: *mut frugal_router, args: *const frugal_route_args) -> *mut frugal_error;
    pub fn frugal_router_permute(router: *mut frugal_router, args: *const frugal_route_move_args)
        -> *mut frugal_error;
    pub fn frugal_router_combine(router: *mut frugal_router, args: *const frugal_route_move_args)
        -> *mut frugal_error;
    /// `expert_load`: [E] INT64 host memory.
    pub fn frugal_router_update(router: *mut frugal_router, expert_load: *const frugal_tensor) -> *mut frugal_error;
    pub fn frugal_router_stats(
        router: *const frugal_router,
        plan: *const frugal_route_plan,
        out: *mut frugal_route_stats,
    ) -> *mut frugal_error;
    /// `buffer` NULL (capacity 0) queries the size; too small is OUT_OF_RANGE with `*size` set.
    pub fn frugal_router_export_state(
        router: *mut frugal_router,
        buffer: *mut c_void,
        capacity: usize,
        size: *mut usize,
    ) -> *mut frugal_error;
    pub fn frugal_router_import_state(router: *mut frugal_router, data: *const c_void, size: usize)
        -> *mut frugal_error;
    /// NULL allowed.
    pub fn frugal_router_destroy(router: *mut frugal_router);
}
