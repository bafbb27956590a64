"""The run scheduler (frugal/scheduler.h): telemetry in, decisions out, a cost ledger.

Across ranks (ABI 2.4): ``Scheduler(ctx, ..., comm=world)`` makes one
decision for the whole job. Creating it is collective over the comm, and
so is each step(): every rank passes its own telemetry and every rank gets
the same decision and ledger (docs/scheduler-across-ranks.md). The
scheduler keeps a private sub-group of the comm, so the Comm may be closed
right after. ledger(), export_state() and import_state() stay local.

Thread-safety: one scheduler is used by one thread at a time (the core does
not lock); distinct schedulers are independent.
"""

import ctypes
import dataclasses

from . import _lib
from . import _types as t
from ._handle import Handle
from ._state import export_blob, import_blob
from .comm import Comm
from .context import Context
from .errors import check, encode
from .options import Options
from .telemetry import Decision, Ledger


class Scheduler(Handle):
    """An owned scheduler: an optional LR schedule plus cost policies in priority order.

    ``Scheduler(ctx, schedule="cosine", schedule_options={"lr": 3e-4},
    policies=[("checkpoint_cadence", {"heartbeat_interval_s": 60})])``;
    a policy may also be given as a bare name (default options). ``comm``
    (a frugal.Comm on host memory, e.g. "local" or "mpi") makes it the
    job's scheduler across that comm's ranks (ABI 2.4).
    """

    _what = "scheduler"

    def __init__(self, context, schedule=None, schedule_options=None, policies=(), gpus_per_node=0, comm=None):
        if not isinstance(context, Context):
            raise TypeError(f"context must be a frugal.Context, not {type(context).__name__}")
        if comm is not None and not isinstance(comm, Comm):
            raise TypeError(f"comm must be a frugal.Comm or None, not {type(comm).__name__}")
        entries = [(p, None) if isinstance(p, str) else (p[0], p[1]) for p in policies]
        owned = []
        try:
            schedule_opts = _options(schedule_options, owned)
            names = (ctypes.c_char_p * max(len(entries), 1))(*[encode(n, "policy name") for n, _ in entries])
            policy_opts = (ctypes.c_void_p * max(len(entries), 1))(*[_options(o, owned) for _, o in entries])
            config = t.sized(
                t.SchedulerConfig,
                schedule=encode(schedule, "schedule name") if schedule is not None else None,
                schedule_options=schedule_opts,
                policy_count=len(entries),
                gpus_per_node=gpus_per_node,
                comm=comm.address if comm is not None else None,
            )
            if entries:
                config.policies = names
                config.policy_options = policy_opts
            out = ctypes.c_void_p()
            check(_lib.lib().frugal_scheduler_create(context.address, ctypes.byref(config), ctypes.byref(out)))
        finally:
            for options in owned:
                options.close()
        super().__init__(out.value)

    def _release(self, address):
        _lib.lib().frugal_scheduler_destroy(address)

    def step(self, telemetry):
        """Books one Telemetry record and returns the Decision; a malformed record raises INVALID_ARGUMENT."""
        raw = t.sized(t.Telemetry)
        for field in dataclasses.fields(telemetry):
            setattr(raw, field.name, getattr(telemetry, field.name))
        decision = t.sized(t.Decision)
        check(_lib.lib().frugal_scheduler_step(self.address, ctypes.byref(raw), ctypes.byref(decision)))
        # The reason string lives until the next call: copy it now.
        return Decision._from_c(decision)

    def ledger(self):
        """A copy of the cost Ledger."""
        raw = t.sized(t.CostLedger)
        check(_lib.lib().frugal_scheduler_ledger(self.address, ctypes.byref(raw)))
        return Ledger(**{field.name: getattr(raw, field.name) for field in dataclasses.fields(Ledger)})

    def export_state(self):
        """The scheduler's state as bytes; the export counts as a checkpoint for the ledger."""
        return export_blob(_lib.lib().frugal_scheduler_export_state, self.address)

    def import_state(self, blob):
        """Restores a blob exported by a scheduler with the same configuration."""
        import_blob(_lib.lib().frugal_scheduler_import_state, self.address, blob)


def _options(values, owned):
    """The address of an Options for ``values`` (None stays None); new ones are added to ``owned``."""
    if values is None:
        return None
    if isinstance(values, Options):
        return values.address
    options = Options(values)
    owned.append(options)
    return options.address
