//! Rust binding of libfrugal.
//!
//! Two layers:
//! - [`sys`]: the raw layer, `#[repr(C)]` structs and `extern "C"`
//!   declarations kept in step with `abi/include/frugal/*.h` (a test
//!   compares every struct's size and field offsets with the C compiler's);
//! - the crate root: the safe layer, RAII handles whose `Drop` calls the
//!   matching `*_destroy`, `Result<T, Error>` carrying the frugal error code
//!   and message, slices over memory the core owns, and tensor views
//!   ([`TensorRef`], [`TensorMut`]) that borrow Rust slices.
//!
//! Threading follows the headers: a handle is `Send` where the header lets
//! the object move between threads and `Sync` only where it lets several
//! threads call it at once; each type's documentation says which.

pub mod sys;

mod checkpoint;
mod ckpt_slice;
mod ckpt_state;
mod comm;
mod context;
mod error;
mod loss_scaler;
mod managed_tensor;
mod options;
mod packer;
pub mod preemption;
mod quantizer;
mod router;
mod schedule;
mod scheduler;
mod state_blob;
mod store;
mod strings;
mod tensor;
mod version;

pub use crate::checkpoint::{CkptEngine, CkptInfo, CkptKind, EmergencyResult, PersistResult, Restored, SaveResult};
pub use crate::ckpt_slice::CkptSlice;
pub use crate::ckpt_state::{CkptObject, HostState};
pub use crate::comm::{Comm, ReduceOp};
pub use crate::context::{Context, LoadFailure, LogLevel, OptionDecl, PluginInfo, StrategyInfo};
pub use crate::error::{Error, ErrorCode, Result};
pub use crate::loss_scaler::{LossScaler, LossScalerStatus};
pub use crate::managed_tensor::ManagedTensor;
pub use crate::options::{OptionType, Options};
pub use crate::packer::{GatherInput, PackPlan, PackStats, PackStream, Packer, StreamPending, Varlen};
pub use crate::quantizer::{GemmOperand, GemmOutput, QuantLayout, QuantizeOutputs, Quantizer};
pub use crate::router::{RouteEpShape, RoutePlan, RouteShape, RouteStats, Router, RouterLayout};
pub use crate::schedule::Schedule;
pub use crate::scheduler::{CostLedger, Decision, Scheduler, SchedulerConfig, Telemetry};
pub use crate::store::Store;
pub use crate::tensor::{DType, Element, NativeElement, TensorMut, TensorRef};
pub use crate::version::{abi_version, built_with_cuda, cuda_device_count, version_string, AbiVersion};
