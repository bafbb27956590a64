//! Every collective of `frugal::Comm` across ranks on the `mpi` backend.
//! Each rank checks each result against values it computes itself, then
//! prints "rank R: ok" and exits 0; on the first mismatch or error it names
//! it on stderr and exits 1, which makes mpirun end the job. Run by
//! tests/comm_mpi.rs:
//!
//! ```sh
//! cargo build --offline --example comm_ranks
//! mpirun -np 3 target/debug/examples/comm_ranks
//! ```

use std::fmt::Debug;

use frugal::{Comm, Context, Options, ReduceOp, TensorMut, TensorRef};

/// A check that failed: what, and how.
type Checked<T> = Result<T, String>;

/// Ends the process at once with `status`, without the exit handlers: the
/// mpi backend finalises MPI at exit, which would wait on peers that are
/// still inside a collective this rank abandoned, so a failing rank would
/// hang instead of failing the job.
fn exit_now(status: i32) -> ! {
    extern "C" {
        fn _exit(status: i32) -> !;
    }
    // SAFETY: _exit only ends the process; stdout and stderr are flushed
    // by the callers (they are line-buffered or unbuffered writes).
    unsafe { _exit(status) }
}

fn main() {
    let mut rank = None;
    match run(&mut rank) {
        Ok(r) => println!("rank {}: ok", r),
        Err(why) => {
            let who = rank.map_or("rank ?".to_string(), |r| format!("rank {}", r));
            eprintln!("{}: FAILED: {}", who, why);
            exit_now(1);
        }
    }
}

/// `result`'s value, or its error naming `what`.
fn call<T>(what: &str, result: frugal::Result<T>) -> Checked<T> {
    result.map_err(|e| format!("{}: {}", what, e))
}

fn expect<T: PartialEq + Debug>(what: &str, got: &[T], want: &[T]) -> Checked<()> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{}: got {:?}, expected {:?}", what, got, want))
    }
}

fn view<T: frugal::NativeElement>(data: &[T]) -> TensorRef<'_> {
    TensorRef::new(data, &[data.len() as i64]).expect("a 1-d view")
}

fn view_mut<T: frugal::NativeElement>(data: &mut [T]) -> TensorMut<'_> {
    let len = data.len() as i64;
    TensorMut::new(data, &[len]).expect("a 1-d view")
}

/// bfloat16 bits of a small integer (exact below 256).
fn bf16(n: u32) -> u16 {
    ((n as f32).to_bits() >> 16) as u16
}

/// IEEE half bits of a small integer (exact below 2048).
fn f16(n: u32) -> u16 {
    if n == 0 {
        return 0;
    }
    let e = 31 - n.leading_zeros();
    (((e + 15) << 10) | ((n << (10 - e)) & 0x3ff)) as u16
}

fn run(rank_out: &mut Option<i32>) -> Checked<i32> {
    let context = call("context", Context::new())?;
    // The built-in plugins only, as the crate's tests.
    call("discovery", context.discover_plugins_with(frugal::sys::FRUGAL_DISCOVER_NO_ENV))?;
    let mut options = call("options", Options::new())?;
    call("options", options.set_bool("check_calls", true))?;
    let world = call("create", Comm::new(&context, "mpi", Some(&options)))?;
    let (rank, size) = (world.rank(), world.size());
    *rank_out = Some(rank);
    // A lost peer fails a call within this, never hangs the test.
    call("set_timeout", world.set_timeout(30_000))?;
    let (r, n) = (rank as usize, size as usize);

    all_reduce(&world, r, n)?;
    broadcast(&world, r, n)?;
    gathers(&world, r, n)?;
    reduce_scatter(&world, r, n)?;
    all_to_all(&world, r, n)?;
    all_to_all_v(&world, r, n)?;
    split(&world, r, n)?;
    call("barrier", world.barrier())?;
    Ok(rank)
}

fn all_reduce(world: &Comm, r: usize, n: usize) -> Checked<()> {
    // Sum: x[i] = i + r over ranks is n i + n (n - 1) / 2.
    let x: Vec<f64> = (0..10).map(|i| (i + r) as f64).collect();
    let mut sum = vec![0.0f64; 10];
    call("all_reduce f64 sum", world.all_reduce(&view(&x), &mut view_mut(&mut sum), ReduceOp::Sum))?;
    let want: Vec<f64> = (0..10).map(|i| (n * i) as f64 + (n * (n - 1) / 2) as f64).collect();
    expect("all_reduce f64 sum", &sum, &want)?;

    let ri = r as i32;
    let mut ints = vec![ri, -ri];
    call("all_reduce i32 max", world.all_reduce_in_place(&mut view_mut(&mut ints), ReduceOp::Max))?;
    expect("all_reduce i32 max", &ints, &[n as i32 - 1, 0])?;
    let mut ints = vec![ri, -ri];
    call("all_reduce i32 min", world.all_reduce_in_place(&mut view_mut(&mut ints), ReduceOp::Min))?;
    expect("all_reduce i32 min", &ints, &[0, 1 - n as i32])?;

    let mut wide = vec![1i64 << 40, r as i64];
    call("all_reduce i64 sum", world.all_reduce_in_place(&mut view_mut(&mut wide), ReduceOp::Sum))?;
    expect("all_reduce i64 sum", &wide, &[(n as i64) << 40, (n * (n - 1) / 2) as i64])?;

    let mut codes = vec![10 * r as u8, 200 - r as u8];
    call("all_reduce u8 max", world.all_reduce_in_place(&mut view_mut(&mut codes), ReduceOp::Max))?;
    expect("all_reduce u8 max", &codes, &[10 * (n as u8 - 1), 200])?;

    // The 2-byte floats, reduced by comm_mpi's own reductions: sums of
    // small integers are exact.
    let ones = (r + 1) as u32;
    let total = (n * (n + 1) / 2) as u32;
    for (name, dtype, bits) in
        [("bf16", frugal::DType::BF16, bf16 as fn(u32) -> u16), ("f16", frugal::DType::F16, f16 as fn(u32) -> u16)]
    {
        let mut half = vec![bits(ones), bits(2 * ones)];
        let what = format!("all_reduce {} sum", name);
        let mut v = TensorMut::with_dtype(&mut half, dtype, &[2]).expect("a 2-byte view");
        call(&what, world.all_reduce_in_place(&mut v, ReduceOp::Sum))?;
        expect(&what, &half, &[bits(total), bits(2 * total)])?;
    }
    Ok(())
}

fn broadcast(world: &Comm, r: usize, n: usize) -> Checked<()> {
    let mut b = vec![r as f32; 4];
    call("broadcast", world.broadcast(&mut view_mut(&mut b), n as i32 - 1))?;
    expect("broadcast", &b, &[(n - 1) as f32; 4])?;
    // A root outside the group is refused on every rank before any
    // traffic, and leaves the comm usable.
    match world.broadcast(&mut view_mut(&mut b), n as i32) {
        Err(e) if e.code() == frugal::ErrorCode::OutOfRange => Ok(()),
        other => Err(format!("broadcast from root {}: expected OUT_OF_RANGE, got {:?}", n, other.err())),
    }
}

fn gathers(world: &Comm, r: usize, n: usize) -> Checked<()> {
    let mine = [10 * r as i32, 10 * r as i32 + 1];
    let mut all = vec![-1i32; 2 * n];
    call("all_gather", world.all_gather(&view(&mine), &mut view_mut(&mut all)))?;
    let want: Vec<i32> = (0..n as i32).flat_map(|q| [10 * q, 10 * q + 1]).collect();
    expect("all_gather", &all, &want)?;

    // Rank q sends q + 1 elements of value q: packed, then with a one
    // element gap before each part, which stays untouched.
    let counts: Vec<usize> = (1..=n).collect();
    let send = vec![r as i64; r + 1];
    let mut packed = vec![-1i64; counts.iter().sum()];
    call("all_gather_v", world.all_gather_v(&view(&send), &mut view_mut(&mut packed), &counts, None))?;
    let want: Vec<i64> = (0..n).flat_map(|q| vec![q as i64; q + 1]).collect();
    expect("all_gather_v packed", &packed, &want)?;

    let displs: Vec<usize> = (0..n).map(|q| q * (q + 1) / 2 + q + 1).collect();
    let mut spaced = vec![-1i64; counts.iter().sum::<usize>() + n];
    call("all_gather_v", world.all_gather_v(&view(&send), &mut view_mut(&mut spaced), &counts, Some(&displs)))?;
    let want: Vec<i64> = (0..n).flat_map(|q| std::iter::once(-1).chain(vec![q as i64; q + 1])).collect();
    expect("all_gather_v displaced", &spaced, &want)
}

fn reduce_scatter(world: &Comm, r: usize, n: usize) -> Checked<()> {
    // Block q of the sum of 0..2n on every rank is n * [2q, 2q + 1].
    let send: Vec<f32> = (0..2 * n).map(|i| i as f32).collect();
    let mut block = vec![0.0f32; 2];
    call("reduce_scatter sum", world.reduce_scatter(&view(&send), &mut view_mut(&mut block), ReduceOp::Sum))?;
    expect("reduce_scatter sum", &block, &[(n * 2 * r) as f32, (n * (2 * r + 1)) as f32])?;
    // Max over ranks of 100 rank + i is 100 (n - 1) + i.
    let send: Vec<i32> = (0..2 * n).map(|i| (100 * r + i) as i32).collect();
    let mut block = vec![0i32; 2];
    call("reduce_scatter max", world.reduce_scatter(&view(&send), &mut view_mut(&mut block), ReduceOp::Max))?;
    let top = 100 * (n - 1) as i32;
    expect("reduce_scatter max", &block, &[top + 2 * r as i32, top + 2 * r as i32 + 1])
}

fn all_to_all(world: &Comm, r: usize, n: usize) -> Checked<()> {
    // Block p (two elements) of rank q's send is [100 q + p, -(100 q + p)].
    let send: Vec<i64> = (0..n).flat_map(|p| [(100 * r + p) as i64, -((100 * r + p) as i64)]).collect();
    let mut recv = vec![0i64; 2 * n];
    call("all_to_all", world.all_to_all(&view(&send), &mut view_mut(&mut recv)))?;
    let want: Vec<i64> = (0..n).flat_map(|q| [(100 * q + r) as i64, -((100 * q + r) as i64)]).collect();
    expect("all_to_all", &recv, &want)
}

fn all_to_all_v(world: &Comm, r: usize, n: usize) -> Checked<()> {
    // Rank q sends (q + p) % 3 elements of value 100 q + p to peer p:
    // uneven, zeros included.
    let send_counts: Vec<usize> = (0..n).map(|p| (r + p) % 3).collect();
    let recv_counts: Vec<usize> = (0..n).map(|q| (q + r) % 3).collect();
    let send: Vec<f32> = (0..n).flat_map(|p| vec![(100 * r + p) as f32; send_counts[p]]).collect();
    let want: Vec<f32> = (0..n).flat_map(|q| vec![(100 * q + r) as f32; recv_counts[q]]).collect();
    let mut recv = vec![-1.0f32; want.len()];
    call(
        "all_to_all_v",
        world.all_to_all_v(&view(&send), &send_counts, None, &mut view_mut(&mut recv), &recv_counts, None),
    )?;
    expect("all_to_all_v packed", &recv, &want)?;

    // The same exchange with the send parts stored in reverse peer order
    // and a one-element gap before each received part.
    let mut send_displs = vec![0usize; n];
    let mut at = 0;
    for p in (0..n).rev() {
        send_displs[p] = at;
        at += send_counts[p];
    }
    let reversed: Vec<f32> = (0..n).rev().flat_map(|p| vec![(100 * r + p) as f32; send_counts[p]]).collect();
    let recv_displs: Vec<usize> = (0..n).map(|q| recv_counts[..q].iter().sum::<usize>() + q + 1).collect();
    let mut spaced = vec![-1.0f32; want.len() + n];
    call(
        "all_to_all_v",
        world.all_to_all_v(
            &view(&reversed),
            &send_counts,
            Some(&send_displs),
            &mut view_mut(&mut spaced),
            &recv_counts,
            Some(&recv_displs),
        ),
    )?;
    let want: Vec<f32> =
        (0..n).flat_map(|q| std::iter::once(-1.0).chain(vec![(100 * q + r) as f32; recv_counts[q]])).collect();
    expect("all_to_all_v displaced", &spaced, &want)
}

fn split(world: &Comm, r: usize, n: usize) -> Checked<()> {
    // Even and odd ranks, ranked by descending world rank (key -rank).
    let half = call("split", world.split((r % 2) as i32, -(r as i32)))?.ok_or("split: a color gave no sub-group")?;
    let members: Vec<i32> = (0..n as i32).filter(|q| *q as usize % 2 == r % 2).rev().collect();
    let got = (half.rank(), half.size());
    let want = (members.iter().position(|q| *q as usize == r).unwrap() as i32, members.len() as i32);
    if got != want {
        return Err(format!("split: rank {} of {}, expected {} of {}", got.0, got.1, want.0, want.1));
    }
    let me = [r as i32];
    let mut order = vec![-1i32; members.len()];
    call("all_gather in the sub-group", half.all_gather(&view(&me), &mut view_mut(&mut order)))?;
    expect("all_gather in the sub-group", &order, &members)?;

    // The last rank joins no sub-group; the others form one of n - 1.
    let last = r == n - 1;
    let color = if last { Comm::COLOR_NONE } else { 0 };
    let rest = call("split with COLOR_NONE", world.split(color, 0))?;
    match (last, rest) {
        (true, None) => Ok(()),
        (false, Some(rest)) if rest.size() == n as i32 - 1 && rest.rank() == r as i32 => {
            let mut count = [1i32];
            call("all_reduce in the rest", rest.all_reduce_in_place(&mut view_mut(&mut count), ReduceOp::Sum))?;
            expect("all_reduce in the rest", &count, &[n as i32 - 1])
        }
        (_, rest) => Err(format!("split with COLOR_NONE on rank {}: got {:?}", r, rest.map(|c| (c.rank(), c.size())))),
    }
}
