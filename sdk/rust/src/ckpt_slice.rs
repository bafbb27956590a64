//! `CkptSlice`: where the tensor a rank registers with
//! [`CkptEngine::register_slice`](crate::CkptEngine::register_slice) lies
//! in the global tensor (frugal/checkpoint.h `frugal_ckpt_slice`, ABI 2.2).
//!
//! The slice only borrows the caller's extents and offsets: the core copies
//! the struct and both arrays during the registration call, so nothing here
//! outlives it.

use std::mem::size_of;
use std::ptr;

use crate::error::{Error, ErrorCode, Result};
use crate::sys;

/// This rank's box of a global tensor: `global_shape` is the whole
/// tensor's extents, `offsets` where the box starts (its extents are those
/// of the registered view), or the whole tensor held by every rank
/// ([`CkptSlice::replicated`]).
///
/// Every rank registers the same names, dtypes and global shapes, and the
/// slices of all ranks must cover each tensor without overlap (a
/// replicated tensor covers it alone), else the save that finds them
/// otherwise commits on no rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CkptSlice<'a> {
    /// One extent per dimension of the registered view.
    pub global_shape: &'a [i64],
    /// One offset per dimension of the registered view; empty means all
    /// zeros (passed as NULL).
    pub offsets: &'a [i64],
    /// Every rank holds the whole tensor (the view's shape is
    /// `global_shape`): saved once, by rank 0, and restored on every rank.
    pub replicated: bool,
}

impl<'a> CkptSlice<'a> {
    /// The box of `global_shape` at `offsets` (empty: at zeros).
    pub fn new(global_shape: &'a [i64], offsets: &'a [i64]) -> CkptSlice<'a> {
        CkptSlice { global_shape, offsets, replicated: false }
    }

    /// A tensor every rank holds whole: `global_shape` is the view's shape.
    pub fn replicated(global_shape: &'a [i64]) -> CkptSlice<'a> {
        CkptSlice { global_shape, offsets: &[], replicated: true }
    }

    /// The C struct for registering tensor `name` of `ndim` dimensions; it
    /// points into `self`, so it is valid while `self`'s slices are.
    /// `ErrorCode::InvalidArgument` when `global_shape` (or non-empty
    /// `offsets`) does not have `ndim` values, the one check the core
    /// cannot make (it reads `ndim` values from each array); bounds and the
    /// replicated rule are left to the core.
    pub(crate) fn raw(&self, name: &str, ndim: usize) -> Result<sys::frugal_ckpt_slice> {
        check_len(name, "global_shape", self.global_shape, ndim)?;
        if !self.offsets.is_empty() {
            check_len(name, "offsets", self.offsets, ndim)?;
        }
        Ok(sys::frugal_ckpt_slice {
            struct_size: size_of::<sys::frugal_ckpt_slice>(),
            ndim: ndim as i32,
            replicated: i32::from(self.replicated),
            global_shape: self.global_shape.as_ptr(),
            offsets: if self.offsets.is_empty() { ptr::null() } else { self.offsets.as_ptr() },
        })
    }
}

fn check_len(name: &str, what: &str, values: &[i64], ndim: usize) -> Result<()> {
    if values.len() == ndim {
        return Ok(());
    }
    let message = format!(
        "checkpoint slice '{}': {} has {} values but the tensor has {} dimensions",
        name,
        what,
        values.len(),
        ndim
    );
    Err(Error::new(ErrorCode::InvalidArgument, &message))
}
