//! `Packer` and `PackPlan`: sequence packing into rows of `max_len` tokens.

use std::ptr::{self, NonNull};
use std::slice;

use crate::context::Context;
use crate::error::{check, Error, ErrorCode, Result};
use crate::options::Options;
use crate::strings::{copy_c_str, to_c_string};
use crate::sys;

/// A packer instance. Dropping it calls `frugal_packer_destroy`; plans made
/// from it stay valid.
///
/// `Send` but not `Sync`: packer.h lets a packer move between threads, but
/// concurrent `pack` calls are allowed only for strategies flagged
/// thread-safe.
pub struct Packer {
    raw: NonNull<sys::frugal_packer>,
}

// SAFETY: see the type's documentation (packer.h, "Thread safety").
unsafe impl Send for Packer {}

impl Packer {
    /// Creates the packer `name` (the built-in one is "packer_seq").
    /// `options` must hold `max_len`; read during the call only.
    pub fn new(context: &Context, name: &str, options: &Options) -> Result<Packer> {
        let name = to_c_string("packer name", name)?;
        let mut raw = ptr::null_mut();
        // SAFETY: live context and options; name outlives the call.
        check(unsafe { sys::frugal_packer_create(context.as_ptr(), name.as_ptr(), options.as_ptr(), &mut raw) })?;
        Ok(Packer { raw: NonNull::new(raw).expect("frugal_packer_create succeeded with NULL") })
    }

    /// Packs sequences: sequence `i` has `lengths[i]` tokens and id `i`.
    pub fn pack(&self, lengths: &[i64]) -> Result<PackPlan> {
        let mut raw = ptr::null_mut();
        // SAFETY: live packer; `lengths` is read during the call only.
        check(unsafe { sys::frugal_packer_pack(self.raw.as_ptr(), lengths.as_ptr(), lengths.len(), &mut raw) })?;
        PackPlan::from_raw(NonNull::new(raw).expect("frugal_packer_pack succeeded with NULL"))
    }

    /// Packs a length histogram: `counts[b]` sequences of `lengths[b]`
    /// tokens, numbered in bin order (bin 0's get ids `0..counts[0]`, ...).
    /// The two slices must have the same length (else
    /// `ErrorCode::InvalidArgument`); lengths >= 1, counts >= 0 with a
    /// positive sum.
    pub fn pack_histogram(&self, lengths: &[i64], counts: &[i64]) -> Result<PackPlan> {
        if lengths.len() != counts.len() {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                &format!("histogram has {} lengths but {} counts", lengths.len(), counts.len()),
            ));
        }
        let mut raw = ptr::null_mut();
        // SAFETY: live packer; both slices hold `bins` entries, read during the call.
        check(unsafe {
            sys::frugal_packer_pack_histogram(self.raw.as_ptr(), lengths.as_ptr(), counts.as_ptr(), lengths.len(), &mut raw)
        })?;
        PackPlan::from_raw(NonNull::new(raw).expect("frugal_packer_pack_histogram succeeded with NULL"))
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *mut sys::frugal_packer {
        self.raw.as_ptr()
    }
}

impl Drop for Packer {
    fn drop(&mut self) {
        // SAFETY: we own the packer; `&mut self` excludes other calls.
        unsafe { sys::frugal_packer_destroy(self.raw.as_ptr()) }
    }
}

/// Statistics of a plan, copied out of it.
#[derive(Debug, Clone, PartialEq)]
pub struct PackStats {
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
    /// The method that produced the plan ("ffd", ...).
    pub method: String,
}

/// The flash-attention varlen description of one pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Varlen {
    /// 0, len0, len0 + len1, ...: units in the pack + 1 entries.
    pub cu_seqlens: Vec<i32>,
    /// The longest unit in the pack.
    pub max_seqlen: i32,
}

/// The result of one packing. Immutable; dropping it calls
/// `frugal_pack_plan_destroy`. The slices it hands out point into memory
/// the plan owns, so they borrow the plan.
///
/// `Send + Sync`: packer.h says any number of threads may read a plan.
pub struct PackPlan {
    raw: NonNull<sys::frugal_pack_plan>,
    // Fetched once: the arrays it points to live as long as the plan.
    view: sys::frugal_pack_plan_view,
}

// SAFETY: see the type's documentation (a plan is immutable).
unsafe impl Send for PackPlan {}
// SAFETY: as above.
unsafe impl Sync for PackPlan {}

impl PackPlan {
    fn from_raw(raw: NonNull<sys::frugal_pack_plan>) -> Result<PackPlan> {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut view: sys::frugal_pack_plan_view = unsafe { std::mem::zeroed() };
        view.struct_size = std::mem::size_of::<sys::frugal_pack_plan_view>();
        // Own the plan first, so an error below still destroys it.
        let mut plan = PackPlan { raw, view };
        // SAFETY: live plan; `view` is caller-allocated with struct_size set.
        check(unsafe { sys::frugal_pack_plan_view_get(plan.raw.as_ptr(), &mut view) })?;
        plan.view = view;
        Ok(plan)
    }

    /// Number of packs (rows).
    pub fn pack_count(&self) -> usize {
        self.view.pack_count
    }

    /// Number of units (sequences, or pieces of split ones).
    pub fn unit_count(&self) -> usize {
        self.view.unit_count
    }

    /// The unit range of pack `pack`. Panics when `pack >= pack_count()`,
    /// as slice indexing does.
    fn units_of(&self, pack: usize) -> std::ops::Range<usize> {
        let offsets = self.pack_offsets();
        assert!(pack < self.view.pack_count, "pack {} out of range ({} packs)", pack, self.view.pack_count);
        offsets[pack] as usize..offsets[pack + 1] as usize
    }

    /// `pack_count() + 1` entries: pack p holds units
    /// `[pack_offsets[p], pack_offsets[p + 1])`.
    pub fn pack_offsets(&self) -> &[i64] {
        // SAFETY: pack_count + 1 entries, owned by the plan (never NULL).
        unsafe { raw_slice(self.view.pack_offsets, self.view.pack_count + 1) }
    }

    /// Sequence id of every unit, grouped by pack in row order.
    pub fn sequence_ids(&self) -> &[i64] {
        // SAFETY: unit_count entries owned by the plan.
        unsafe { raw_slice(self.view.sequence_ids, self.view.unit_count) }
    }

    /// Tokens of every unit, grouped by pack in row order.
    pub fn unit_lengths(&self) -> &[i64] {
        // SAFETY: unit_count entries owned by the plan.
        unsafe { raw_slice(self.view.unit_lengths, self.view.unit_count) }
    }

    /// First token of every unit within its sequence (0 unless split).
    pub fn token_offsets(&self) -> &[i64] {
        // SAFETY: unit_count entries owned by the plan.
        unsafe { raw_slice(self.view.token_offsets, self.view.unit_count) }
    }

    /// Real tokens in each pack.
    pub fn pack_tokens(&self) -> &[i64] {
        // SAFETY: pack_count entries owned by the plan.
        unsafe { raw_slice(self.view.pack_tokens, self.view.pack_count) }
    }

    /// The sequence ids in pack `pack`, in row order. Panics when out of range.
    pub fn pack(&self, pack: usize) -> &[i64] {
        &self.sequence_ids()[self.units_of(pack)]
    }

    /// The unit lengths in pack `pack`, in row order. Panics when out of range.
    pub fn pack_lengths(&self, pack: usize) -> &[i64] {
        &self.unit_lengths()[self.units_of(pack)]
    }

    /// Every pack's sequence ids, as owned vectors.
    pub fn packs(&self) -> Vec<Vec<i64>> {
        (0..self.pack_count()).map(|p| self.pack(p).to_vec()).collect()
    }

    /// The plan's statistics.
    pub fn stats(&self) -> Result<PackStats> {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut s: sys::frugal_pack_stats = unsafe { std::mem::zeroed() };
        s.struct_size = std::mem::size_of::<sys::frugal_pack_stats>();
        // SAFETY: live plan; caller-allocated stats with struct_size set.
        check(unsafe { sys::frugal_pack_plan_stats(self.raw.as_ptr(), &mut s) })?;
        Ok(PackStats {
            packs: s.packs,
            units: s.units,
            sequences: s.sequences,
            real_tokens: s.real_tokens,
            max_len: s.max_len,
            lower_bound: s.lower_bound,
            lower_bound_tight: s.lower_bound_tight,
            efficiency: s.efficiency,
            padding_before: s.padding_before,
            padding_after: s.padding_after,
            speedup: s.speedup,
            truncated_sequences: s.truncated_sequences,
            truncated_tokens: s.truncated_tokens,
            split_sequences: s.split_sequences,
            // SAFETY: owned by the plan, alive during `&self`.
            method: unsafe { copy_c_str(s.method) },
        })
    }

    /// The varlen (cu_seqlens, max_seqlen) description of pack `pack`;
    /// `ErrorCode::OutOfRange` when there is no such pack.
    pub fn varlen(&self, pack: usize) -> Result<Varlen> {
        if pack >= self.pack_count() {
            return Err(out_of_range(pack, self.pack_count()));
        }
        let mut cu_seqlens = vec![0i32; self.units_of(pack).len() + 1];
        let mut written = 0usize;
        let mut max_seqlen = 0i32;
        // SAFETY: live plan; the buffer holds `capacity` entries.
        check(unsafe {
            sys::frugal_pack_plan_varlen(
                self.raw.as_ptr(),
                pack,
                cu_seqlens.as_mut_ptr(),
                cu_seqlens.len(),
                &mut written,
                &mut max_seqlen,
            )
        })?;
        cu_seqlens.truncate(written);
        Ok(Varlen { cu_seqlens, max_seqlen })
    }

    /// Position ids of pack `pack` as a row of `length` tokens (at least the
    /// pack's real tokens, usually max_len): 0, 1, ... restarting at each
    /// unit, 0 in the padding.
    pub fn position_ids(&self, pack: usize, length: usize) -> Result<Vec<i64>> {
        let mut out = vec![0i64; length];
        // SAFETY: live plan; `out` holds `length` entries.
        check(unsafe { sys::frugal_pack_plan_position_ids(self.raw.as_ptr(), pack, out.as_mut_ptr(), length) })?;
        Ok(out)
    }

    /// Segment ids of pack `pack` as a row of `length` tokens: k + 1 for the
    /// k-th unit's tokens, 0 for padding.
    pub fn segment_ids(&self, pack: usize, length: usize) -> Result<Vec<i32>> {
        let mut out = vec![0i32; length];
        // SAFETY: live plan; `out` holds `length` entries.
        check(unsafe { sys::frugal_pack_plan_segment_ids(self.raw.as_ptr(), pack, out.as_mut_ptr(), length) })?;
        Ok(out)
    }

    /// The dense block-diagonal causal mask of pack `pack`, row-major
    /// `side` x `side` (`side` >= the pack's real tokens): entry
    /// `q * side + k` is 1 when query q may attend to key k (same unit,
    /// k <= q); a padding position attends only to itself. Costs side^2
    /// bytes: prefer [`PackPlan::varlen`] where the kernel takes it. A
    /// side below the pack's real tokens is `ErrorCode::OutOfRange`, as is
    /// a pack that does not exist.
    pub fn mask(&self, pack: usize, side: usize) -> Result<Vec<u8>> {
        let cells = side.checked_mul(side).ok_or_else(|| {
            Error::new(ErrorCode::InvalidArgument, &format!("mask side {} squared overflows", side))
        })?;
        let mut out = vec![0u8; cells];
        // SAFETY: live plan; `out` holds side * side entries.
        check(unsafe { sys::frugal_pack_plan_mask(self.raw.as_ptr(), pack, out.as_mut_ptr(), side) })?;
        Ok(out)
    }

    /// Builds the packed token row of pack `pack` into `out_tokens`, and
    /// its label row into `out_labels` when given (same length as
    /// `out_tokens`, which must hold at least the pack's real tokens, else
    /// `ErrorCode::OutOfRange`). The
    /// source arrays are checked here so that the core only ever reads
    /// inside them: `sequence_offsets` must be non-decreasing and within
    /// `tokens`, `labels` as long as `tokens` (else
    /// `ErrorCode::InvalidArgument`). The core refuses a sequence id not
    /// below `input.sequence_count()` or a sequence shorter than the plan
    /// expects, naming it.
    pub fn gather(&self, pack: usize, input: &GatherInput<'_>, out_tokens: &mut [i64], out_labels: Option<&mut [i64]>) -> Result<()> {
        input.check()?;
        if let Some(labels) = &out_labels {
            if labels.len() != out_tokens.len() {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    &format!("out_labels has {} entries but out_tokens {}", labels.len(), out_tokens.len()),
                ));
            }
        }
        let args = sys::frugal_pack_gather_args {
            struct_size: std::mem::size_of::<sys::frugal_pack_gather_args>(),
            tokens: input.tokens.as_ptr(),
            sequence_offsets: input.sequence_offsets.as_ptr(),
            sequence_count: input.sequence_count(),
            labels: input.labels.map_or(ptr::null(), |l| l.as_ptr()),
            out_tokens: out_tokens.as_mut_ptr(),
            out_labels: out_labels.map_or(ptr::null_mut(), |l| l.as_mut_ptr()),
            out_length: out_tokens.len(),
            pad_token: input.pad_token,
            ignore_index: input.ignore_index,
            mask_first_label: i32::from(input.mask_first_label),
        };
        // SAFETY: live plan; the inputs were checked above so every offset
        // the core follows stays inside `tokens` (and `labels`); the outputs
        // hold out_length entries each and are exclusively borrowed.
        check(unsafe { sys::frugal_pack_plan_gather(self.raw.as_ptr(), pack, &args) })
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *const sys::frugal_pack_plan {
        self.raw.as_ptr()
    }
}

impl Drop for PackPlan {
    fn drop(&mut self) {
        // SAFETY: we own the plan; no slice borrowed from it outlives `self`.
        unsafe { sys::frugal_pack_plan_destroy(self.raw.as_ptr()) }
    }
}

/// The caller's token (and label) arrays that [`PackPlan::gather`] packs.
#[derive(Debug, Clone)]
pub struct GatherInput<'a> {
    /// Every sequence's token ids, back to back.
    pub tokens: &'a [i64],
    /// Sequence count + 1 entries: sequence s is
    /// `tokens[sequence_offsets[s]..sequence_offsets[s + 1]]`. The plan's
    /// sequence ids index it.
    pub sequence_offsets: &'a [i64],
    /// Labels in the layout of `tokens`; `None`: the labels are the tokens.
    pub labels: Option<&'a [i64]>,
    /// Token id written into padding positions.
    pub pad_token: i64,
    /// Label of padding positions and of masked first labels (-100 in
    /// PyTorch's losses).
    pub ignore_index: i64,
    /// Each unit's first label becomes `ignore_index`, so no token is
    /// trained to predict across a boundary.
    pub mask_first_label: bool,
}

impl<'a> GatherInput<'a> {
    /// Sequences of `tokens` cut at `sequence_offsets`, labels = tokens,
    /// pad 0, ignore_index -100, first labels masked.
    pub fn new(tokens: &'a [i64], sequence_offsets: &'a [i64]) -> GatherInput<'a> {
        GatherInput { tokens, sequence_offsets, labels: None, pad_token: 0, ignore_index: -100, mask_first_label: true }
    }

    /// The number of sequences described (0 when `sequence_offsets` is empty).
    pub fn sequence_count(&self) -> usize {
        self.sequence_offsets.len().saturating_sub(1)
    }

    fn check(&self) -> Result<()> {
        let bad = |message: String| Err(Error::new(ErrorCode::InvalidArgument, &message));
        if self.sequence_offsets.is_empty() {
            return bad("sequence_offsets needs at least one entry (sequence count + 1)".to_string());
        }
        let len = self.tokens.len() as i64;
        let mut previous = 0i64;
        for (s, &offset) in self.sequence_offsets.iter().enumerate() {
            if offset < previous || offset > len {
                return bad(format!(
                    "sequence_offsets[{}] = {} must be non-decreasing, >= 0 and <= {} (the tokens given)",
                    s, offset, len
                ));
            }
            previous = offset;
        }
        if let Some(labels) = self.labels {
            if labels.len() != self.tokens.len() {
                return bad(format!("labels has {} entries but tokens {}", labels.len(), self.tokens.len()));
            }
        }
        Ok(())
    }
}

/// Units held and packs ready in a [`PackStream`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamPending {
    /// Units held in the window, not yet in a ready pack.
    pub held: usize,
    /// Packs ready to pop.
    pub ready: usize,
}

/// A streaming packer: packs sequences as a loader produces them, holding
/// at most `window` units, and hands out the fullest packs while keeping
/// the emptiest to combine with later arrivals. Dropping it calls
/// `frugal_pack_stream_destroy`, discarding held units.
///
/// `Send` but not `Sync`: packer.h says a stream is not thread-safe; every
/// call that changes it takes `&mut self`.
pub struct PackStream {
    raw: NonNull<sys::frugal_pack_stream>,
}

// SAFETY: see the type's documentation; the stream has no thread affinity.
unsafe impl Send for PackStream {}

impl PackStream {
    /// A stream packing with `packer`'s strategy and limits (the stream
    /// keeps what it needs: the `Packer` may be dropped first). Options,
    /// read during the call only: window (4096), max_rounds (4).
    pub fn new(packer: &Packer, options: Option<&Options>) -> Result<PackStream> {
        let options = options.map_or(ptr::null(), |o| o.as_ptr());
        let mut raw = ptr::null_mut();
        // SAFETY: live packer; options NULL or read during the call.
        check(unsafe { sys::frugal_pack_stream_create(packer.raw.as_ptr(), options, &mut raw) })?;
        Ok(PackStream { raw: NonNull::new(raw).expect("frugal_pack_stream_create succeeded with NULL") })
    }

    /// Adds sequence `sequence_id` (any value the caller chooses; gather
    /// uses it to index the caller's arrays) of `length` tokens. Packs when
    /// the window fills; a packing error is returned here and leaves the
    /// window as it was.
    pub fn push(&mut self, sequence_id: i64, length: i64) -> Result<()> {
        // SAFETY: live stream, exclusively borrowed.
        check(unsafe { sys::frugal_pack_stream_push(self.raw.as_ptr(), sequence_id, length) })
    }

    /// Packs everything still held, so the next pop hands out every unit
    /// pushed so far. The stream stays usable.
    pub fn flush(&mut self) -> Result<()> {
        // SAFETY: live stream, exclusively borrowed.
        check(unsafe { sys::frugal_pack_stream_flush(self.raw.as_ptr()) })
    }

    /// Takes the packs ready so far as a plan (possibly with no pack);
    /// its stats cover those packs only. The plan outlives the stream.
    pub fn pop(&mut self) -> Result<PackPlan> {
        let mut raw = ptr::null_mut();
        // SAFETY: live stream, exclusively borrowed; valid out pointer.
        check(unsafe { sys::frugal_pack_stream_pop(self.raw.as_ptr(), &mut raw) })?;
        PackPlan::from_raw(NonNull::new(raw).expect("frugal_pack_stream_pop succeeded with NULL"))
    }

    /// Units held and packs ready to pop.
    pub fn pending(&self) -> Result<StreamPending> {
        let (mut held, mut ready) = (0usize, 0usize);
        // SAFETY: live stream (a const call; `&self` excludes the mutating ones).
        check(unsafe { sys::frugal_pack_stream_pending(self.raw.as_ptr(), &mut held, &mut ready) })?;
        Ok(StreamPending { held, ready })
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *mut sys::frugal_pack_stream {
        self.raw.as_ptr()
    }
}

impl Drop for PackStream {
    fn drop(&mut self) {
        // SAFETY: we own the stream; `&mut self` excludes other calls.
        unsafe { sys::frugal_pack_stream_destroy(self.raw.as_ptr()) }
    }
}

fn out_of_range(pack: usize, count: usize) -> Error {
    Error::new(ErrorCode::OutOfRange, &format!("pack {} out of range ({} packs)", pack, count))
}

/// A slice over `len` entries the plan owns; empty (never from NULL) when
/// `len` is 0, since the header allows NULL for empty arrays.
///
/// # Safety
/// `ptr` points to `len` initialised entries that outlive the returned slice.
unsafe fn raw_slice<'a, T>(ptr: *const T, len: usize) -> &'a [T] {
    if len == 0 || ptr.is_null() {
        &[]
    } else {
        slice::from_raw_parts(ptr, len)
    }
}
