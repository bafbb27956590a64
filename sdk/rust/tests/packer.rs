//! Packing a known length list: every sequence once, no pack over max_len,
//! and the per-pack attention inputs consistent with the plan.

mod common;

use frugal::{ErrorCode, Options, Packer};

const MAX_LEN: i64 = 16;
const LENGTHS: [i64; 8] = [9, 7, 5, 4, 12, 3, 16, 8];

fn packer() -> Packer {
    let context = common::context();
    let mut options = Options::new().unwrap();
    options.set_int("max_len", MAX_LEN).unwrap();
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
