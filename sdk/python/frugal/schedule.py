"""Learning-rate schedules (frugal/schedule.h).

Thread-safety: lr() may run concurrently on one schedule only when its
strategy has STRATEGY_THREAD_SAFE; close() must not race other calls.
"""

import ctypes

from . import _lib
from ._handle import Handle
from ._strategy import create
from .errors import check


class Schedule(Handle):
    """An owned LR schedule instance, e.g. ``Schedule(ctx, "cosine", lr=3e-4, total_steps=1000)``.

    Options come as a mapping, an Options, and/or keyword arguments. The
    schedule does not reference the context afterwards and may outlive it.
    """

    _what = "schedule"

    def __init__(self, context, name, options=None, **kwargs):
        super().__init__(create("frugal_schedule_create", context, name, options, kwargs))
        self.name = name

    def _release(self, address):
        _lib.lib().frugal_schedule_destroy(address)

    def lr(self, step):
        """The learning rate at ``step`` (>= 0; a negative step is FrugalError OUT_OF_RANGE)."""
        out = ctypes.c_double()
        check(_lib.lib().frugal_schedule_lr(self.address, step, ctypes.byref(out)))
        return out.value
