//! frugal/comm.h and the constants of frugal/comm_vtable.h a host uses:
//! communicators and their collectives (ABI 2.1).
//!
//! One thread at a time per comm (calls are serialised inside; the order of
//! collectives across ranks is the caller's to keep); different comms may be
//! used from different threads. Every rank of a group makes the same calls
//! in the same order with matching dtypes and counts. Tensors are compact,
//! of one dtype, on the comm's device (`frugal_comm_device_type`).

use std::os::raw::{c_char, c_void};

use super::tensor::frugal_tensor;
use super::types::{frugal_comm, frugal_context, frugal_error, frugal_options};

/// frugal_reduce_op_values.
pub const FRUGAL_REDUCE_SUM: i32 = 1;
pub const FRUGAL_REDUCE_MAX: i32 = 2;
pub const FRUGAL_REDUCE_MIN: i32 = 3;

/// The split color of a rank that joins no sub-group (as MPI_UNDEFINED).
pub const FRUGAL_COMM_COLOR_NONE: i32 = -1;

/// Default deadline of one collective, in milliseconds.
pub const FRUGAL_COMM_DEFAULT_TIMEOUT_MS: i64 = 300000;

extern "C" {
    /// Collective over the group the backend joins. `options` read during
    /// the call; `*out` owned by the caller, released with
    /// `frugal_comm_destroy`. Backend errors start with "comm 'name': ".
    pub fn frugal_comm_create(
        context: *mut frugal_context,
        name: *const c_char,
        options: *const frugal_options,
        out: *mut *mut frugal_comm,
    ) -> *mut frugal_error;
    /// Local, never waits on peers; objects holding the comm as an option
    /// keep it alive. NULL allowed.
    pub fn frugal_comm_destroy(comm: *mut frugal_comm);
    /// In [0, size). `comm` not NULL.
    pub fn frugal_comm_rank(comm: *const frugal_comm) -> i32;
    /// >= 1. `comm` not NULL.
    pub fn frugal_comm_size(comm: *const frugal_comm) -> i32;
    /// frugal_device_type_values of the memory the collectives take. `comm` not NULL.
    pub fn frugal_comm_device_type(comm: *const frugal_comm) -> i32;
    /// Collective. `*out` owned by the caller, or NULL for `FRUGAL_COMM_COLOR_NONE`.
    pub fn frugal_comm_split(
        comm: *mut frugal_comm,
        color: i32,
        key: i32,
        out: *mut *mut frugal_comm,
    ) -> *mut frugal_error;
    /// `timeout_ms` > 0. Local; sub-groups start with their parent's.
    pub fn frugal_comm_set_timeout(comm: *mut frugal_comm, timeout_ms: i64) -> *mut frugal_error;
    /// A cudaStream_t for device backends (NULL: the backend's own); it must
    /// outlive the calls made on it. Host backends ignore it.
    pub fn frugal_comm_set_stream(comm: *mut frugal_comm, stream: *mut c_void) -> *mut frugal_error;

    /// `recv` may be `send` (in place); otherwise they must not overlap.
    pub fn frugal_comm_all_reduce(
        comm: *mut frugal_comm,
        send: *const frugal_tensor,
        recv: *const frugal_tensor,
        reduce_op: i32,
    ) -> *mut frugal_error;
    pub fn frugal_comm_broadcast(comm: *mut frugal_comm, buffer: *const frugal_tensor, root: i32) -> *mut frugal_error;
    pub fn frugal_comm_all_gather(
        comm: *mut frugal_comm,
        send: *const frugal_tensor,
        recv: *const frugal_tensor,
    ) -> *mut frugal_error;
    /// `recv_counts`: size entries; `recv_displs`: size entries or NULL (packed).
    pub fn frugal_comm_all_gather_v(
        comm: *mut frugal_comm,
        send: *const frugal_tensor,
        recv: *const frugal_tensor,
        recv_counts: *const usize,
        recv_displs: *const usize,
    ) -> *mut frugal_error;
    pub fn frugal_comm_reduce_scatter(
        comm: *mut frugal_comm,
        send: *const frugal_tensor,
        recv: *const frugal_tensor,
        reduce_op: i32,
    ) -> *mut frugal_error;
    pub fn frugal_comm_all_to_all(
        comm: *mut frugal_comm,
        send: *const frugal_tensor,
        recv: *const frugal_tensor,
    ) -> *mut frugal_error;
    /// `*_counts`: size entries each, not NULL; `*_displs`: size entries or NULL (packed).
    pub fn frugal_comm_all_to_all_v(
        comm: *mut frugal_comm,
        send: *const frugal_tensor,
        send_counts: *const usize,
        send_displs: *const usize,
        recv: *const frugal_tensor,
        recv_counts: *const usize,
        recv_displs: *const usize,
    ) -> *mut frugal_error;
    pub fn frugal_comm_barrier(comm: *mut frugal_comm) -> *mut frugal_error;
}
