//! Tour steps 2 and 3: the cosine schedule against its closed form, and
//! packing 256 sequences into rows of 2048 tokens.

use frugal::{Context, Options, Packer, Schedule};

use crate::check::{ensure, sci, StepResult};
use crate::random::Lcg;

pub const LR: f64 = 3e-4;
pub const MIN_LR: f64 = 3e-5;
pub const WARMUP_STEPS: i64 = 100;
pub const TOTAL_STEPS: i64 = 1000;

/// The options of the tour's cosine schedule (steps 2 and 6 share them).
pub fn cosine_options() -> frugal::Result<Options> {
    let mut options = Options::new()?;
    options
        .set_double("lr", LR)?
        .set_double("min_lr", MIN_LR)?
        .set_int("warmup_steps", WARMUP_STEPS)?
        .set_int("total_steps", TOTAL_STEPS)?;
    Ok(options)
}

/// The closed form of the cosine schedule at `step`.
fn cosine_closed_form(step: i64) -> f64 {
    if step < WARMUP_STEPS {
        LR * (step + 1) as f64 / WARMUP_STEPS as f64
    } else if step < TOTAL_STEPS {
        let progress = (step - WARMUP_STEPS) as f64 / (TOTAL_STEPS - WARMUP_STEPS) as f64;
        MIN_LR + (LR - MIN_LR) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
    } else {
        MIN_LR
    }
}

/// Step 2.
pub fn schedule(context: &Context) -> StepResult {
    const STEPS: [i64; 7] = [0, 99, 100, 550, 999, 1000, 5000];
    let schedule = Schedule::new(context, "cosine", Some(&cosine_options()?))?;
    let mut rates = Vec::with_capacity(STEPS.len());
    for &step in &STEPS {
        let got = schedule.lr(step)?;
        let want = cosine_closed_form(step);
        ensure((got - want).abs() <= 1e-12 * want.abs(), || {
            format!("schedule: lr at step {} is {:e}; the closed form gives {:e}", step, got, want)
        })?;
        rates.push(sci(got));
    }
    println!("schedule: cosine lr at steps 0 99 100 550 999 1000 5000 = {}", rates.join(" "));
    Ok(())
}

const SEQUENCES: usize = 256;
const MAX_LEN: i64 = 2048;

/// Step 3.
pub fn pack(context: &Context) -> StepResult {
    let mut rng = Lcg::new(7);
    let lengths: Vec<i64> = (0..SEQUENCES).map(|_| 1 + (rng.next() % 1024) as i64).collect();
    let mut options = Options::new()?;
    options.set_int("max_len", MAX_LEN)?;
    let plan = Packer::new(context, "packer_seq", &options)?.pack(&lengths)?;

    let mut seen = vec![0u32; SEQUENCES];
    for p in 0..plan.pack_count() {
        let mut tokens = 0;
        for &id in plan.pack(p) {
            ensure(id >= 0 && (id as usize) < SEQUENCES, || format!("pack: pack {} names sequence {}", p, id))?;
            seen[id as usize] += 1;
            // From the caller's own lengths, not the plan's.
            tokens += lengths[id as usize];
        }
        ensure(tokens <= MAX_LEN, || format!("pack: pack {} holds {} tokens, more than {}", p, tokens, MAX_LEN))?;
    }
    if let Some(id) = seen.iter().position(|&n| n != 1) {
        return ensure(false, || format!("pack: sequence {} appears {} times across the packs", id, seen[id]));
    }
    let stats = plan.stats()?;
    let total: i64 = lengths.iter().sum();
    ensure(stats.real_tokens == total, || {
        format!("pack: real_tokens is {}; the lengths sum to {}", stats.real_tokens, total)
    })?;
    ensure(stats.efficiency >= 0.95, || format!("pack: efficiency {:.4} is below 0.95", stats.efficiency))?;

    // Pack 0's cu_seqlens: 0, then a rise by each of its sequences' lengths.
    let cu = plan.varlen(0)?.cu_seqlens;
    let pack0 = plan.pack(0);
    ensure(cu.len() == pack0.len() + 1, || {
        format!("pack: cu_seqlens of pack 0 has {} entries, expected {}", cu.len(), pack0.len() + 1)
    })?;
    ensure(cu[0] == 0, || format!("pack: cu_seqlens of pack 0 starts at {}, not 0", cu[0]))?;
    for (u, &id) in pack0.iter().enumerate() {
        let rise = i64::from(cu[u + 1] - cu[u]);
        ensure(rise == lengths[id as usize], || {
            format!("pack: cu_seqlens of pack 0 rises by {} at entry {}; its sequence has {} tokens", rise, u, lengths[id as usize])
        })?;
    }
    let end = i64::from(cu[pack0.len()]);
    ensure(end == plan.pack_tokens()[0], || {
        format!("pack: cu_seqlens of pack 0 ends at {}; the pack holds {} tokens", end, plan.pack_tokens()[0])
    })?;
    println!(
        "pack: {} sequences, {} tokens in {} packs of {} (efficiency {:.4}, {}); pack 0: {} sequences, {} tokens",
        SEQUENCES, stats.real_tokens, stats.packs, MAX_LEN, stats.efficiency, stats.method, pack0.len(), end
    );
    Ok(())
}
