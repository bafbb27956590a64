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
