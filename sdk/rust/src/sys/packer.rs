//! frugal/packer.h: sequence packers, pack plans and streams.
//!
//! A plan is immutable: any number of threads may read one. Pack calls may
//! run concurrently on one packer only when its strategy has
//! FRUGAL_STRATEGY_THREAD_SAFE. A stream is not thread-safe.

use std::os::raw::c_char;

use super::types::{frugal_context, frugal_error, frugal_options};

/// Opaque packer; owned by its creator, independent of the context.
#[repr(C)]
pub struct frugal_packer {
    _opaque: [u8; 0],
}

/// Opaque immutable packing result; outlives its packer.
#[repr(C)]
pub struct frugal_pack_plan {
    _opaque: [u8; 0],
}

/// Opaque streaming packer.
#[repr(C)]
pub struct frugal_pack_stream {
    _opaque: [u8; 0],
}

/// Statistics of a plan; caller sets struct_size. `method` is owned by the
/// plan and valid while it lives.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_pack_stats {
    pub struct_size: usize,
    pub packs: i64,
    pub units: i64,
    pub sequences: i64,
    pub real_tokens: i64,
    pub max_len: i64,
    pub lower_bound: i64,
    pub lower_bound_tight: i64,
    pub efficiency: f64,
    pub padding_before: f64,
    pub padding_after: f64,
    pub speedup: f64,
    pub truncated_sequences: i64,
    pub truncated_tokens: i64,
    pub split_sequences: i64,
    pub method: *const c_char,
}

/// The whole assignment as flat arrays, every pointer owned by the plan and
/// valid until it is destroyed (non-NULL whenever its count is > 0).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_pack_plan_view {
    pub struct_size: usize,
    pub pack_count: usize,
    pub unit_count: usize,
    pub pack_offsets: *const i64,
    pub sequence_ids: *const i64,
    pub token_offsets: *const i64,
    pub unit_lengths: *const i64,
    pub pack_tokens: *const i64,
}

/// Arguments of `frugal_pack_plan_gather`; caller-owned, read during the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_pack_gather_args {
    pub struct_size: usize,
    pub tokens: *const i64,
    pub sequence_offsets: *const i64,
    pub sequence_count: usize,
    pub labels: *const i64,
    pub out_tokens: *mut i64,
    pub out_labels: *mut i64,
    pub out_length: usize,
    pub pad_token: i64,
    pub ignore_index: i64,
    pub mask_first_label: i32,
}

extern "C" {
    /// `options` not NULL (max_len required), read during the call only.
    pub fn frugal_packer_create(
        context: *mut frugal_context,
        name: *const c_char,
        options: *const frugal_options,
        out: *mut *mut frugal_packer,
    ) -> *mut frugal_error;
    /// `lengths` has `count` entries, read during the call; `*out` owned by the caller.
    pub fn frugal_packer_pack(
        packer: *mut frugal_packer,
        lengths: *const i64,
        count: usize,
        out: *mut *mut frugal_pack_plan,
    ) -> *mut frugal_error;
    pub fn frugal_packer_pack_histogram(
        packer: *mut frugal_packer,
        lengths: *const i64,
        counts: *const i64,
        bins: usize,
        out: *mut *mut frugal_pack_plan,
    ) -> *mut frugal_error;
    /// NULL allowed; plans made from it stay valid.
    pub fn frugal_packer_destroy(packer: *mut frugal_packer);

    pub fn frugal_pack_plan_stats(plan: *const frugal_pack_plan, stats: *mut frugal_pack_stats) -> *mut frugal_error;
    pub fn frugal_pack_plan_view_get(
        plan: *const frugal_pack_plan,
        view: *mut frugal_pack_plan_view,
    ) -> *mut frugal_error;
    /// `written` and `max_seqlen` may be NULL.
    pub fn frugal_pack_plan_varlen(
        plan: *const frugal_pack_plan,
        pack: usize,
        cu_seqlens: *mut i32,
        capacity: usize,
        written: *mut usize,
        max_seqlen: *mut i32,
    ) -> *mut frugal_error;
    pub fn frugal_pack_plan_position_ids(
        plan: *const frugal_pack_plan,
        pack: usize,
        out: *mut i64,
        length: usize,
    ) -> *mut frugal_error;
    pub fn frugal_pack_plan_segment_ids(
        plan: *const frugal_pack_plan,
        pack: usize,
        out: *mut i32,
        length: usize,
    ) -> *mut frugal_error;
    pub fn frugal_pack_plan_mask(plan: *const frugal_pack_plan, pack: usize, out: *mut u8, side: usize)
        -> *mut frugal_error;
    pub fn frugal_pack_plan_gather(
        plan: *const frugal_pack_plan,
        pack: usize,
        args: *const frugal_pack_gather_args,
    ) -> *mut frugal_error;
    /// NULL allowed.
    pub fn frugal_pack_plan_destroy(plan: *mut frugal_pack_plan);

    /// `options` may be NULL.
    pub fn frugal_pack_stream_create(
        packer: *mut frugal_packer,
        options: *const frugal_options,
        out: *mut *mut frugal_pack_stream,
    ) -> *mut frugal_error;
    pub fn frugal_pack_stream_push(stream: *mut frugal_pack_stream, sequence_id: i64, length: i64)
        -> *mut frugal_error;
    pub fn frugal_pack_stream_flush(stream: *mut frugal_pack_stream) -> *mut frugal_error;
    pub fn frugal_pack_stream_pop(stream: *mut frugal_pack_stream, out: *mut *mut frugal_pack_plan)
        -> *mut frugal_error;
    /// `held` and `ready` may be NULL.
    pub fn frugal_pack_stream_pending(
        stream: *const frugal_pack_stream,
        held: *mut usize,
        ready: *mut usize,
    ) -> *mut frugal_error;
    /// NULL allowed; held units are discarded.
    pub fn frugal_pack_stream_destroy(stream: *mut frugal_pack_stream);
}
