//! Packing a known length list: every sequence once, no pack over max_len,
//! and the per-pack attention inputs consistent with the plan; histograms;
//! the dense mask and the token/label gather against hand-computed rows;
//! streams handing out every pushed sequence exactly once.

mod common;

use common::Lcg;
use frugal::{ErrorCode, GatherInput, Options, PackStream, Packer, StreamPending};

const MAX_LEN: i64 = 16;
const LENGTHS: [i64; 8] = [9, 7, 5, 4, 12, 3, 16, 8];

fn packer() -> Packer {
    packer_of(MAX_LEN)
}

fn packer_of(max_len: i64) -> Packer {
    let context = common::context();
    let mut options = Options::new().unwrap();
    options.set_int("max_len", max_len).unwrap();
    Packer::new(&context, "packer_seq", &options).unwrap()
}

#[test]
fn every_sequence_exactly_once_and_no_pack_over_max_len() {
    let plan = packer().pack(&LENGTHS).unwrap();
    let total: i64 = LENGTHS.iter().sum();

    let mut seen = vec![0; LENGTHS.len()];
    for p in 0..plan.pack_count() {
        let ids = plan.pack(p);
        let tokens: i64 = ids.iter().map(|&id| LENGTHS[id as usize]).sum();
        assert!(tokens <= MAX_LEN, "pack {} holds {} tokens", p, tokens);
        assert_eq!(plan.pack_tokens()[p], tokens);
        assert_eq!(plan.pack_lengths(p), ids.iter().map(|&id| LENGTHS[id as usize]).collect::<Vec<_>>().as_slice());
        for &id in ids {
            seen[id as usize] += 1;
        }
    }
    assert_eq!(seen, vec![1; LENGTHS.len()]);
    assert_eq!(plan.unit_count(), LENGTHS.len());
    assert_eq!(plan.packs().iter().map(Vec::len).sum::<usize>(), LENGTHS.len());

    // 64 tokens in rows of 16 need at least 4 packs, and 4 suffice
    // (16 | 12+4 | 9+7 | 8+5+3): the packer must find a perfect packing.
    let stats = plan.stats().unwrap();
    assert_eq!(stats.real_tokens, total);
    assert_eq!(stats.max_len, MAX_LEN);
    assert_eq!(stats.units, LENGTHS.len() as i64);
    assert_eq!(stats.lower_bound, 4);
    assert_eq!(stats.lower_bound_tight, 4);
    assert_eq!(stats.packs, 4);
    assert_eq!(plan.pack_count(), 4);
    assert_eq!(stats.efficiency, 1.0);
}

#[test]
fn varlen_and_position_ids_follow_the_pack() {
    let plan = packer().pack(&LENGTHS).unwrap();
    for p in 0..plan.pack_count() {
        let lengths = plan.pack_lengths(p);
        let varlen = plan.varlen(p).unwrap();
        let mut expected = vec![0i32];
        for &len in lengths {
            expected.push(expected.last().unwrap() + len as i32);
        }
        assert_eq!(varlen.cu_seqlens, expected);
        assert_eq!(varlen.max_seqlen as i64, *lengths.iter().max().unwrap());

        let positions = plan.position_ids(p, MAX_LEN as usize).unwrap();
        let mut expected = Vec::new();
        for &len in lengths {
            expected.extend(0..len);
        }
        expected.resize(MAX_LEN as usize, 0);
        assert_eq!(positions, expected);
    }
    let err = plan.varlen(plan.pack_count()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::OutOfRange);
}

#[test]
fn overlong_sequence_is_refused_naming_it() {
    let err = packer().pack(&[4, MAX_LEN + 1]).err().expect("an error");
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains(&(MAX_LEN + 1).to_string()), "message: {}", err.message());
}

#[test]
fn plan_outlives_its_packer_and_moves_between_threads() {
    let plan = packer().pack(&LENGTHS).unwrap();
    let ids = std::thread::spawn(move || plan.packs()).join().unwrap();
    assert_eq!(ids.iter().map(Vec::len).sum::<usize>(), LENGTHS.len());
}

#[test]
fn a_histogram_numbers_sequences_in_bin_order() {
    let lengths = [5i64, 3, 8];
    let counts = [2i64, 0, 3];
    let plan = packer().pack_histogram(&lengths, &counts).unwrap();
    // ids 0, 1: 5 tokens; bin 1 is empty; ids 2, 3, 4: 8 tokens.
    let want = [5i64, 5, 8, 8, 8];
    let mut seen = vec![0; want.len()];
    for (&id, &len) in plan.sequence_ids().iter().zip(plan.unit_lengths()) {
        assert_eq!(len, want[id as usize], "sequence {}", id);
        seen[id as usize] += 1;
    }
    assert_eq!(seen, vec![1; want.len()]);
    assert!(plan.pack_tokens().iter().all(|&t| t <= MAX_LEN));
    // 34 tokens: at least 3 rows of 16, and 8+8 | 8+5 | 5+3... allows 3.
    let stats = plan.stats().unwrap();
    assert_eq!((stats.real_tokens, stats.lower_bound, stats.packs), (34, 3, 3));

    let err = packer().pack_histogram(&lengths, &counts[..2]).err().unwrap();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("3 lengths but 2 counts"), "{}", err.message());
    let err = packer().pack_histogram(&[4], &[0]).err().unwrap();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
}

/// Sequences of 3 and 2 tokens in rows of 5: one pack, the longer first.
fn two_sequence_plan() -> frugal::PackPlan {
    let plan = packer_of(5).pack(&[3, 2]).unwrap();
    assert_eq!(plan.packs(), vec![vec![0, 1]]);
    plan
}

#[test]
fn the_dense_mask_is_block_diagonal_causal() {
    let plan = two_sequence_plan();
    let mask = plan.mask(0, 6).unwrap();
    #[rustfmt::skip]
    let want: [u8; 36] = [
        1, 0, 0, 0, 0, 0,
        1, 1, 0, 0, 0, 0,
        1, 1, 1, 0, 0, 0,
        0, 0, 0, 1, 0, 0,
        0, 0, 0, 1, 1, 0,
        0, 0, 0, 0, 0, 1, // padding attends only to itself
    ];
    assert_eq!(mask, want.to_vec());
    // A side below the pack's 5 tokens (the header leaves the code open).
    let err = plan.mask(0, 4).unwrap_err();
    assert_eq!(err.code(), ErrorCode::OutOfRange, "{}", err);
    assert!(err.message().contains("side is 4"), "{}", err.message());
    assert_eq!(plan.mask(1, 6).unwrap_err().code(), ErrorCode::OutOfRange);
}

#[test]
fn gather_builds_the_token_and_label_rows() {
    let plan = two_sequence_plan();
    let tokens = [10i64, 11, 12, 20, 21];
    let offsets = [0i64, 3, 5];
    let mut input = GatherInput::new(&tokens, &offsets);
    input.pad_token = -1;
    let (mut out_tokens, mut out_labels) = ([0i64; 7], [0i64; 7]);
    plan.gather(0, &input, &mut out_tokens, Some(&mut out_labels)).unwrap();
    assert_eq!(out_tokens, [10, 11, 12, 20, 21, -1, -1]);
    assert_eq!(out_labels, [-100, 11, 12, -100, 21, -100, -100]);

    // Own labels, first labels kept, tokens only.
    let labels = [110i64, 111, 112, 120, 121];
    input.labels = Some(&labels);
    input.mask_first_label = false;
    input.ignore_index = -7;
    plan.gather(0, &input, &mut out_tokens, Some(&mut out_labels)).unwrap();
    assert_eq!(out_labels, [110, 111, 112, 120, 121, -7, -7]);
    let mut only_tokens = [0i64; 5];
    plan.gather(0, &input, &mut only_tokens, None).unwrap();
    assert_eq!(only_tokens, [10, 11, 12, 20, 21]);

    // Offsets past the tokens never reach the core.
    let err = plan.gather(0, &GatherInput::new(&tokens, &[0, 3, 6]), &mut out_tokens, None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("sequence_offsets[2] = 6"), "{}", err.message());
    // The core names a sequence shorter than the plan expects...
    let err = plan.gather(0, &GatherInput::new(&tokens, &[0, 3, 4]), &mut out_tokens, None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("sequence 1"), "{}", err.message());
    // ... and a sequence id the offsets do not describe.
    let err = plan.gather(0, &GatherInput::new(&tokens, &[0, 3]), &mut out_tokens, None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    // A row shorter than the pack.
    let err = plan.gather(0, &GatherInput::new(&tokens, &offsets), &mut [0i64; 4], None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::OutOfRange, "{}", err);
    assert!(err.message().contains("out_length is 4"), "{}", err.message());
}

#[test]
fn a_stream_hands_out_every_pushed_sequence_exactly_once() {
    const WINDOW: usize = 8;
    const PUSHED: usize = 40;
    let mut options = Options::new().unwrap();
    options.set_int("window", WINDOW as i64).unwrap().set_int("max_rounds", 2).unwrap();
    let packer = packer();
    let mut stream = PackStream::new(&packer, Some(&options)).unwrap();
    drop(packer); // the stream keeps what it needs

    assert_eq!(stream.pending().unwrap(), StreamPending { held: 0, ready: 0 });
    assert_eq!(stream.pop().unwrap().pack_count(), 0, "nothing ready yet");

    let mut rng = Lcg(99);
    let mut lengths = std::collections::BTreeMap::new();
    let mut out: Vec<(i64, i64)> = Vec::new();
    let drain = |stream: &mut PackStream, out: &mut Vec<(i64, i64)>| {
        let plan = stream.pop().unwrap();
        assert!(plan.pack_tokens().iter().all(|&t| t <= MAX_LEN));
        out.extend(plan.sequence_ids().iter().copied().zip(plan.unit_lengths().iter().copied()));
        plan.pack_count()
    };
    for i in 0..PUSHED {
        let id = 1000 + i as i64;
        let len = 1 + ((rng.uniform() + 1.0) * 7.99) as i64; // 1..=16
        lengths.insert(id, len);
        stream.push(id, len).unwrap();
        let pending = stream.pending().unwrap();
        assert!(pending.held <= WINDOW, "{:?}", pending);
        if i + 1 < WINDOW {
            // The window has not filled yet: everything is held.
            assert_eq!(pending, StreamPending { held: i + 1, ready: 0 });
        }
        if i % 5 == 4 {
            let popped = drain(&mut stream, &mut out);
            assert_eq!(popped, pending.ready, "pop takes every ready pack");
            assert_eq!(stream.pending().unwrap(), StreamPending { held: pending.held, ready: 0 });
        }
        // Units popped so far and units held account for every push.
        let pending = stream.pending().unwrap();
        if pending.ready == 0 {
            assert_eq!(out.len() + pending.held, i + 1);
        }
    }
    stream.flush().unwrap();
    let pending = stream.pending().unwrap();
    assert_eq!(pending.held, 0, "flush packs everything held");
    assert!(pending.ready > 0);
    drain(&mut stream, &mut out);
    assert_eq!(stream.pending().unwrap(), StreamPending { held: 0, ready: 0 });

    out.sort_unstable();
    let want: Vec<(i64, i64)> = lengths.into_iter().collect();
    assert_eq!(out, want, "every sequence once, with its length");

    // The stream stays usable after a flush; the overlong policy applies.
    stream.push(1, 4).unwrap();
    assert_eq!(stream.pending().unwrap(), StreamPending { held: 1, ready: 0 });
    let err = stream.push(2, MAX_LEN + 1).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    assert_eq!(stream.pending().unwrap(), StreamPending { held: 1, ready: 0 }, "a refused push changes nothing");
}
