//! Tensor views over Rust slices: [`TensorRef`] borrows a `&[T]`,
//! [`TensorMut`] a `&mut [T]`, each with a row-major shape whose element
//! count equals the slice's length. The lifetime `'a` ties the view to the
//! slice, so the borrow checker keeps the memory alive and unaliased for as
//! long as the core may read (or write) it through the view.

use std::marker::PhantomData;
use std::mem::size_of;
use std::os::raw::c_void;

use crate::error::{check, Error, ErrorCode, Result};
use crate::strings::copy_c_str;
use crate::sys;

/// A frugal element type (frugal/tensor.h `frugal_dtype_values`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    /// IEEE binary16, carried in Rust as raw `u16` bits.
    F16,
    /// bfloat16, carried in Rust as raw `u16` bits.
    BF16,
    F64,
    /// OCP FP8 E4M3 (max 448), carried as raw `u8` codes.
    F8E4M3,
    /// OCP FP8 E5M2, carried as raw `u8` codes.
    F8E5M2,
    /// OCP E8M0 scale (MX), carried as raw `u8`.
    F8E8M0,
    I8,
    U8,
    I16,
    I32,
    I64,
    /// One byte per element, 0 or 1; carried as `u8`.
    Bool,
}

impl DType {
    /// The C value (`sys::FRUGAL_DTYPE_*`).
    pub fn raw(self) -> i32 {
        match self {
            DType::F32 => sys::FRUGAL_DTYPE_FLOAT32,
            DType::F16 => sys::FRUGAL_DTYPE_FLOAT16,
            DType::BF16 => sys::FRUGAL_DTYPE_BFLOAT16,
            DType::F64 => sys::FRUGAL_DTYPE_FLOAT64,
            DType::F8E4M3 => sys::FRUGAL_DTYPE_FLOAT8_E4M3FN,
            DType::F8E5M2 => sys::FRUGAL_DTYPE_FLOAT8_E5M2,
            DType::F8E8M0 => sys::FRUGAL_DTYPE_FLOAT8_E8M0FNU,
            DType::I8 => sys::FRUGAL_DTYPE_INT8,
            DType::U8 => sys::FRUGAL_DTYPE_UINT8,
            DType::I16 => sys::FRUGAL_DTYPE_INT16,
            DType::I32 => sys::FRUGAL_DTYPE_INT32,
            DType::I64 => sys::FRUGAL_DTYPE_INT64,
            DType::Bool => sys::FRUGAL_DTYPE_BOOL,
        }
    }

    /// Every dtype this binding names, in the header's order.
    pub const ALL: [DType; 13] = [
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::F64,
        DType::F8E4M3,
        DType::F8E5M2,
        DType::F8E8M0,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::Bool,
    ];

    /// The dtype of a C value; `None` for a value this binding does not name.
    pub fn from_raw(raw: i32) -> Option<DType> {
        DType::ALL.iter().copied().find(|d| d.raw() == raw)
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::F64 | DType::I64 => 8,
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 | DType::I16 => 2,
            _ => 1,
        }
    }

    /// Bits per element, as the loaded libfrugal reports them.
    pub fn bits(self) -> u32 {
        // SAFETY: frugal_dtype_bits accepts any value.
        unsafe { sys::frugal_dtype_bits(self.raw()) as u32 }
    }

    /// The core's stable name ("float32", "float8_e4m3fn", ...).
    pub fn name(self) -> String {
        // SAFETY: frugal_dtype_name returns static storage for any value.
        unsafe { copy_c_str(sys::frugal_dtype_name(self.raw())) }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type whose values may carry elements of some frugal dtypes: its
/// size equals the dtype's and every bit pattern is a valid value (so the
/// core may write any bytes into it). Sealed: implemented for `f32`, `f64`,
/// `i8`, `i16`, `i32`, `i64`, `u8` (uint8, bool, FP8 codes) and `u16`
/// (float16 and bfloat16 bits).
pub trait Element: sealed::Sealed + Copy + 'static {
    /// Whether a slice of `Self` may carry elements of `dtype`.
    fn carries(dtype: DType) -> bool;
}

/// An [`Element`] with one natural dtype, used by [`TensorRef::new`] and
/// [`TensorMut::new`]. `u16` has none (float16 or bfloat16): use
/// `with_dtype`.
pub trait NativeElement: Element {
    /// The dtype a slice of `Self` carries by default.
    const DTYPE: DType;
}

macro_rules! native_element {
    ($ty:ty, $dtype:expr, [$($also:path),*]) => {
        impl sealed::Sealed for $ty {}
        impl Element for $ty {
            fn carries(dtype: DType) -> bool {
                dtype == $dtype $(|| dtype == $also)*
            }
        }
        impl NativeElement for $ty {
            const DTYPE: DType = $dtype;
        }
    };
}

native_element!(f32, DType::F32, []);
native_element!(f64, DType::F64, []);
native_element!(i8, DType::I8, []);
native_element!(i16, DType::I16, []);
native_element!(i32, DType::I32, []);
native_element!(i64, DType::I64, []);
native_element!(u8, DType::U8, [DType::Bool, DType::F8E4M3, DType::F8E5M2, DType::F8E8M0]);

impl sealed::Sealed for u16 {}
impl Element for u16 {
    fn carries(dtype: DType) -> bool {
        dtype == DType::F16 || dtype == DType::BF16
    }
}

/// Checks that `shape` is a valid frugal shape holding exactly `len`
/// elements of a `T` that may carry `dtype`.
pub(crate) fn check_view<T: Element>(dtype: DType, shape: &[i64], len: usize) -> Result<()> {
    if !T::carries(dtype) || size_of::<T>() != dtype.size() {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            &format!("a slice of {} cannot carry {} elements", std::any::type_name::<T>(), dtype.name()),
        ));
    }
    if shape.len() > sys::FRUGAL_TENSOR_MAX_NDIM as usize {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            &format!("shape has {} dimensions, at most {} allowed", shape.len(), sys::FRUGAL_TENSOR_MAX_NDIM),
        ));
    }
    let mut count: i64 = 1;
    for (axis, &extent) in shape.iter().enumerate() {
        if extent < 0 {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                &format!("shape {:?}: extent {} of axis {} is negative", shape, extent, axis),
            ));
        }
        count = count.checked_mul(extent).ok_or_else(|| {
            Error::new(ErrorCode::InvalidArgument, &format!("shape {:?}: element count overflows", shape))
        })?;
    }
    if count as u64 != len as u64 {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            &format!("shape {:?} holds {} elements but the slice has {}", shape, count, len),
        ));
    }
    Ok(())
}

/// The C view of compact row-major host memory; `shape` must outlive every
/// use of the returned struct (it points into it).
fn host_view(data: *mut c_void, dtype: DType, shape: &[i64]) -> sys::frugal_tensor {
    sys::frugal_tensor {
        struct_size: size_of::<sys::frugal_tensor>(),
        data,
        byte_offset: 0,
        dtype: dtype.raw(),
        ndim: shape.len() as i32,
        device: sys::frugal_device { type_: sys::FRUGAL_DEVICE_CPU, id: 0 },
        shape: shape.as_ptr(),
        strides: std::ptr::null(),
        quant: std::ptr::null(),
        ext: std::ptr::null(),
    }
}

/// A read-only tensor view of a borrowed slice, compact row-major on the
/// host. Holds a copy of the shape; the data stays the caller's.
///
/// `Send + Sync` like the `&[T]` it borrows.
#[derive(Debug, Clone)]
pub struct TensorRef<'a> {
    data: *const u8,
    dtype: DType,
    shape: Vec<i64>,
    len: usize,
    _borrow: PhantomData<&'a [u8]>,
}

// SAFETY: a shared view of plain data, like &[T].
unsafe impl Send for TensorRef<'_> {}
// SAFETY: as above.
unsafe impl Sync for TensorRef<'_> {}

impl<'a> TensorRef<'a> {
    /// A view of `data` with `T`'s natural dtype; `shape`'s product must
    /// equal `data.len()` (else `ErrorCode::InvalidArgument`).
    pub fn new<T: NativeElement>(data: &'a [T], shape: &[i64]) -> Result<TensorRef<'a>> {
        TensorRef::with_dtype(data, T::DTYPE, shape)
    }

    /// A view of `data` as `dtype` (e.g. `u16` bits as `DType::BF16`, `u8`
    /// codes as `DType::F8E4M3`); `T` must be able to carry it.
    pub fn with_dtype<T: Element>(data: &'a [T], dtype: DType, shape: &[i64]) -> Result<TensorRef<'a>> {
        check_view::<T>(dtype, shape, data.len())?;
        Ok(TensorRef { data: data.as_ptr() as *const u8, dtype, shape: shape.to_vec(), len: data.len(), _borrow: PhantomData })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The extents, row-major.
    pub fn shape(&self) -> &[i64] {
        &self.shape
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Has the core check the view (`frugal_tensor_validate`: dtype,
    /// device, rank, extents). The constructors already enforce all of
    /// it, so this returns `Ok` for every view this crate builds; it shows
    /// the core and the binding agree on what a well-formed view is.
    pub fn validate(&self) -> Result<()> {
        let view = self.raw();
        // SAFETY: `view` and the shape it points to are alive during the call.
        check(unsafe { sys::frugal_tensor_validate(&view) })
    }

    /// The C view, borrowing `self`'s shape: valid while `self` is. The
    /// core must only read through it.
    pub fn raw(&self) -> sys::frugal_tensor {
        host_view(self.data as *mut c_void, self.dtype, &self.shape)
    }
}

/// A writable tensor view of an exclusively borrowed slice, compact
/// row-major on the host. While it lives the caller cannot touch the
/// slice, so the core may write through it without racing Rust code.
///
/// `Send + Sync` like the `&mut [T]` it borrows.
#[derive(Debug)]
pub struct TensorMut<'a> {
    data: *mut u8,
    dtype: DType,
    shape: Vec<i64>,
    len: usize,
    _borrow: PhantomData<&'a mut [u8]>,
}

// SAFETY: an exclusive view of plain data, like &mut [T].
unsafe impl Send for TensorMut<'_> {}
// SAFETY: as above; writes need &mut self.
unsafe impl Sync for TensorMut<'_> {}

impl<'a> TensorMut<'a> {
    /// A writable view of `data` with `T`'s natural dtype; `shape`'s
    /// product must equal `data.len()` (else `ErrorCode::InvalidArgument`).
    pub fn new<T: NativeElement>(data: &'a mut [T], shape: &[i64]) -> Result<TensorMut<'a>> {
        TensorMut::with_dtype(data, T::DTYPE, shape)
    }

    /// A writable view of `data` as `dtype`; `T` must be able to carry it.
    pub fn with_dtype<T: Element>(data: &'a mut [T], dtype: DType, shape: &[i64]) -> Result<TensorMut<'a>> {
        check_view::<T>(dtype, shape, data.len())?;
        Ok(TensorMut { data: data.as_mut_ptr() as *mut u8, dtype, shape: shape.to_vec(), len: data.len(), _borrow: PhantomData })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The extents, row-major.
    pub fn shape(&self) -> &[i64] {
        &self.shape
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements as `T` (which must carry the view's dtype).
    pub fn as_slice<T: Element>(&self) -> Result<&[T]> {
        check_view::<T>(self.dtype, &self.shape, self.len)?;
        // SAFETY: the view was made from a &'a mut [T'] of `len` elements of
        // the same size and every bit pattern is a valid T; `&self` keeps it
        // from being written meanwhile.
        Ok(unsafe { std::slice::from_raw_parts(self.data as *const T, self.len) })
    }

    /// The elements as `T`, writable (which must carry the view's dtype).
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        check_view::<T>(self.dtype, &self.shape, self.len)?;
        // SAFETY: as in as_slice; `&mut self` makes the borrow exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.data as *mut T, self.len) })
    }

    /// As [`TensorRef::validate`].
    pub fn validate(&self) -> Result<()> {
        self.as_tensor_ref().validate()
    }

    /// A read-only view of the same memory, borrowing `self`.
    pub fn as_tensor_ref(&self) -> TensorRef<'_> {
        TensorRef { data: self.data, dtype: self.dtype, shape: self.shape.clone(), len: self.len, _borrow: PhantomData }
    }

    /// The C view, borrowing `self`'s shape: valid while `self` is. Only
    /// pass it where the core may write while `self` is exclusively held.
    pub fn raw(&mut self) -> sys::frugal_tensor {
        host_view(self.data as *mut c_void, self.dtype, &self.shape)
    }

}
