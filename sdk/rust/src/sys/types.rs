//! frugal/types.h and frugal/version.h: error codes, opaque handles, option
//! types, strategy kinds, the extension-chain header and version numbers.

/// frugal_error_code_values. `FRUGAL_OK` is never stored in an error object.
pub const FRUGAL_OK: i32 = 0;
pub const FRUGAL_ERR_INVALID_ARGUMENT: i32 = 1;
pub const FRUGAL_ERR_NOT_FOUND: i32 = 2;
pub const FRUGAL_ERR_ALREADY_EXISTS: i32 = 3;
pub const FRUGAL_ERR_OUT_OF_RANGE: i32 = 4;
pub const FRUGAL_ERR_UNIMPLEMENTED: i32 = 5;
pub const FRUGAL_ERR_UNSUPPORTED: i32 = 6;
pub const FRUGAL_ERR_ABI_MISMATCH: i32 = 7;
pub const FRUGAL_ERR_PLUGIN_INVALID: i32 = 8;
pub const FRUGAL_ERR_IO: i32 = 9;
pub const FRUGAL_ERR_DATA_CORRUPTED: i32 = 10;
pub const FRUGAL_ERR_OUT_OF_MEMORY: i32 = 11;
pub const FRUGAL_ERR_FAILED_PRECONDITION: i32 = 12;
pub const FRUGAL_ERR_DEADLINE_EXCEEDED: i32 = 13;
pub const FRUGAL_ERR_CANCELLED: i32 = 14;
pub const FRUGAL_ERR_DEVICE: i32 = 15;
pub const FRUGAL_ERR_INTERNAL: i32 = 16;

/// Opaque error object; the receiver owns it and frees it with
/// `frugal_error_destroy`. Immutable, readable from any thread.
#[repr(C)]
pub struct frugal_error {
    _opaque: [u8; 0],
}

/// Opaque typed named values (frugal/options.h).
#[repr(C)]
pub struct frugal_options {
    _opaque: [u8; 0],
}

/// Opaque libfrugal context (frugal/context.h).
#[repr(C)]
pub struct frugal_context {
    _opaque: [u8; 0],
}

/// Opaque communicator, one process's end of a group of ranks
/// (frugal/comm.h, ABI 2.1).
#[repr(C)]
pub struct frugal_comm {
    _opaque: [u8; 0],
}

/// frugal_option_type_values.
pub const FRUGAL_OPTION_INT: i32 = 1;
pub const FRUGAL_OPTION_DOUBLE: i32 = 2;
pub const FRUGAL_OPTION_BOOL: i32 = 3;
pub const FRUGAL_OPTION_STRING: i32 = 4;
/// A communicator held by reference (ABI 2.1).
pub const FRUGAL_OPTION_COMM: i32 = 5;

/// frugal_log_level_values. `FRUGAL_LOG_OFF` is only a threshold; new
/// levels are added below it.
pub const FRUGAL_LOG_TRACE: i32 = 0;
pub const FRUGAL_LOG_DEBUG: i32 = 1;
pub const FRUGAL_LOG_INFO: i32 = 2;
pub const FRUGAL_LOG_WARN: i32 = 3;
pub const FRUGAL_LOG_ERROR: i32 = 4;
pub const FRUGAL_LOG_OFF: i32 = 1000;

/// frugal_strategy_kind_values.
pub const FRUGAL_KIND_ROUTER: i32 = 1;
pub const FRUGAL_KIND_QUANTIZER: i32 = 2;
pub const FRUGAL_KIND_PACKER: i32 = 3;
pub const FRUGAL_KIND_POLICY: i32 = 4;
pub const FRUGAL_KIND_SCHEDULE: i32 = 5;
pub const FRUGAL_KIND_STORE: i32 = 6;
/// Collective-communication backends (ABI 2.1).
pub const FRUGAL_KIND_COMM: i32 = 7;

/// Strategy flags (frugal_strategy_info.flags).
pub const FRUGAL_STRATEGY_THREAD_SAFE: u32 = 1 << 0;
pub const FRUGAL_STRATEGY_DETERMINISTIC: u32 = 1 << 1;

/// Header of every extension struct; chains are owned by whoever built them.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_ext_header {
    pub struct_size: usize,
    pub type_: i32,
    pub reserved: i32,
    pub next: *const frugal_ext_header,
}

/// The ABI and SDK versions these declarations describe (frugal/version.h).
pub const FRUGAL_ABI_VERSION_MAJOR: u32 = 2;
pub const FRUGAL_ABI_VERSION_MINOR: u32 = 4;
pub const FRUGAL_ABI_VERSION: u32 = (FRUGAL_ABI_VERSION_MAJOR << 16) | FRUGAL_ABI_VERSION_MINOR;
pub const FRUGAL_VERSION_MAJOR: u32 = 0;
pub const FRUGAL_VERSION_MINOR: u32 = 6;
pub const FRUGAL_VERSION_PATCH: u32 = 0;
pub const FRUGAL_VERSION_STRING: &str = "0.6.0";
