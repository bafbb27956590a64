//! Managed tensors: allocation, typed access, and a DLPack round trip that
//! moves the same memory (no copy) out and back in.

use frugal::{sys, DType, ErrorCode, ManagedTensor};

#[test]
fn allocated_tensors_are_zeroed_and_typed() {
    let mut t = ManagedTensor::alloc(DType::I64, &[2, 3]).unwrap();
    assert_eq!(t.dtype().unwrap(), DType::I64);
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.as_slice::<i64>().unwrap(), &[0; 6]);
    t.as_mut_slice::<i64>().unwrap().copy_from_slice(&[1, 2, 3, 4, 5, 6]);
    assert_eq!(t.as_slice::<i64>().unwrap()[5], 6);
    assert_eq!(t.as_slice::<f64>().unwrap_err().code(), ErrorCode::InvalidArgument);
    assert_eq!(ManagedTensor::alloc(DType::F32, &[-1]).err().unwrap().code(), ErrorCode::InvalidArgument);
}

#[test]
fn a_dlpack_round_trip_moves_the_same_memory() {
    for versioned in [true, false] {
        let mut t = ManagedTensor::alloc(DType::F32, &[4, 5]).unwrap();
        t.as_mut_slice::<f32>().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = i as f32 * 0.5);
        let data = t.as_slice::<f32>().unwrap().as_ptr();
        let back = if versioned {
            let capsule = t.into_dlpack_versioned().map_err(|(e, _)| e).unwrap();
            // SAFETY: a capsule frugal just produced, read before handing it back.
            unsafe {
                assert_eq!((*capsule).version.major, sys::FRUGAL_DLPACK_MAJOR_VERSION);
                let dl = &(*capsule).dl_tensor;
                assert_eq!((dl.ndim, dl.dtype.code, dl.dtype.bits, dl.dtype.lanes), (2, sys::FRUGAL_DLPACK_FLOAT, 32, 1));
                assert_eq!(std::slice::from_raw_parts(dl.shape, 2), &[4, 5]);
                assert_eq!(dl.data as *const f32, data, "export must not copy");
                ManagedTensor::from_dlpack_versioned(capsule).unwrap()
            }
        } else {
            let capsule = t.into_dlpack().map_err(|(e, _)| e).unwrap();
            // SAFETY: as above, legacy struct.
            unsafe {
                assert_eq!((*capsule).dl_tensor.data as *const f32, data);
                ManagedTensor::from_dlpack(capsule).unwrap()
            }
        };
        assert_eq!(back.as_slice::<f32>().unwrap().as_ptr(), data, "import must not copy");
        assert_eq!(back.as_slice::<f32>().unwrap()[19], 9.5);
        assert_eq!(back.shape(), &[4, 5]);
    }
}
