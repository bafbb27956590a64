//! `Comm`: this process's end of a group of ranks (frugal/comm.h, ABI 2.1)
//! and its collectives over the crate's tensor views.
//!
//! Backends: "local" (comm_local, a group of one: every collective is a
//! copy, so a host codes one path), "mpi" (comm_mpi, host memory, ranks
//! started by `mpirun`) and "nccl" (comm_nccl, device memory). frugal starts
//! no processes: the launcher does, and the backend bootstraps the group.

use std::ptr::{self, NonNull};

use crate::context::Context;
use crate::error::{check, Error, ErrorCode, Result};
use crate::options::Options;
use crate::strings::to_c_string;
use crate::sys;
use crate::tensor::{TensorMut, TensorRef};

/// An element-wise reduction (frugal/comm_vtable.h `frugal_reduce_op_values`).
///
/// Sum, max and min take `F32`, `F64`, `F16`, `BF16`, `I32` and `I64`; max
/// and min also `U8`. Any other pairing is `ErrorCode::Unsupported`, naming
/// the operation, the reduction and the dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Floating point in the backend's order; integers wrap (two's complement).
    Sum,
    /// A NaN input gives an unspecified result.
    Max,
    /// A NaN input gives an unspecified result.
    Min,
}

impl ReduceOp {
    /// The C value (`sys::FRUGAL_REDUCE_*`).
    pub fn raw(self) -> i32 {
        match self {
            ReduceOp::Sum => sys::FRUGAL_REDUCE_SUM,
            ReduceOp::Max => sys::FRUGAL_REDUCE_MAX,
            ReduceOp::Min => sys::FRUGAL_REDUCE_MIN,
        }
    }
}

/// A communicator: this process's end of a group of `size()` ranks, made
/// by [`Comm::new`] (collective over the group) or [`Comm::split`].
/// Dropping it calls `frugal_comm_destroy`, which is local and never waits
/// on peers. It keeps its plugin loaded, so it may outlive its context;
/// [`Options::set_comm`] and the strategies created with those options
/// hold their own reference, which outlives this handle.
///
/// Collective rules (frugal/comm.h): every rank makes the same calls in
/// the same order, with matching dtypes and counts. Each rank's buffers
/// are checked against its own counts before a backend sees them, but a
/// call that differs between ranks gives undefined results unless the
/// backend checks it (comm_mpi's `check_calls` option does). The views
/// must live where the comm's collectives take memory
/// ([`device_type`](Comm::device_type)); the crate's views are host
/// memory, which the "local" and "mpi" backends take.
///
/// A call never hangs: once its deadline passes ([`set_timeout`](Comm::set_timeout),
/// default [`Comm::DEFAULT_TIMEOUT_MS`]) it fails with
/// `ErrorCode::DeadlineExceeded`, or `ErrorCode::Io` when the transport
/// reports a dead peer, naming the operation and the rank. The comm is
/// then broken: every later call fails with `ErrorCode::FailedPrecondition`
/// quoting the first failure; drop it.
///
/// `Send` but not `Sync`: comm.h allows one thread at a time per comm
/// (calls are serialised inside, but two threads would race for the
/// collective order every rank must keep); different comms may be used
/// from different threads. Not `Clone`: the handle is owned once.
///
/// ```compile_fail
/// fn shared<T: Sync>() {}
/// shared::<frugal::Comm>(); // one thread at a time per comm
/// ```
/// ```compile_fail
/// fn copied<T: Clone>() {}
/// copied::<frugal::Comm>(); // two owners would destroy it twice
/// ```
///
/// Device backends enqueue on a CUDA stream (`frugal_comm_set_stream`);
/// the safe layer has no device views and no stream type, so that is a
/// raw-layer call on [`as_ptr`](Comm::as_ptr).
pub struct Comm {
    raw: NonNull<sys::frugal_comm>,
}

// SAFETY: comm.h lets a comm be used from any thread, one at a time; the
// missing `Sync` keeps it to one.
unsafe impl Send for Comm {}

impl Comm {
    /// The [`split`](Comm::split) color of a rank that joins no sub-group.
    pub const COLOR_NONE: i32 = sys::FRUGAL_COMM_COLOR_NONE;
    /// The deadline of each call until [`set_timeout`](Comm::set_timeout), in milliseconds.
    pub const DEFAULT_TIMEOUT_MS: i64 = sys::FRUGAL_COMM_DEFAULT_TIMEOUT_MS;

    /// Joins the group of backend `name` ("local", "mpi", "nccl" or
    /// "plugin/name"): collective over the ranks the backend joins (for
    /// "mpi", `MPI_COMM_WORLD` unless option `fortran_handle` names
    /// another). `options` are read during the call. An unknown name is
    /// `ErrorCode::NotFound`; backend errors start with "comm 'name': ".
    pub fn new(context: &Context, name: &str, options: Option<&Options>) -> Result<Comm> {
        let name = to_c_string("comm name", name)?;
        let options = options.map_or(ptr::null(), |o| o.as_ptr());
        let mut raw = ptr::null_mut();
        // SAFETY: live context; name and options outlive the call.
        check(unsafe { sys::frugal_comm_create(context.as_ptr(), name.as_ptr(), options, &mut raw) })?;
        Ok(Comm { raw: NonNull::new(raw).expect("frugal_comm_create succeeded with NULL") })
    }

    /// This process's rank in the group, in `[0, size())`.
    pub fn rank(&self) -> i32 {
        // SAFETY: live comm.
        unsafe { sys::frugal_comm_rank(self.raw.as_ptr()) }
    }

    /// The number of ranks in the group, >= 1.
    pub fn size(&self) -> i32 {
        // SAFETY: live comm.
        unsafe { sys::frugal_comm_size(self.raw.as_ptr()) }
    }

    /// Where the collectives' buffers live: `sys::FRUGAL_DEVICE_CPU` for host
    /// backends (which also take pinned host memory), `sys::FRUGAL_DEVICE_CUDA`
    /// for device backends.
    pub fn device_type(&self) -> i32 {
        // SAFETY: live comm.
        unsafe { sys::frugal_comm_device_type(self.raw.as_ptr()) }
    }

    /// Splits the group, as `MPI_Comm_split` (collective): ranks passing
    /// the same `color` (>= 0) form a sub-group, ranked by `key`, ties by
    /// their rank here. A rank passing [`Comm::COLOR_NONE`] joins none and
    /// gets `None`; another negative color is `ErrorCode::InvalidArgument`.
    /// The sub-group is a comm of its own (dropped independently of this
    /// one) and starts with this comm's deadline.
    pub fn split(&self, color: i32, key: i32) -> Result<Option<Comm>> {
        let mut raw = ptr::null_mut();
        // SAFETY: live comm; not Sync, so no other call on it meanwhile.
        check(unsafe { sys::frugal_comm_split(self.raw.as_ptr(), color, key, &mut raw) })?;
        Ok(NonNull::new(raw).map(|raw| Comm { raw }))
    }

    /// Sets the deadline of each later call on this comm, in milliseconds
    /// (> 0, else `ErrorCode::InvalidArgument`). Local: no peer is involved.
    pub fn set_timeout(&self, timeout_ms: i64) -> Result<()> {
        // SAFETY: live comm.
        check(unsafe { sys::frugal_comm_set_timeout(self.raw.as_ptr(), timeout_ms) })
    }

    /// `recv` = the element-wise reduction `op` over every rank's `send`;
    /// both of one dtype and element count (see [`ReduceOp`] for the
    /// dtypes). For in place, see [`all_reduce_in_place`](Comm::all_reduce_in_place).
    pub fn all_reduce(&self, send: &TensorRef<'_>, recv: &mut TensorMut<'_>, op: ReduceOp) -> Result<()> {
        let (send, recv) = (send.raw(), recv.raw());
        // SAFETY: live comm; the views (and the shapes they point into)
        // outlive the call, and `recv` is exclusively borrowed, so it
        // cannot overlap `send`.
        check(unsafe { sys::frugal_comm_all_reduce(self.raw.as_ptr(), &send, &recv, op.raw()) })
    }

    /// `buffer` = the element-wise reduction `op` over every rank's `buffer`.
    pub fn all_reduce_in_place(&self, buffer: &mut TensorMut<'_>, op: ReduceOp) -> Result<()> {
        let view = buffer.raw();
        // SAFETY: live comm; one view passed as send and recv is the
        // header's in-place form.
        check(unsafe { sys::frugal_comm_all_reduce(self.raw.as_ptr(), &view, &view, op.raw()) })
    }

    /// Every rank's `buffer` = rank `root`'s. Any dtype; the element count
    /// must agree on every rank. A root outside the group is
    /// `ErrorCode::OutOfRange`.
    pub fn broadcast(&self, buffer: &mut TensorMut<'_>, root: i32) -> Result<()> {
        let view = buffer.raw();
        // SAFETY: live comm; the view outlives the call and is exclusive.
        check(unsafe { sys::frugal_comm_broadcast(self.raw.as_ptr(), &view, root) })
    }

    /// `recv` (`size()` times `send`'s elements) = every rank's `send`,
    /// concatenated in rank order. Any dtype.
    pub fn all_gather(&self, send: &TensorRef<'_>, recv: &mut TensorMut<'_>) -> Result<()> {
        let (send, recv) = (send.raw(), recv.raw());
        // SAFETY: as in all_reduce.
        check(unsafe { sys::frugal_comm_all_gather(self.raw.as_ptr(), &send, &recv) })
    }

    /// All-gather of uneven parts: rank r's `send` (`recv_counts[r]`
    /// elements) lands at element `recv_displs[r]` of `recv`, or packed in
    /// rank order when `recv_displs` is `None`. Each slice has one entry
    /// per rank (checked here: the C side reads `size()` entries);
    /// `recv_counts[rank()]` equals `send`'s element count. Parts must lie
    /// inside `recv` (`ErrorCode::OutOfRange`) and not overlap; elements
    /// outside every part are left as they were.
    pub fn all_gather_v(
        &self,
        send: &TensorRef<'_>,
        recv: &mut TensorMut<'_>,
        recv_counts: &[usize],
        recv_displs: Option<&[usize]>,
    ) -> Result<()> {
        const OP: &str = "all_gather_v";
        let size = self.size();
        let counts = per_rank(OP, "recv_counts", recv_counts, size)?;
        let displs = per_rank_or_packed(OP, "recv_displs", recv_displs, size)?;
        let (send, recv) = (send.raw(), recv.raw());
        // SAFETY: as in all_reduce; the counts and displacements hold
        // `size()` entries each (or the displacements are NULL).
        check(unsafe { sys::frugal_comm_all_gather_v(self.raw.as_ptr(), &send, &recv, counts, displs) })
    }

    /// `recv` on rank r = the reduction `op` over every rank of block r of
    /// `send` (`size()` times `recv`'s elements). Dtypes as
    /// [`all_reduce`](Comm::all_reduce).
    pub fn reduce_scatter(&self, send: &TensorRef<'_>, recv: &mut TensorMut<'_>, op: ReduceOp) -> Result<()> {
        let (send, recv) = (send.raw(), recv.raw());
        // SAFETY: as in all_reduce.
        check(unsafe { sys::frugal_comm_reduce_scatter(self.raw.as_ptr(), &send, &recv, op.raw()) })
    }

    /// Equal blocks to every rank: block j of `send` goes to rank j, block i
    /// of `recv` comes from rank i. `send` and `recv` have the same element
    /// count, a multiple of `size()`. Any dtype.
    pub fn all_to_all(&self, send: &TensorRef<'_>, recv: &mut TensorMut<'_>) -> Result<()> {
        let (send, recv) = (send.raw(), recv.raw());
        // SAFETY: as in all_reduce.
        check(unsafe { sys::frugal_comm_all_to_all(self.raw.as_ptr(), &send, &recv) })
    }

    /// Uneven all-to-all (expert-parallel dispatch): `send_counts[j]`
    /// elements at `send_displs[j]` go to rank j; `recv_counts[i]` elements
    /// from rank i land at `recv_displs[i]`. Counts may be zero; what rank i
    /// sends to rank j must equal what rank j expects from rank i.
    /// Displacements `None` mean parts packed in rank order. Each slice has
    /// one entry per rank (checked here). Parts lie inside their tensor
    /// (`ErrorCode::OutOfRange`); received parts do not overlap; elements of
    /// `recv` outside every part are left as they were.
    pub fn all_to_all_v(
        &self,
        send: &TensorRef<'_>,
        send_counts: &[usize],
        send_displs: Option<&[usize]>,
        recv: &mut TensorMut<'_>,
        recv_counts: &[usize],
        recv_displs: Option<&[usize]>,
    ) -> Result<()> {
        const OP: &str = "all_to_all_v";
        let size = self.size();
        let s_counts = per_rank(OP, "send_counts", send_counts, size)?;
        let s_displs = per_rank_or_packed(OP, "send_displs", send_displs, size)?;
        let r_counts = per_rank(OP, "recv_counts", recv_counts, size)?;
        let r_displs = per_rank_or_packed(OP, "recv_displs", recv_displs, size)?;
        let (send, recv) = (send.raw(), recv.raw());
        // SAFETY: as in all_gather_v.
        check(unsafe {
            sys::frugal_comm_all_to_all_v(self.raw.as_ptr(), &send, s_counts, s_displs, &recv, r_counts, r_displs)
        })
    }

    /// Returns once every rank of the group has entered the barrier.
    pub fn barrier(&self) -> Result<()> {
        // SAFETY: live comm.
        check(unsafe { sys::frugal_comm_barrier(self.raw.as_ptr()) })
    }

    /// The raw handle, still owned by `self` (for `frugal_comm_set_stream`
    /// and other calls the safe layer lacks).
    pub fn as_ptr(&self) -> *mut sys::frugal_comm {
        self.raw.as_ptr()
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        // SAFETY: we own this handle; options and strategies hold their own.
        unsafe { sys::frugal_comm_destroy(self.raw.as_ptr()) }
    }
}

/// `values` as a pointer to the `size` entries the C side reads, whatever
/// the slice holds: a slice of another length is refused before the call,
/// where it would be read past its end or silently cut.
fn per_rank(op: &str, what: &str, values: &[usize], size: i32) -> Result<*const usize> {
    if values.len() as u64 != size as u64 {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            &format!(
                "{}: {} has {} entries; the group has {} ranks (one entry per rank)",
                op,
                what,
                values.len(),
                size
            ),
        ));
    }
    Ok(values.as_ptr())
}

/// As [`per_rank`], with `None` as NULL: parts packed in rank order.
fn per_rank_or_packed(op: &str, what: &str, values: Option<&[usize]>, size: i32) -> Result<*const usize> {
    values.map_or(Ok(ptr::null()), |v| per_rank(op, what, v, size))
}
