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
/// Bytes of frugal_route_layout in ABI 2.3 (through `reserved`).
pub const FRUGAL_ROUTE_LAYOUT_V2_3_SIZE: usize = 40;
/// Bytes of frugal_route_plan in ABI 2.3 (through `losses`).
pub const FRUGAL_ROUTE_PLAN_V2_3_SIZE: usize = 104;

/// FRUGAL_ROUTE_EP_EXPERTS: the experts rank `r` of `w` owns out of `e`
/// (expert parallelism, ABI 2.4): e / w each, the first e % w ranks one more.
pub const fn frugal_route_ep_experts(e: i32, w: i32, r: i32) -> i32 {
    e / w + if r < e % w { 1 } else { 0 }
}

/// FRUGAL_ROUTE_EP_FIRST: the first expert rank `r` of `w` owns out of `e`.
pub const fn frugal_route_ep_first(e: i32, w: i32, r: i32) -> i32 {
    r * (e / w) + if r < e % w { r } else { e % w }
}

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
    /// ABI 2.4: this rank in the expert-parallel group; 0 without one.
    pub ep_rank: i32,
    /// ABI 2.4: ranks of the expert-parallel group (option `ep_comm`); 0 without one.
    pub ep_ranks: i32,
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
    /// ABI 2.4: `[W]` INT64 host, the tokens each rank routed; required
    /// (with `ep_rows`) for a router with `ep_ranks > 0`, else NULL.
    pub ep_tokens: *const frugal_tensor,
    /// ABI 2.4: [W, E] INT64 host, the rows each rank kept per expert.
    pub ep_rows: *const frugal_tensor,
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

/// What a rank holds and receives for one routed plan (ABI 2.4); caller
/// sets struct_size.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_route_ep_shape {
    pub struct_size: usize,
    pub rank: i32,
    pub ranks: i32,
    pub first_expert: i32,
    pub local_experts: i32,
    pub group_tokens: i64,
    pub token_offset: i64,
    pub sent_rows: i64,
    pub received_rows: i64,
}

/// One expert-parallel dispatch (ABI 2.4); caller-owned, read during the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_route_dispatch_args {
    pub struct_size: usize,
    pub plan: *const frugal_route_plan,
    pub input: *const frugal_tensor,
    pub output: *const frugal_tensor,
    /// NULL or [local_experts + 1] INT64 host (written).
    pub expert_offsets: *const frugal_tensor,
    /// NULL or `[received_rows]` INT64 host (written).
    pub row_token: *const frugal_tensor,
    pub stream: *mut c_void,
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
    /// ABI 2.4: the sizes of one expert-parallel exchange; local. A router
    /// without `ep_comm` is FAILED_PRECONDITION.
    pub fn frugal_router_ep_shape(
        router: *const frugal_router,
        plan: *const frugal_route_plan,
        out: *mut frugal_route_ep_shape,
    ) -> *mut frugal_error;
    /// ABI 2.4: collective over the router's `ep_comm`.
    pub fn frugal_router_ep_dispatch(router: *mut frugal_router, args: *const frugal_route_dispatch_args)
        -> *mut frugal_error;
    /// ABI 2.4: collective over the router's `ep_comm`; input [received_rows, H], output [T, H].
    pub fn frugal_router_ep_combine(router: *mut frugal_router, args: *const frugal_route_move_args)
        -> *mut frugal_error;
    /// NULL allowed.
    pub fn frugal_router_destroy(router: *mut frugal_router);
}
