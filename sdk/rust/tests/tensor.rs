//! Tensor views: the shape must describe the slice exactly, the element
//! type must be able to carry the dtype, and the C view says so.

use frugal::{sys, DType, ErrorCode, TensorMut, TensorRef};

#[test]
fn a_view_describes_its_slice() {
    let data = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let view = TensorRef::new(&data, &[2, 3]).unwrap();
    assert_eq!(view.dtype(), DType::F32);
    assert_eq!(view.shape(), &[2, 3]);
    assert_eq!(view.len(), 6);
    let raw = view.raw();
    assert_eq!(raw.data as *const f32, data.as_ptr(), "the view must not copy");
    assert_eq!(raw.dtype, sys::FRUGAL_DTYPE_FLOAT32);
    assert_eq!(raw.ndim, 2);
    assert_eq!(raw.device.type_, sys::FRUGAL_DEVICE_CPU);
    // SAFETY: shape points at the view's 2 extents while `view` lives.
    assert_eq!(unsafe { std::slice::from_raw_parts(raw.shape, 2) }, &[2, 3]);
    assert!(raw.strides.is_null() && raw.quant.is_null());
    // The core agrees the view is well formed.
    assert!(unsafe { sys::frugal_tensor_validate(&raw) }.is_null());
}

#[test]
fn a_shape_that_does_not_match_the_slice_is_refused() {
    let data = [0i64; 6];
    let err = TensorRef::new(&data, &[4, 2]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("holds 8 elements but the slice has 6"), "{}", err.message());
    let err = TensorRef::new(&data, &[-1, -6]).unwrap_err();
    assert!(err.message().contains("negative"), "{}", err.message());
    // A scalar is one element.
    assert!(TensorRef::new(&data[..1], &[]).is_ok());
}

#[test]
fn element_types_carry_only_their_dtypes() {
    let mut bits = [0u16; 4];
    assert_eq!(TensorMut::with_dtype(&mut bits, DType::BF16, &[4]).unwrap().dtype(), DType::BF16);
    assert_eq!(TensorMut::with_dtype(&mut bits, DType::F16, &[2, 2]).unwrap().dtype(), DType::F16);
    let mut codes = [0u8; 4];
    assert_eq!(TensorMut::with_dtype(&mut codes, DType::F8E4M3, &[4]).unwrap().dtype(), DType::F8E4M3);
    let err = TensorMut::with_dtype(&mut codes, DType::F32, &[1]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("cannot carry float32"), "{}", err.message());
}

#[test]
fn a_mutable_view_gives_its_elements_back_typed() {
    let mut data = vec![1i32, 2, 3];
    let mut view = TensorMut::new(&mut data, &[3]).unwrap();
    view.as_mut_slice::<i32>().unwrap()[1] = 20;
    assert_eq!(view.as_slice::<i32>().unwrap(), &[1, 20, 3]);
    assert_eq!(view.as_slice::<f32>().unwrap_err().code(), ErrorCode::InvalidArgument);
    drop(view);
    assert_eq!(data, vec![1, 20, 3]);
}

#[test]
fn dtype_names_and_sizes_come_from_the_core() {
    assert_eq!(DType::F8E4M3.name(), "float8_e4m3fn");
    for dtype in [DType::F32, DType::BF16, DType::F64, DType::F8E5M2, DType::I64, DType::Bool] {
        // SAFETY: a pure function of its argument.
        let bits = unsafe { sys::frugal_dtype_bits(dtype.raw()) };
        assert_eq!(dtype.size() * 8, bits as usize, "{:?}", dtype);
        assert_eq!(DType::from_raw(dtype.raw()), Some(dtype));
    }
    assert_eq!(DType::from_raw(999), None);
}

#[test]
fn dtype_bits_agree_with_the_binding_for_every_dtype() {
    for dtype in DType::ALL {
        assert_eq!(dtype.bits() as usize, dtype.size() * 8, "{:?}", dtype);
    }
    // SAFETY: a pure function of its argument.
    assert_eq!(unsafe { sys::frugal_dtype_bits(999) }, 0, "an unknown dtype has 0 bits");
}

#[test]
fn the_core_accepts_every_view_the_binding_builds_and_refuses_a_broken_one() {
    let (bytes, halves, floats, longs) = ([0u8; 24], [0u16; 24], [0f32; 24], [0i64; 24]);
    let (i8s, i16s, i32s, f64s) = ([0i8; 24], [0i16; 24], [0i32; 24], [0f64; 24]);
    for dtype in DType::ALL {
        for shape in [&[24][..], &[2, 3, 4], &[1, 1, 1, 1, 24], &[0, 5][..]] {
            let n = shape.iter().product::<i64>() as usize;
            let view = match dtype {
                DType::F32 => TensorRef::new(&floats[..n], shape),
                DType::F64 => TensorRef::new(&f64s[..n], shape),
                DType::I8 => TensorRef::new(&i8s[..n], shape),
                DType::I16 => TensorRef::new(&i16s[..n], shape),
                DType::I32 => TensorRef::new(&i32s[..n], shape),
                DType::I64 => TensorRef::new(&longs[..n], shape),
                DType::F16 | DType::BF16 => TensorRef::with_dtype(&halves[..n], dtype, shape),
                _ => TensorRef::with_dtype(&bytes[..n], dtype, shape),
            }
            .unwrap();
            assert_eq!(view.dtype(), dtype);
            view.validate().unwrap_or_else(|e| panic!("{:?} {:?}: {}", dtype, shape, e));
        }
    }
    let mut data = [0f32; 6];
    TensorMut::new(&mut data, &[3, 2]).unwrap().validate().unwrap();

    // The core's checks, seen through the raw layer: a negative extent and
    // an unknown dtype are INVALID_ARGUMENT naming the field.
    let view = TensorRef::new(&data, &[6]).unwrap();
    let bad_shape = [-6i64];
    let mut raw = view.raw();
    raw.shape = bad_shape.as_ptr();
    // SAFETY: `raw` and `bad_shape` outlive the call; the data is not read.
    let err = unsafe { frugal::Error::from_raw(sys::frugal_tensor_validate(&raw)) };
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    assert!(err.message().contains("shape"), "{}", err.message());
    let mut raw = view.raw();
    raw.dtype = 999;
    // SAFETY: as above.
    let err = unsafe { frugal::Error::from_raw(sys::frugal_tensor_validate(&raw)) };
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    assert!(err.message().contains("dtype"), "{}", err.message());
}
