//! Versions of the loaded libfrugal (which may differ from the headers the
//! binding was written against: compare with `sys::FRUGAL_*VERSION*`).

use crate::strings::copy_c_str;
use crate::sys;

/// An ABI version, unpacked from `(major << 16) | minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbiVersion {
    pub major: u32,
    pub minor: u32,
}

/// The ABI version of the loaded libfrugal.
pub fn abi_version() -> AbiVersion {
    // SAFETY: no arguments, never fails.
    let packed = unsafe { sys::frugal_abi_version() };
    AbiVersion { major: (packed >> 16) & 0xFFFF, minor: packed & 0xFFFF }
}

/// The SDK release of the loaded libfrugal ("0.6.0").
pub fn version_string() -> String {
    // SAFETY: returns static storage.
    unsafe { copy_c_str(sys::frugal_version_string()) }
}

/// Whether the loaded libfrugal was built with CUDA support.
pub fn built_with_cuda() -> bool {
    // SAFETY: no arguments, never fails.
    unsafe { sys::frugal_built_with_cuda() != 0 }
}

/// Number of usable CUDA devices: 0 when libfrugal was built without CUDA,
/// when no driver is installed or when no device is present.
pub fn cuda_device_count() -> i32 {
    // SAFETY: no arguments, never fails.
    unsafe { sys::frugal_cuda_device_count() }
}
