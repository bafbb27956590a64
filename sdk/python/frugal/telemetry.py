"""What a training job reports (Telemetry) and what the scheduler answers (Decision, Ledger).

Plain dataclasses mirroring frugal/telemetry.h and the ledger of
frugal/scheduler.h; immutable values, safe to share between threads.
Time is the job's own clock (``wall_time_s``: seconds since the job first
started, never going back, not even across a restart).
"""

import dataclasses
import enum

#: Telemetry flag: eval_loss holds a validation loss measured at this step.
TELEMETRY_EVAL_LOSS = 1
#: Telemetry flag: the first record after a restart (its interval is lost time).
TELEMETRY_RESTARTED = 2


class CheckpointKind(enum.IntEnum):
    """frugal_ckpt_kind_values: one set for decisions and the checkpoint engine.

    Ordered by weight; HEARTBEAT and FULL are also the bits of the engine's
    ``kinds`` masks. NONE (no checkpoint now) appears in decisions only.
    """

    NONE = 0
    HEARTBEAT = 1
    FULL = 2


class ResourceClass(enum.IntEnum):
    """frugal_resource_class_values."""

    UNSPECIFIED = 0
    SPOT = 1
    RESERVED = 2


class StopReason(enum.IntEnum):
    """frugal_stop_reason_values; NONE keeps training."""

    NONE = 0
    PLATEAU = 1
    TARGET = 2
    BUDGET = 3
    POLICY = 4


@dataclasses.dataclass(frozen=True)
class Telemetry:
    """One step's report (frugal_telemetry); the scheduler validates every field."""

    step: int
    wall_time_s: float
    loss: float
    nodes: int = 1
    tokens: int = 0
    price_per_node_hour: float = 0.0
    resource: int = ResourceClass.SPOT
    flags: int = 0
    eval_loss: float = 0.0
    checkpoint_done: int = CheckpointKind.NONE
    checkpoint_stall_s: float = 0.0
    preemption_notice_s: float = 0.0


def _enum_or_int(enum_type, value):
    try:
        return enum_type(value)
    except ValueError:
        return value


@dataclasses.dataclass(frozen=True)
class Decision:
    """What to do next (frugal_decision), copied out of the scheduler."""

    lr: float
    checkpoint: CheckpointKind
    resource: ResourceClass
    target_nodes: int
    stop: StopReason
    next_due_s: float
    reason: str

    @classmethod
    def _from_c(cls, raw):
        return cls(
            lr=raw.lr,
            checkpoint=_enum_or_int(CheckpointKind, raw.checkpoint),
            resource=_enum_or_int(ResourceClass, raw.resource),
            target_nodes=raw.target_nodes,
            stop=_enum_or_int(StopReason, raw.stop),
            next_due_s=raw.next_due_s,
            reason=(raw.reason or b"").decode("utf-8", "replace"),
        )


@dataclasses.dataclass(frozen=True)
class Ledger:
    """Where the money and time went (frugal_cost_ledger): dollars = productive + stall + lost = spot + reserved."""

    dollars: float
    spot_dollars: float
    reserved_dollars: float
    productive_dollars: float
    stall_dollars: float
    lost_dollars: float
    gpu_hours: float
    wall_s: float
    productive_s: float
    stall_s: float
    lost_s: float
    restarts: int
    checkpoints_full: int
    checkpoints_heartbeat: int
    loss_first: float
    loss_best: float
    dollars_per_loss: float
