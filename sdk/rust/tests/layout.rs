//! The raw layer against the C compiler: every struct's size and every
//! field's offset, and every constant, must equal what the C compiler makes
//! of the headers. The test compiles `probe/layout_probe.c` against the
//! headers build.rs found (`FRUGAL_INCLUDE_DIR` or `pkg-config --cflags
//! frugal`) with the system C compiler (`CC`, default `cc`) and runs it, so
//! the C side is measured under `cargo test` only and a plain build of the
//! crate needs no C compiler. A field moved, added or retyped in a header
//! fails here, naming the struct and field.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use frugal::sys;

/// The probe's output: built and run once per test process, since the
/// tests of one binary run in parallel threads.
fn probe_output() -> String {
    static OUTPUT: Mutex<Option<String>> = Mutex::new(None);
    let mut output = OUTPUT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    output.get_or_insert_with(run_probe).clone()
}

fn run_probe() -> String {
    let includes = env!("FRUGAL_SYS_INCLUDE_DIRS");
    let include_dirs: Vec<PathBuf> = std::env::split_paths(includes).filter(|d| !d.as_os_str().is_empty()).collect();
    assert!(
        include_dirs.iter().any(|d| d.join("frugal/version.h").exists()),
        "no frugal/version.h in the header directories build.rs found ({:?}): set FRUGAL_INCLUDE_DIR \
         to the directory holding frugal/*.h, or use a frugal.pc whose Cflags name it",
        includes
    );
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("probe/layout_probe.c");
    // OUT_DIR belongs to this build of the crate: no other checkout's probe
    // lands there.
    let binary = Path::new(env!("OUT_DIR")).join(format!("layout_probe-{}", std::process::id()));
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut compile = Command::new(&compiler);
    compile.arg("-std=c99");
    for dir in &include_dirs {
        compile.arg("-I").arg(dir);
    }
    let status = compile
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler '{}': {}", compiler, e));
    assert!(status.success(), "the C compiler '{}' failed on {}", compiler, source.display());
    let run = Command::new(&binary).output().unwrap_or_else(|e| panic!("cannot run {}: {}", binary.display(), e));
    let _ = std::fs::remove_file(&binary);
    assert!(run.status.success(), "{} failed", binary.display());
    String::from_utf8(run.stdout).expect("the probe prints UTF-8")
}

/// The C facts: "size T", "offset T.f" and "const N" keys with their values.
fn c_facts() -> BTreeMap<String, i64> {
    let text = probe_output();
    let mut facts = BTreeMap::new();
    for line in text.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        if parts.len() == 3 && parts[0] != "string" {
            let value = parts[2].parse().unwrap_or_else(|_| panic!("bad probe line: {}", line));
            facts.insert(format!("{} {}", parts[0], parts[1]), value);
        }
    }
    facts
}

/// Size and field offsets of a raw struct, measured on an uninitialised
/// value (no `offset_of!`: it is newer than the oldest supported rustc).
/// A trailing `_` in a field name stands for a Rust keyword (`type_`).
macro_rules! rust_layout {
    ($facts:ident, $ty:ident { $($field:ident),* $(,)? }) => {{
        $facts.insert(
            format!("size {}", stringify!($ty)),
            std::mem::size_of::<sys::$ty>() as i64,
        );
        let value = std::mem::MaybeUninit::<sys::$ty>::uninit();
        let base = value.as_ptr();
        $(
            // SAFETY: addr_of! computes a field address without reading it.
            let field = unsafe { std::ptr::addr_of!((*base).$field) };
            $facts.insert(
                format!("offset {}.{}", stringify!($ty), stringify!($field).trim_end_matches('_')),
                (field as *const u8 as usize - base as *const u8 as usize) as i64,
            );
        )*
    }};
}

macro_rules! rust_consts {
    ($facts:ident, $($name:ident),* $(,)?) => {
        $( $facts.insert(format!("const {}", stringify!($name)), sys::$name as i64); )*
    };
}

fn rust_facts() -> BTreeMap<String, i64> {
    let mut f = BTreeMap::new();
    rust_layout!(f, frugal_ext_header { struct_size, type_, reserved, next });
    rust_layout!(f, frugal_plugin_info {
        struct_size, name, version, vendor, license, description, path, abi_major, abi_minor, strategy_count
    });
    rust_layout!(f, frugal_strategy_info { struct_size, kind, flags, name, summary, plugin_name, shadowed, reserved, option_count });
    rust_layout!(f, frugal_option_info { struct_size, name, type_, flags, default_value, min, max, choices, doc });
    rust_layout!(f, frugal_load_failure_info { struct_size, path, message, code, reserved });
    rust_layout!(f, frugal_device { type_, id });
    rust_layout!(f, frugal_quant_meta {
        struct_size, scaling_mode, block_rows, block_cols, reserved, scale, scale_inv, amax, ext
    });
    rust_layout!(f, frugal_tensor {
        struct_size, data, byte_offset, dtype, ndim, device, shape, strides, quant, ext
    });
    rust_layout!(f, frugal_pack_stats {
        struct_size, packs, units, sequences, real_tokens, max_len, lower_bound, lower_bound_tight,
        efficiency, padding_before, padding_after, speedup, truncated_sequences, truncated_tokens,
        split_sequences, method
    });
    rust_layout!(f, frugal_pack_plan_view {
        struct_size, pack_count, unit_count, pack_offsets, sequence_ids, token_offsets, unit_lengths, pack_tokens
    });
    rust_layout!(f, frugal_pack_gather_args {
        struct_size, tokens, sequence_offsets, sequence_count, labels, out_tokens, out_labels, out_length,
        pad_token, ignore_index, mask_first_label
    });
    rust_layout!(f, frugal_telemetry {
        struct_size, flags, nodes, step, tokens, loss, eval_loss, wall_time_s, price_per_node_hour, resource,
        checkpoint_done, checkpoint_stall_s, preemption_notice_s
    });
    rust_layout!(f, frugal_decision { struct_size, lr, checkpoint, resource, target_nodes, stop, next_due_s, reason });
    rust_layout!(f, frugal_scheduler_config {
        struct_size, schedule, schedule_options, policies, policy_options, policy_count, gpus_per_node, reserved0,
        comm
    });
    rust_layout!(f, frugal_cost_ledger {
        struct_size, dollars, spot_dollars, reserved_dollars, productive_dollars, stall_dollars, lost_dollars,
        gpu_hours, wall_s, productive_s, stall_s, lost_s, restarts, checkpoints_full, checkpoints_heartbeat,
        loss_first, loss_best, dollars_per_loss
    });
    rust_layout!(f, frugal_dlpack_version { major, minor });
    rust_layout!(f, frugal_dlpack_device { device_type, device_id });
    rust_layout!(f, frugal_dlpack_dtype { code, bits, lanes });
    rust_layout!(f, frugal_dlpack_tensor { data, device, ndim, dtype, shape, strides, byte_offset });
    rust_layout!(f, frugal_dlpack_managed_tensor { dl_tensor, manager_ctx, deleter });
    rust_layout!(f, frugal_dlpack_managed_tensor_versioned { version, manager_ctx, deleter, flags, dl_tensor });
    rust_layout!(f, frugal_quant_layout {
        struct_size, dtype, scaling_mode, block_rows, block_cols, scale_dtype, flags
    });
    rust_layout!(f, frugal_quant_zero_point_ext { header, zero_point });
    rust_layout!(f, frugal_quantize_args { struct_size, input, output, output_t, fake, stream, flags, reserved });
    rust_layout!(f, frugal_dequantize_args { struct_size, input, output, stream });
    rust_layout!(f, frugal_quant_gemm_args { struct_size, a, b, d, stream, alpha, flags });
    rust_layout!(f, frugal_route_layout {
        struct_size, choice, experts, top_k, drop_policy, capacity_factor, flags, reserved, ep_rank, ep_ranks
    });
    rust_layout!(f, frugal_route_plan {
        struct_size, expert_ids, weights, dropped, slot_row, expert_offsets, expert_demand, row_token, row_weight, token_offsets, token_rows, mean_prob, losses,
        ep_tokens, ep_rows
    });
    rust_layout!(f, frugal_route_args { struct_size, logits, plan, stream });
    rust_layout!(f, frugal_route_move_args { struct_size, plan, input, output, stream });
    rust_layout!(f, frugal_route_shape { struct_size, tokens, capacity, max_rows });
    rust_layout!(f, frugal_route_stats {
        struct_size, tokens, assignments, kept, dropped, max_load, max_over_mean, dropped_fraction, aux_loss, z_loss
    });
    rust_layout!(f, frugal_route_ep_shape {
        struct_size, rank, ranks, first_expert, local_experts, group_tokens, token_offset, sent_rows, received_rows
    });
    rust_layout!(f, frugal_route_dispatch_args { struct_size, plan, input, output, expert_offsets, row_token, stream });
    rust_layout!(f, frugal_ckpt_save_args { struct_size, kind, flags, step, metadata, metadata_size });
    rust_layout!(f, frugal_ckpt_save_result {
        struct_size, name, skipped, reserved, bytes, wait_seconds, snapshot_seconds
    });
    rust_layout!(f, frugal_ckpt_persist_result { struct_size, name, bytes, persist_seconds });
    rust_layout!(f, frugal_ckpt_info {
        struct_size, name, kind, status, step, sequence, created_unix_ns, bytes, tensor_count, state_count, emergency,
        reason, full_source, not_restored_count, world_size, reserved
    });
    rust_layout!(f, frugal_ckpt_slice { struct_size, ndim, replicated, global_shape, offsets });
    rust_layout!(f, frugal_ckpt_emergency_result { struct_size, name, committed, reserved, seconds });
    rust_layout!(f, frugal_ckpt_state_fns { struct_size, user_data, export_state, import_state });
    rust_layout!(f, frugal_loss_scaler_status { struct_size, scale, clean_steps, skipped_steps });
    rust_consts!(f,
        FRUGAL_ABI_VERSION_MAJOR, FRUGAL_ABI_VERSION_MINOR, FRUGAL_ABI_VERSION,
        FRUGAL_VERSION_MAJOR, FRUGAL_VERSION_MINOR, FRUGAL_VERSION_PATCH,
        FRUGAL_OK, FRUGAL_ERR_INVALID_ARGUMENT, FRUGAL_ERR_NOT_FOUND, FRUGAL_ERR_ALREADY_EXISTS,
        FRUGAL_ERR_OUT_OF_RANGE, FRUGAL_ERR_UNIMPLEMENTED, FRUGAL_ERR_UNSUPPORTED, FRUGAL_ERR_ABI_MISMATCH,
        FRUGAL_ERR_PLUGIN_INVALID, FRUGAL_ERR_IO, FRUGAL_ERR_DATA_CORRUPTED, FRUGAL_ERR_OUT_OF_MEMORY,
        FRUGAL_ERR_FAILED_PRECONDITION, FRUGAL_ERR_DEADLINE_EXCEEDED, FRUGAL_ERR_CANCELLED, FRUGAL_ERR_DEVICE,
        FRUGAL_ERR_INTERNAL,
        FRUGAL_OPTION_INT, FRUGAL_OPTION_DOUBLE, FRUGAL_OPTION_BOOL, FRUGAL_OPTION_STRING, FRUGAL_OPTION_COMM,
        FRUGAL_LOG_TRACE, FRUGAL_LOG_DEBUG, FRUGAL_LOG_INFO, FRUGAL_LOG_WARN, FRUGAL_LOG_ERROR, FRUGAL_LOG_OFF,
        FRUGAL_KIND_ROUTER, FRUGAL_KIND_QUANTIZER, FRUGAL_KIND_PACKER, FRUGAL_KIND_POLICY,
        FRUGAL_KIND_SCHEDULE, FRUGAL_KIND_STORE, FRUGAL_KIND_COMM,
        FRUGAL_STRATEGY_THREAD_SAFE, FRUGAL_STRATEGY_DETERMINISTIC,
        FRUGAL_DISCOVER_NO_ENV, FRUGAL_DISCOVER_NO_BUILTIN,
        FRUGAL_OPTION_DECL_REQUIRED, FRUGAL_OPTION_DECL_HAS_MIN, FRUGAL_OPTION_DECL_HAS_MAX,
        FRUGAL_OPTION_DECL_DIRECTORY,
        FRUGAL_DEVICE_CPU, FRUGAL_DEVICE_CUDA, FRUGAL_DEVICE_CUDA_PINNED,
        FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_FLOAT16, FRUGAL_DTYPE_BFLOAT16, FRUGAL_DTYPE_FLOAT64,
        FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_FLOAT8_E5M2, FRUGAL_DTYPE_FLOAT8_E8M0FNU,
        FRUGAL_DTYPE_INT8, FRUGAL_DTYPE_UINT8, FRUGAL_DTYPE_INT16, FRUGAL_DTYPE_INT32, FRUGAL_DTYPE_INT64,
        FRUGAL_DTYPE_BOOL, FRUGAL_TENSOR_MAX_NDIM,
        FRUGAL_SCALING_NONE, FRUGAL_SCALING_DELAYED, FRUGAL_SCALING_CURRENT, FRUGAL_SCALING_PER_CHANNEL,
        FRUGAL_SCALING_BLOCK, FRUGAL_SCALING_MX,
        FRUGAL_TELEMETRY_EVAL_LOSS, FRUGAL_TELEMETRY_RESTARTED,
        FRUGAL_DLPACK_MAJOR_VERSION, FRUGAL_DLPACK_MINOR_VERSION, FRUGAL_DLPACK_FLAG_READ_ONLY,
        FRUGAL_DLPACK_FLAG_IS_COPIED, FRUGAL_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED, FRUGAL_DLPACK_INT,
        FRUGAL_DLPACK_UINT, FRUGAL_DLPACK_FLOAT, FRUGAL_DLPACK_BFLOAT, FRUGAL_DLPACK_BOOL,
        FRUGAL_DLPACK_FLOAT8_E4M3FN, FRUGAL_DLPACK_FLOAT8_E5M2, FRUGAL_DLPACK_FLOAT8_E8M0FNU,
        FRUGAL_QUANT_LAYOUT_ZERO_POINT, FRUGAL_EXT_QUANT_ZERO_POINT, FRUGAL_QUANTIZE_FREEZE_SCALE,
        FRUGAL_GEMM_FAST_ACCUM, FRUGAL_ROUTER_TOKEN_CHOICE, FRUGAL_ROUTER_EXPERT_CHOICE, FRUGAL_ROUTER_DROPLESS,
        FRUGAL_ROUTER_DROP_BY_PROBABILITY, FRUGAL_ROUTER_DROP_BY_POSITION, FRUGAL_ROUTE_LAYOUT_BIAS,
        FRUGAL_ROUTE_LAYOUT_V2_3_SIZE, FRUGAL_ROUTE_PLAN_V2_3_SIZE,
        FRUGAL_STORE_KEY_MAX, FRUGAL_CKPT_HEARTBEAT, FRUGAL_CKPT_FULL, FRUGAL_CKPT_ALL_KINDS, FRUGAL_CKPT_VALID,
        FRUGAL_CKPT_INCOMPLETE, FRUGAL_CKPT_CORRUPT, FRUGAL_CKPT_NEWER_FORMAT, FRUGAL_CKPT_UNREADABLE,
        FRUGAL_CKPT_SAVE_WAIT, FRUGAL_CKPT_SAVE_SKIP_IF_BUSY, FRUGAL_CKPT_LIST_VERIFY_SHARDS,
        FRUGAL_CKPT_NAME_CAPACITY, FRUGAL_CKPT_REASON_CAPACITY, FRUGAL_CKPT_TENSOR_NAME_CAPACITY, FRUGAL_CKPT_STATE_MAX_SIZE, FRUGAL_CKPT_NONE,
        FRUGAL_CKPT_SLICE_MIN_SIZE,
        FRUGAL_RESOURCE_UNSPECIFIED, FRUGAL_RESOURCE_SPOT, FRUGAL_RESOURCE_RESERVED,
        FRUGAL_STOP_NONE, FRUGAL_STOP_PLATEAU, FRUGAL_STOP_TARGET, FRUGAL_STOP_BUDGET, FRUGAL_STOP_POLICY,
        FRUGAL_REDUCE_SUM, FRUGAL_REDUCE_MAX, FRUGAL_REDUCE_MIN, FRUGAL_COMM_COLOR_NONE,
        FRUGAL_COMM_DEFAULT_TIMEOUT_MS,
    );
    f
}

#[test]
fn raw_structs_and_constants_match_the_c_headers() {
    let c = c_facts();
    let rust = rust_facts();
    // A probe that printed nothing would make the comparison vacuous.
    assert!(c.len() > 200, "the C probe reported only {} facts", c.len());

    let mut mismatches = Vec::new();
    for (key, c_value) in &c {
        match rust.get(key) {
            Some(r) if r == c_value => {}
            Some(r) => mismatches.push(format!("{}: C {} but Rust {}", key, c_value, r)),
            None => mismatches.push(format!("{}: in the C probe, missing from the Rust check", key)),
        }
    }
    for key in rust.keys().filter(|k| !c.contains_key(*k)) {
        mismatches.push(format!("{}: in the Rust check, missing from the C probe", key));
    }
    assert!(mismatches.is_empty(), "raw layer out of step with the headers:\n  {}", mismatches.join("\n  "));
}

#[test]
fn version_string_matches_the_header() {
    let text = probe_output();
    let c_version = text
        .lines()
        .find_map(|l| l.strip_prefix("string FRUGAL_VERSION_STRING "))
        .expect("the C probe prints FRUGAL_VERSION_STRING");
    assert_eq!(sys::FRUGAL_VERSION_STRING, c_version);
}
