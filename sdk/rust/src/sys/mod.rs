//! Raw layer: `#[repr(C)]` structs, constants and `extern "C"` declarations
//! mirroring the headers in `abi/include/frugal`, one file per header group.
//!
//! Names are the C names, so a reader can grep one against the other, and
//! `tests/layout.rs` checks every struct here against the C compiler's
//! sizes and offsets. Everything here is `unsafe` to use and follows the C
//! contracts word for word: ownership and lifetimes are those the header
//! states at each declaration. The safe layer (the crate root) wraps it.
//!
//! C enums are carried as `i32` on the ABI, so the values are plain
//! constants here, never Rust enums (an unknown value must not be UB).

#![allow(non_camel_case_types)]

mod checkpoint;
mod comm;
mod context;
mod dlpack;
mod error;
mod loss_scaler;
mod managed_tensor;
mod options;
mod packer;
mod quantizer;
mod router;
mod schedule;
mod scheduler;
mod store;
mod tensor;
mod types;

pub use self::checkpoint::*;
pub use self::comm::*;
pub use self::context::*;
pub use self::dlpack::*;
pub use self::error::*;
pub use self::loss_scaler::*;
pub use self::managed_tensor::*;
pub use self::options::*;
pub use self::packer::*;
pub use self::quantizer::*;
pub use self::router::*;
pub use self::schedule::*;
pub use self::scheduler::*;
pub use self::store::*;
pub use self::tensor::*;
pub use self::types::*;
