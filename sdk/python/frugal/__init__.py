"""frugal for Python: a pure-ctypes binding of libfrugal's C ABI.

Quick start::

    import frugal
    with frugal.Context(discover=True) as ctx:
        with frugal.Schedule(ctx, "cosine", lr=3e-4, min_lr=3e-5,
                             warmup_steps=100, total_steps=1000) as schedule:
            print(schedule.lr(550))

Every handle has close() and is a context manager; errors from the core are
:class:`FrugalError` with ``code``, ``code_name`` and ``message``. Tensors
cross in and out without copies through DLPack (see :mod:`frugal.tensor`).
The library is found without setup when run from the repository (see
:mod:`frugal._lib`).
"""

from ._lib import ABI_MAJOR, ABI_MINOR, LibraryError, library_path
from .checkpoint import (
    CKPT_ALL_KINDS,
    CKPT_STATE_MAX_SIZE,
    CheckpointEngine,
    CheckpointInfo,
    CheckpointKind,
    CheckpointStatus,
    EmergencyResult,
    PersistResult,
    SaveResult,
)
from .comm import COLOR_NONE, DEFAULT_TIMEOUT_MS, Comm, ReduceOp
from .context import (
    DISCOVER_NO_BUILTIN,
    DISCOVER_NO_ENV,
    STRATEGY_DETERMINISTIC,
    STRATEGY_THREAD_SAFE,
    Context,
    LoadFailure,
    LogLevel,
    OptionDecl,
    PluginInfo,
    StrategyInfo,
    StrategyKind,
    kind_name,
)
from .dtypes import DType
from .errors import ErrorCode, FrugalError
from .loss_scaler import LossScaler, LossScalerStatus
from .options import Options, OptionType
from .packer import PackPlan, Packer, PackStats, PackStream
from .quantizer import QUANTIZE_FREEZE_SCALE, QuantizedTensor, QuantLayout, Quantizer, ScalingMode
from .router import EpDispatch, RouteEpShape, RoutePlan, Router, RouterLayout, RouteShape, RouteStats
from .schedule import Schedule
from .scheduler import Scheduler
from .store import Store, check_key
from .telemetry import (
    TELEMETRY_EVAL_LOSS,
    TELEMETRY_RESTARTED,
    Decision,
    Ledger,
    ResourceClass,
    StopReason,
    Telemetry,
)
from .tensor import Tensor
from .version import abi_version, built_with_cuda, cuda_device_count, version_string
from . import preemption

__all__ = [name for name in dir() if not name.startswith("_")]
