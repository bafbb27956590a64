//! `ManagedTensor`: an owning CPU tensor (frugal/managed_tensor.h) and its
//! zero-copy DLPack exchange with other frameworks.

use std::ptr::{self, NonNull};

use crate::error::{check, Error, ErrorCode, Result};
use crate::sys;
use crate::tensor::{check_view, DType, Element};

/// A tensor whose memory libfrugal owns (or holds for a DLPack producer).
/// Dropping it calls `frugal_managed_tensor_destroy`, which runs the
/// producer's deleter for an imported tensor. Export moves it into a
/// DLPack capsule without copying.
///
/// `Send` but not `Sync`: managed_tensor.h lets a managed tensor be used
/// from any thread but not destroyed or exported during another use;
/// writes go through `&mut self`.
pub struct ManagedTensor {
    raw: NonNull<sys::frugal_managed_tensor>,
}

// SAFETY: see the type's documentation.
unsafe impl Send for ManagedTensor {}

impl ManagedTensor {
    /// A zero-filled, compact row-major CPU tensor (64-byte aligned).
    pub fn alloc(dtype: DType, shape: &[i64]) -> Result<ManagedTensor> {
        let mut raw = ptr::null_mut();
        // SAFETY: `shape` holds ndim extents and is copied by the core.
        check(unsafe { sys::frugal_managed_tensor_alloc(dtype.raw(), shape.len() as i32, shape.as_ptr(), &mut raw) })?;
        Ok(ManagedTensor { raw: NonNull::new(raw).expect("frugal_managed_tensor_alloc succeeded with NULL") })
    }

    /// Takes ownership of a versioned DLPack capsule (e.g. from another
    /// framework's `__dlpack__`), without copying the data. On failure the
    /// capsule's deleter has already run.
    ///
    /// # Safety
    /// `capsule` is NULL or a live `DLManagedTensorVersioned` the caller
    /// owns and uses no more, whatever the outcome.
    pub unsafe fn from_dlpack_versioned(capsule: *mut sys::frugal_dlpack_managed_tensor_versioned) -> Result<ManagedTensor> {
        let mut raw = ptr::null_mut();
        check(sys::frugal_managed_tensor_from_dlpack_versioned(capsule, &mut raw))?;
        Ok(ManagedTensor { raw: NonNull::new(raw).expect("DLPack import succeeded with NULL") })
    }

    /// As [`ManagedTensor::from_dlpack_versioned`], for the legacy
    /// `DLManagedTensor` (what torch 1.13 produces).
    ///
    /// # Safety
    /// As for `from_dlpack_versioned`.
    pub unsafe fn from_dlpack(capsule: *mut sys::frugal_dlpack_managed_tensor) -> Result<ManagedTensor> {
        let mut raw = ptr::null_mut();
        check(sys::frugal_managed_tensor_from_dlpack(capsule, &mut raw))?;
        Ok(ManagedTensor { raw: NonNull::new(raw).expect("DLPack import succeeded with NULL") })
    }

    /// Moves the tensor into a new versioned DLPack capsule, without
    /// copying. The consumer owns the capsule and must call its deleter
    /// exactly once. On failure the tensor comes back unchanged.
    pub fn into_dlpack_versioned(self) -> std::result::Result<*mut sys::frugal_dlpack_managed_tensor_versioned, (Error, ManagedTensor)> {
        let mut capsule = ptr::null_mut();
        // SAFETY: we own the tensor; on success it is consumed by the core,
        // so `self` must not be dropped (forget below).
        match check(unsafe { sys::frugal_managed_tensor_to_dlpack_versioned(self.raw.as_ptr(), &mut capsule) }) {
            Ok(()) => {
                std::mem::forget(self);
                Ok(capsule)
            }
            Err(e) => Err((e, self)),
        }
    }

    /// As [`ManagedTensor::into_dlpack_versioned`], producing the legacy
    /// struct; a read-only tensor is refused (`ErrorCode::Unsupported`).
    pub fn into_dlpack(self) -> std::result::Result<*mut sys::frugal_dlpack_managed_tensor, (Error, ManagedTensor)> {
        let mut capsule = ptr::null_mut();
        // SAFETY: as in into_dlpack_versioned.
        match check(unsafe { sys::frugal_managed_tensor_to_dlpack(self.raw.as_ptr(), &mut capsule) }) {
            Ok(()) => {
                std::mem::forget(self);
                Ok(capsule)
            }
            Err(e) => Err((e, self)),
        }
    }

    fn view(&self) -> &sys::frugal_tensor {
        // SAFETY: owned by the managed tensor, valid while `self` is.
        unsafe { &*sys::frugal_managed_tensor_view(self.raw.as_ptr()) }
    }

    /// The element type (`ErrorCode::Unsupported` for one this binding
    /// does not name, which an import may bring).
    pub fn dtype(&self) -> Result<DType> {
        let raw = self.view().dtype;
        DType::from_raw(raw).ok_or_else(|| Error::new(ErrorCode::Unsupported, &format!("dtype {} is unknown to this binding", raw)))
    }

    /// The extents.
    pub fn shape(&self) -> &[i64] {
        let view = self.view();
        if view.ndim == 0 {
            return &[];
        }
        // SAFETY: ndim extents owned by the view, valid while `self` is.
        unsafe { std::slice::from_raw_parts(view.shape, view.ndim as usize) }
    }

    /// Whether it was imported read-only (then [`ManagedTensor::as_mut_slice`] refuses).
    pub fn is_read_only(&self) -> bool {
        // SAFETY: live tensor.
        unsafe { sys::frugal_managed_tensor_is_read_only(self.raw.as_ptr()) != 0 }
    }

    /// The element count, or an error when the memory is not compact
    /// row-major host memory that a slice can describe.
    fn compact_len<T: Element>(&self) -> Result<usize> {
        let view = self.view();
        let dtype = self.dtype()?;
        let shape = self.shape();
        let len = shape.iter().product::<i64>() as usize;
        // The slice checks: T must carry the dtype (the count is the shape's).
        check_view::<T>(dtype, shape, len)?;
        let refuse = |why: &str| Err(Error::new(ErrorCode::Unsupported, &format!("the managed tensor {}", why)));
        if view.device.type_ != sys::FRUGAL_DEVICE_CPU && view.device.type_ != sys::FRUGAL_DEVICE_CUDA_PINNED {
            return refuse("is not in host memory");
        }
        if !view.strides.is_null() && len > 0 {
            // SAFETY: ndim strides owned by the view.
            let strides = unsafe { std::slice::from_raw_parts(view.strides, shape.len()) };
            let mut expected = 1i64;
            for (axis, (&extent, &stride)) in shape.iter().zip(strides).enumerate().rev() {
                if extent > 1 && stride != expected {
                    return refuse(&format!("is not compact row-major (axis {} has stride {})", axis, stride));
                }
                expected *= extent;
            }
        }
        if len > 0 && (view.data as usize + view.byte_offset as usize) % std::mem::align_of::<T>() != 0 {
            return refuse("data is not aligned for the element type");
        }
        Ok(len)
    }

    fn data_ptr(&self) -> *mut u8 {
        let view = self.view();
        (view.data as *mut u8).wrapping_add(view.byte_offset as usize)
    }

    /// The elements as `T` (compact host memory only).
    pub fn as_slice<T: Element>(&self) -> Result<&[T]> {
        let len = self.compact_len::<T>()?;
        if len == 0 {
            return Ok(&[]);
        }
        // SAFETY: `len` compact, aligned elements owned by `self`.
        Ok(unsafe { std::slice::from_raw_parts(self.data_ptr() as *const T, len) })
    }

    /// The elements as `T`, writable (compact host memory, not read-only).
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        if self.is_read_only() {
            return Err(Error::new(ErrorCode::FailedPrecondition, "the managed tensor was imported read-only"));
        }
        let len = self.compact_len::<T>()?;
        if len == 0 {
            return Ok(&mut []);
        }
        // SAFETY: as in as_slice; `&mut self` makes the borrow exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.data_ptr() as *mut T, len) })
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *mut sys::frugal_managed_tensor {
        self.raw.as_ptr()
    }
}

impl Drop for ManagedTensor {
    fn drop(&mut self) {
        // SAFETY: we own the tensor and it was not exported.
        unsafe { sys::frugal_managed_tensor_destroy(self.raw.as_ptr()) }
    }
}
