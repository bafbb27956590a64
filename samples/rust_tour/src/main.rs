//! The tour of samples/README.md through the frugal crate: load the
//! built-in plugins, then schedule, pack, route, quantize, run the
//! scheduler and checkpoint, checking every value. Prints one line per
//! step; exits 1 with the first mismatch.

mod check;
mod random;
mod route_and_quantize;
mod schedule_and_pack;
mod scheduler_and_checkpoint;

use std::process::ExitCode;

use frugal::{sys, Context};

use crate::check::{ensure, Failure, StepResult};

const REQUIRED_PLUGINS: [&str; 6] = ["packer_seq", "policy_cost", "quant_fp8", "router_moe", "schedule_lr", "store_fs"];

/// Step 1: ABI major 1, a context, the built-in plugins, all six present.
fn plugins() -> Result<Context, Failure> {
    let abi = frugal::abi_version();
    ensure(abi.major == sys::FRUGAL_ABI_VERSION_MAJOR, || {
        format!("plugins: libfrugal speaks ABI major {}; this tour is written for major {}", abi.major, sys::FRUGAL_ABI_VERSION_MAJOR)
    })?;
    let context = Context::new()?;
    // No directory and no environment variable needed: discovery finds the
    // built-in plugin directory next to libfrugal.
    let loaded = context.discover_plugins()?;
    let names: Vec<String> = context.plugins()?.into_iter().map(|p| p.name).collect();
    for required in &REQUIRED_PLUGINS {
        if !names.iter().any(|n| n == required) {
            for failure in context.load_failures()? {
                eprintln!("  load failure: {}: {}", failure.path, failure.message);
            }
            return Err(Failure::Mismatch(format!("plugins: '{}' is not loaded ({} plugins found)", required, names.len())));
        }
    }
    println!(
        "plugins: frugal {}, ABI {}.{}, {} loaded, all of {} present",
        frugal::version_string(),
        abi.major,
        abi.minor,
        loaded,
        REQUIRED_PLUGINS.join(" ")
    );
    Ok(context)
}

fn main() -> ExitCode {
    let steps: [fn(&Context) -> StepResult; 6] = [
        schedule_and_pack::schedule,
        schedule_and_pack::pack,
        route_and_quantize::route,
        route_and_quantize::quantize,
        scheduler_and_checkpoint::scheduler,
        scheduler_and_checkpoint::checkpoint,
    ];
    let context = match plugins() {
        Ok(context) => context,
        Err(failure) => {
            eprintln!("{}\ntour failed at step 1 of 7", failure);
            return ExitCode::FAILURE;
        }
    };
    for (index, step) in steps.iter().enumerate() {
        if let Err(failure) = step(&context) {
            eprintln!("{}\ntour failed at step {} of 7", failure, index + 2);
            return ExitCode::FAILURE;
        }
    }
    println!("tour: all 7 steps passed");
    ExitCode::SUCCESS
}
