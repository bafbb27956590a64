//! Communicators on the `local` backend (a group of one, every collective a
//! copy): each collective with every dtype the header lists against the
//! values sent, reductions' dtype rules, the v-collectives' counts and
//! displacements (elements outside every part untouched), the core's
//! argument checks and the binding's own as `frugal::Error`s, split,
//! timeouts, a comm as an option and on another thread. Across ranks:
//! tests/comm_mpi.rs runs examples/comm_ranks.rs under mpirun.

mod common;

use std::fmt::Debug;

use frugal::{Comm, DType, Element, ErrorCode, OptionType, Options, ReduceOp, TensorMut, TensorRef};

const OPS: [ReduceOp; 3] = [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min];

fn local() -> Comm {
    Comm::new(&common::context(), "local", None).expect("the local comm")
}

fn view<T: Element>(data: &[T], dtype: DType) -> TensorRef<'_> {
    TensorRef::with_dtype(data, dtype, &[data.len() as i64]).unwrap()
}

fn view_mut<T: Element>(data: &mut [T], dtype: DType) -> TensorMut<'_> {
    let len = data.len() as i64;
    TensorMut::with_dtype(data, dtype, &[len]).unwrap()
}

/// Eight distinct values of `dtype` in a Rust type that carries it, and a
/// fill value none of them equals (what "untouched" looks like). Every
/// dtype of frugal/tensor.h: the collectives that do not reduce take any.
macro_rules! for_every_dtype {
    ($f:ident, $($arg:expr),*) => {{
        $f($($arg,)* DType::F32, &[1.5f32, -2.0, 0.0, 3.25, 1e-3, -7.5, 1e30, 42.0], -1.0f32);
        // IEEE half and bfloat16 as raw bits: 1, -2, 0.5, 65504 (max), ...
        $f($($arg,)* DType::F16, &[0x3c00u16, 0xc000, 0x3800, 0x7bff, 0x0001, 0x8000, 0x4248, 0x5640], 0xffffu16);
        $f($($arg,)* DType::BF16, &[0x3f80u16, 0xc000, 0x3f00, 0x7f7f, 0x0001, 0x8000, 0x4049, 0x4228], 0xffffu16);
        $f($($arg,)* DType::F64, &[1.5f64, -2.0, 0.0, 3.25, 1e-300, -7.5, 1e300, 42.0], -1.0f64);
        $f($($arg,)* DType::F8E4M3, &[0x38u8, 0xb8, 0x00, 0x7e, 0x01, 0x80, 0x40, 0x22], 0x7fu8);
        $f($($arg,)* DType::F8E5M2, &[0x3cu8, 0xbc, 0x00, 0x7b, 0x01, 0x80, 0x40, 0x22], 0x7fu8);
        $f($($arg,)* DType::F8E8M0, &[0x7fu8, 0x80, 0x00, 0xfe, 0x01, 0x20, 0x40, 0x22], 0xffu8);
        $f($($arg,)* DType::I8, &[1i8, -2, 0, 127, -128, 5, -7, 42], 99i8);
        $f($($arg,)* DType::U8, &[1u8, 2, 0, 255, 128, 5, 7, 42], 99u8);
        $f($($arg,)* DType::I16, &[1i16, -2, 0, i16::MAX, i16::MIN, 5, -7, 42], 99i16);
        $f($($arg,)* DType::I32, &[1i32, -2, 0, i32::MAX, i32::MIN, 5, -7, 42], 99i32);
        $f($($arg,)* DType::I64, &[1i64, -2, 0, i64::MAX, i64::MIN, 5, -7, 42], 99i64);
        $f($($arg,)* DType::Bool, &[1u8, 0, 0, 1, 1, 0, 1, 0], 7u8);
    }};
}

/// The dtypes sum, max and min take (comm.h); `U8` takes max and min only.
fn reducible(dtype: DType, op: ReduceOp) -> bool {
    match dtype {
        DType::F32 | DType::F64 | DType::F16 | DType::BF16 | DType::I32 | DType::I64 => true,
        DType::U8 => op != ReduceOp::Sum,
        _ => false,
    }
}

#[test]
fn a_local_comm_is_a_group_of_one_on_the_host() {
    let comm = local();
    assert_eq!((comm.rank(), comm.size(), comm.device_type()), (0, 1, frugal::sys::FRUGAL_DEVICE_CPU));
    assert_eq!(Comm::COLOR_NONE, -1);
    assert_eq!(Comm::DEFAULT_TIMEOUT_MS, 300_000);
    let raw: Vec<i32> = OPS.iter().map(|op| op.raw()).collect();
    assert_eq!(raw, [frugal::sys::FRUGAL_REDUCE_SUM, frugal::sys::FRUGAL_REDUCE_MAX, frugal::sys::FRUGAL_REDUCE_MIN]);
    comm.barrier().unwrap();
}

/// One rank's all-reduce and reduce-scatter are copies for every pairing
/// the header allows, into recv and in place; every other pairing is
/// UNSUPPORTED naming the operation, the reduction and the dtype, and
/// leaves recv as it was.
fn reduces_as_the_header_says<T: Element + PartialEq + Debug>(comm: &Comm, dtype: DType, values: &[T], fill: T) {
    for op in OPS {
        let op_name = format!("{:?}", op).to_lowercase();
        let mut recv = vec![fill; values.len()];
        let all_reduce = comm.all_reduce(&view(values, dtype), &mut view_mut(&mut recv, dtype), op);
        let mut scattered = vec![fill; values.len()];
        let reduce_scatter = comm.reduce_scatter(&view(values, dtype), &mut view_mut(&mut scattered, dtype), op);
        let mut in_place = values.to_vec();
        let in_place_result = comm.all_reduce_in_place(&mut view_mut(&mut in_place, dtype), op);
        if reducible(dtype, op) {
            all_reduce.unwrap_or_else(|e| panic!("all_reduce {:?} of {:?}: {}", op, dtype, e));
            reduce_scatter.unwrap_or_else(|e| panic!("reduce_scatter {:?} of {:?}: {}", op, dtype, e));
            in_place_result.unwrap_or_else(|e| panic!("in-place all_reduce {:?} of {:?}: {}", op, dtype, e));
            assert_eq!(recv, values, "all_reduce {:?} of {:?}", op, dtype);
            assert_eq!(scattered, values, "reduce_scatter {:?} of {:?}", op, dtype);
            assert_eq!(in_place, values, "in-place all_reduce {:?} of {:?}", op, dtype);
        } else {
            let refusal = format!("{} of {} is not supported", op_name, dtype.name());
            common::expect_error(all_reduce, ErrorCode::Unsupported, &["all_reduce", &refusal]);
            common::expect_error(reduce_scatter, ErrorCode::Unsupported, &["reduce_scatter", &refusal]);
            common::expect_error(in_place_result, ErrorCode::Unsupported, &["all_reduce", &refusal]);
            assert!(recv.iter().chain(&scattered).all(|v| *v == fill), "{:?}: a refused reduction wrote", dtype);
            assert_eq!(in_place, values);
        }
    }
}

#[test]
fn reductions_take_the_dtypes_the_header_lists() {
    let comm = local();
    for_every_dtype!(reduces_as_the_header_says, &comm);
}

#[test]
fn uint8_has_max_and_min_but_sum_is_unsupported() {
    let comm = local();
    let codes: Vec<u8> = (0..16).map(|i| 255 - 3 * i).collect();
    for op in [ReduceOp::Max, ReduceOp::Min] {
        let mut out = vec![0u8; 16];
        comm.all_reduce(&TensorRef::new(&codes, &[4, 4]).unwrap(), &mut TensorMut::new(&mut out, &[4, 4]).unwrap(), op)
            .unwrap();
        assert_eq!(out, codes, "{:?}", op);
    }
    let mut out = vec![0u8; 16];
    let refused = comm.all_reduce(
        &TensorRef::new(&codes, &[16]).unwrap(),
        &mut TensorMut::new(&mut out, &[16]).unwrap(),
        ReduceOp::Sum,
    );
    common::expect_error(refused, ErrorCode::Unsupported, &["all_reduce", "sum of uint8", "max and min also uint8"]);
    assert_eq!(out, vec![0u8; 16]);
}

/// Broadcast, all-gather, all-to-all and their v forms with one rank:
/// the data sent lands where the counts and displacements say, and every
/// other element keeps the fill value.
fn moves_any_dtype<T: Element + PartialEq + Debug>(comm: &Comm, dtype: DType, values: &[T], fill: T) {
    let n = values.len();
    let what = format!("{:?}", dtype);

    let mut buffer = values.to_vec();
    comm.broadcast(&mut view_mut(&mut buffer, dtype), 0).unwrap();
    assert_eq!(buffer, values, "broadcast of {}", what);

    let mut gathered = vec![fill; n];
    comm.all_gather(&view(values, dtype), &mut view_mut(&mut gathered, dtype)).unwrap();
    assert_eq!(gathered, values, "all_gather of {}", what);

    let mut exchanged = vec![fill; n];
    comm.all_to_all(&view(values, dtype), &mut view_mut(&mut exchanged, dtype)).unwrap();
    assert_eq!(exchanged, values, "all_to_all of {}", what);

    // all_gather_v: the part at displacement 2 of a larger recv.
    let mut parts = vec![fill; n + 3];
    comm.all_gather_v(&view(values, dtype), &mut view_mut(&mut parts, dtype), &[n], Some(&[2])).unwrap();
    assert_eq!(&parts[2..n + 2], values, "all_gather_v of {}", what);
    assert_eq!([parts[0], parts[1], parts[n + 2]], [fill; 3], "all_gather_v of {} wrote outside its part", what);

    // all_to_all_v: elements 3..6 of send land at 1..4 of recv.
    let mut moved = vec![fill; n];
    comm.all_to_all_v(&view(values, dtype), &[3], Some(&[3]), &mut view_mut(&mut moved, dtype), &[3], Some(&[1]))
        .unwrap();
    let mut expected = vec![fill; n];
    expected[1..4].copy_from_slice(&values[3..6]);
    assert_eq!(moved, expected, "all_to_all_v of {}", what);
}

#[test]
fn every_dtype_is_broadcast_gathered_and_exchanged() {
    let comm = local();
    for_every_dtype!(moves_any_dtype, &comm);
}

#[test]
fn v_collectives_honour_counts_and_displacements() {
    let comm = local();
    let x: Vec<f32> = (0..8).map(|i| 10.0 + i as f32).collect();

    // Packed (no displacements): the part starts at element 0.
    let mut recv = vec![99.0f32; 8];
    comm.all_to_all_v(
        &TensorRef::new(&x[..5], &[5]).unwrap(),
        &[5],
        None,
        &mut TensorMut::new(&mut recv, &[8]).unwrap(),
        &[5],
        None,
    )
    .unwrap();
    assert_eq!(recv, [10.0, 11.0, 12.0, 13.0, 14.0, 99.0, 99.0, 99.0]);

    // Displaced on both sides; a 2-d recv is counted in elements.
    let mut grid = vec![99.0f32; 8];
    comm.all_to_all_v(
        &TensorRef::new(&x, &[8]).unwrap(),
        &[3],
        Some(&[4]),
        &mut TensorMut::new(&mut grid, &[2, 4]).unwrap(),
        &[3],
        Some(&[2]),
    )
    .unwrap();
    assert_eq!(grid, [99.0, 99.0, 14.0, 15.0, 16.0, 99.0, 99.0, 99.0]);

    // Zero counts move nothing, even from an empty send.
    let mut untouched = vec![7.0f32; 4];
    comm.all_to_all_v(
        &TensorRef::new(&x[..0], &[0]).unwrap(),
        &[0],
        None,
        &mut TensorMut::new(&mut untouched, &[4]).unwrap(),
        &[0],
        Some(&[3]),
    )
    .unwrap();
    assert_eq!(untouched, [7.0; 4]);

    // all_gather_v, packed, into a longer recv.
    let mut gathered = vec![-1i64; 5];
    let ints = [4i64, -5, 6];
    comm.all_gather_v(
        &TensorRef::new(&ints, &[3]).unwrap(),
        &mut TensorMut::new(&mut gathered, &[5]).unwrap(),
        &[3],
        None,
    )
    .unwrap();
    assert_eq!(gathered, [4, -5, 6, -1, -1]);
}

#[test]
fn the_core_refuses_bad_calls_naming_them() {
    let comm = local();
    let x = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let send = TensorRef::new(&x, &[8]).unwrap();

    let mut wide = vec![0.0f64; 8];
    common::expect_error(
        comm.all_reduce(&send, &mut TensorMut::new(&mut wide, &[8]).unwrap(), ReduceOp::Sum),
        ErrorCode::InvalidArgument,
        &["comm 'local'", "all_reduce", "send has dtype float32 and recv dtype float64"],
    );
    let mut short = vec![0.0f32; 4];
    common::expect_error(
        comm.all_reduce(&send, &mut TensorMut::new(&mut short, &[4]).unwrap(), ReduceOp::Max),
        ErrorCode::InvalidArgument,
        &["all_reduce", "recv has 4 elements; expected 8"],
    );
    let mut long = vec![0.0f32; 9];
    common::expect_error(
        comm.all_gather(&send, &mut TensorMut::new(&mut long, &[9]).unwrap()),
        ErrorCode::InvalidArgument,
        &["all_gather", "recv has 9 elements; expected 8"],
    );
    common::expect_error(
        comm.reduce_scatter(&send, &mut TensorMut::new(&mut short, &[4]).unwrap(), ReduceOp::Sum),
        ErrorCode::InvalidArgument,
        &["reduce_scatter", "send has 8 elements; expected 4"],
    );
    common::expect_error(
        comm.all_to_all(&send, &mut TensorMut::new(&mut short, &[4]).unwrap()),
        ErrorCode::InvalidArgument,
        &["all_to_all", "recv has 4 elements; expected 8"],
    );
    // Parts outside their tensors.
    common::expect_error(
        comm.all_to_all_v(
            &TensorRef::new(&x[..4], &[4]).unwrap(),
            &[5],
            None,
            &mut TensorMut::new(&mut long, &[9]).unwrap(),
            &[5],
            None,
        ),
        ErrorCode::OutOfRange,
        &["all_to_all_v", "send part 0 (elements 0..5) lies outside its 4 elements"],
    );
    common::expect_error(
        comm.all_to_all_v(&send, &[3], None, &mut TensorMut::new(&mut long, &[9]).unwrap(), &[3], Some(&[7])),
        ErrorCode::OutOfRange,
        &["all_to_all_v", "recv part 0 (elements 7..10) lies outside its 9 elements"],
    );
    common::expect_error(
        comm.all_gather_v(&send, &mut TensorMut::new(&mut long, &[9]).unwrap(), &[8], Some(&[2])),
        ErrorCode::OutOfRange,
        &["all_gather_v", "recv part 0"],
    );
    // This rank's count must be what it sends.
    common::expect_error(
        comm.all_gather_v(&send, &mut TensorMut::new(&mut long, &[9]).unwrap(), &[7], None),
        ErrorCode::InvalidArgument,
        &["all_gather_v", "recv_counts[0] (this rank) is 7, but send has 8 elements"],
    );
    let mut ints = vec![0i32; 8];
    common::expect_error(
        comm.all_to_all_v(&send, &[8], None, &mut TensorMut::new(&mut ints, &[8]).unwrap(), &[8], None),
        ErrorCode::InvalidArgument,
        &["all_to_all_v", "send has dtype float32 and recv dtype int32"],
    );
    common::expect_error(
        comm.all_gather_v(&send, &mut TensorMut::new(&mut ints, &[8]).unwrap(), &[8], None),
        ErrorCode::InvalidArgument,
        &["all_gather_v", "dtype"],
    );
    // Roots outside the group.
    let mut buffer = x.to_vec();
    for root in [1, -1] {
        common::expect_error(
            comm.broadcast(&mut TensorMut::new(&mut buffer, &[8]).unwrap(), root),
            ErrorCode::OutOfRange,
            &["broadcast", &format!("root {} is outside the group's ranks 0..0", root)],
        );
    }
    // Nothing above was written.
    assert_eq!(buffer, x);
    assert!(
        short.iter().chain(&long).all(|v| *v == 0.0) && wide.iter().all(|v| *v == 0.0) && ints.iter().all(|v| *v == 0)
    );
}

#[test]
fn counts_of_the_wrong_length_are_refused_before_the_call() {
    // The C side reads one entry per rank whatever the slice holds, so the
    // binding refuses other lengths itself.
    let comm = local();
    let x = [1.0f32, 2.0, 3.0, 4.0];
    let send = TensorRef::new(&x, &[4]).unwrap();
    let mut recv = vec![0.0f32; 4];
    common::expect_error(
        comm.all_to_all_v(&send, &[1, 2], None, &mut TensorMut::new(&mut recv, &[4]).unwrap(), &[3], None),
        ErrorCode::InvalidArgument,
        &["all_to_all_v", "send_counts has 2 entries; the group has 1 ranks"],
    );
    common::expect_error(
        comm.all_to_all_v(&send, &[3], Some(&[]), &mut TensorMut::new(&mut recv, &[4]).unwrap(), &[3], None),
        ErrorCode::InvalidArgument,
        &["send_displs has 0 entries"],
    );
    common::expect_error(
        comm.all_to_all_v(&send, &[3], None, &mut TensorMut::new(&mut recv, &[4]).unwrap(), &[], None),
        ErrorCode::InvalidArgument,
        &["recv_counts has 0 entries"],
    );
    common::expect_error(
        comm.all_to_all_v(&send, &[3], None, &mut TensorMut::new(&mut recv, &[4]).unwrap(), &[3], Some(&[0, 0, 0])),
        ErrorCode::InvalidArgument,
        &["recv_displs has 3 entries"],
    );
    common::expect_error(
        comm.all_gather_v(&send, &mut TensorMut::new(&mut recv, &[4]).unwrap(), &[4, 0], None),
        ErrorCode::InvalidArgument,
        &["all_gather_v", "recv_counts has 2 entries"],
    );
    common::expect_error(
        comm.all_gather_v(&send, &mut TensorMut::new(&mut recv, &[4]).unwrap(), &[4], Some(&[])),
        ErrorCode::InvalidArgument,
        &["all_gather_v", "recv_displs has 0 entries"],
    );
    assert_eq!(recv, [0.0; 4]);
}

#[test]
fn split_makes_sub_groups_and_color_none_makes_none() {
    let comm = local();
    assert!(comm.split(Comm::COLOR_NONE, 0).unwrap().is_none());
    let sub = comm.split(3, 9).unwrap().expect("color 3 makes a sub-group");
    assert_eq!((sub.rank(), sub.size(), sub.device_type()), (0, 1, frugal::sys::FRUGAL_DEVICE_CPU));
    common::expect_error(comm.split(-2, 0), ErrorCode::InvalidArgument, &["split", "color -2 is negative"]);
    // The sub-group is a comm of its own: it outlives its parent.
    drop(comm);
    let x = [3i32, -1, 4];
    let mut out = [0i32; 3];
    sub.all_reduce(&TensorRef::new(&x, &[3]).unwrap(), &mut TensorMut::new(&mut out, &[3]).unwrap(), ReduceOp::Sum)
        .unwrap();
    assert_eq!(out, x);
    let nested = sub.split(0, 0).unwrap().expect("a sub-group of a sub-group");
    assert_eq!(nested.size(), 1);
}

#[test]
fn timeouts_must_be_positive() {
    let comm = local();
    common::expect_error(comm.set_timeout(0), ErrorCode::InvalidArgument, &["comm 'local'", "timeout_ms is 0; expected > 0"]);
    common::expect_error(comm.set_timeout(-5), ErrorCode::InvalidArgument, &["timeout_ms is -5"]);
    comm.set_timeout(1000).unwrap();
    let mut buffer = [1.0f64, 2.0];
    comm.all_reduce_in_place(&mut TensorMut::new(&mut buffer, &[2]).unwrap(), ReduceOp::Sum).unwrap();
    assert_eq!(buffer, [1.0, 2.0]);
}

#[test]
fn a_comm_is_an_option_that_outlives_its_handle() {
    let comm = local();
    let mut options = Options::new().unwrap();
    options.set_int("before", 1).unwrap().set_comm("group", &comm).unwrap();
    assert_eq!(options.value_type("group"), Some(OptionType::Comm));
    assert_eq!(OptionType::Comm.raw(), frugal::sys::FRUGAL_OPTION_COMM);
    drop(comm); // the options still hold it
    assert_eq!(
        options.entries().unwrap(),
        vec![("before".to_string(), OptionType::Int), ("group".to_string(), OptionType::Comm)]
    );
    let mut held = std::ptr::null_mut();
    // SAFETY: live options; the handle is borrowed from them and only read.
    let size = unsafe {
        assert!(frugal::sys::frugal_options_get_comm(options.as_ptr(), b"group\0".as_ptr() as *const _, &mut held)
            .is_null());
        assert!(!held.is_null());
        frugal::sys::frugal_comm_size(held)
    };
    assert_eq!(size, 1);
    common::expect_error(options.get_int("group", 0), ErrorCode::InvalidArgument, &["group"]);
}

#[test]
fn a_comm_moves_to_another_thread() {
    fn send<T: Send>(value: T) -> T {
        value
    }
    let comm = send(local());
    let other = local();
    let worker = std::thread::spawn(move || {
        let mut values = [5i64, 6, 7];
        comm.all_reduce_in_place(&mut TensorMut::new(&mut values, &[3]).unwrap(), ReduceOp::Max).unwrap();
        values
    });
    // Different comms may be used from different threads at once.
    let mut here = [1.0f32; 2];
    other.all_reduce_in_place(&mut TensorMut::new(&mut here, &[2]).unwrap(), ReduceOp::Min).unwrap();
    assert_eq!(worker.join().unwrap(), [5, 6, 7]);
    assert_eq!(here, [1.0, 1.0]);
}

#[test]
fn unknown_backends_are_named() {
    let context = common::context();
    common::expect_error(Comm::new(&context, "no_such_backend", None), ErrorCode::NotFound, &["no_such_backend"]);
    common::expect_error(Comm::new(&context, "lo\0cal", None), ErrorCode::InvalidArgument, &["comm name", "NUL"]);
    // comm_local declares no options, so the core refuses any (comm_mpi's
    // check_calls included), naming it.
    let mut options = Options::new().unwrap();
    options.set_bool("check_calls", true).unwrap();
    common::expect_error(
        Comm::new(&context, "local", Some(&options)),
        ErrorCode::InvalidArgument,
        &["unknown option 'check_calls' (accepted: none)"],
    );
}
