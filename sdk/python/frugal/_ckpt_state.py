"""Host state for the checkpoint engine: Python functions behind frugal_ckpt_state_fns.

The engine calls export_state / import_state on the thread calling save(),
emergency_save() or restore(), inside that call, with the engine's lock
held; ctypes takes the GIL for each call. A Python exception must not cross
into C, so each trampoline turns it into a frugal_error (made with
frugal_error_create, which the engine reports as the save's or restore's
error): a FrugalError keeps its code, anything else is INTERNAL, and both
name the state and say what was raised.
"""

import ctypes

from . import _lib
from . import _types as t
from .errors import ErrorCode, FrugalError


def _error(code, message):
    """A frugal_error* (an int address) for the engine to report and destroy."""
    return _lib.lib().frugal_error_create(int(code), message.encode("utf-8", "replace"))


def _from_exception(name, action, error):
    if isinstance(error, FrugalError):
        return _error(error.code, f"state {name!r}: {action} failed: {error.message}")
    return _error(ErrorCode.INTERNAL, f"state {name!r}: {action} raised {type(error).__name__}: {error}")


class StateCallbacks:
    """The C function pair of one registered state; keep it alive while the state is registered.

    ``export_state()`` returns bytes-like; ``import_state(data)`` takes bytes.
    The engine asks for the size first and then for the bytes: one Python
    export serves both, so export_state() runs once per save.
    """

    def __init__(self, name, export_state, import_state):
        if not callable(export_state) or not callable(import_state):
            raise TypeError(f"state {name!r}: export_state and import_state must be callable")
        self._name = name
        self._export = export_state
        self._import = import_state
        self._pending = None
        self._export_fn = t.CkptExportStateFn(self._export_trampoline)
        self._import_fn = t.CkptImportStateFn(self._import_trampoline)
        self.fns = t.sized(t.CkptStateFns, user_data=None, export_state=self._export_fn,
                           import_state=self._import_fn)

    def _export_trampoline(self, _user_data, buffer, capacity, size):
        try:
            data = self._pending
            if data is None or not buffer:
                data = bytes(self._export())
            # Kept for the copy that follows a size query; dropped once copied.
            self._pending = None if buffer else data
            size[0] = len(data)
            if buffer:
                if capacity < len(data):
                    return _error(ErrorCode.OUT_OF_RANGE,
                                  f"state {self._name!r}: {len(data)} bytes do not fit in {capacity}")
                ctypes.memmove(buffer, data, len(data))
            return None
        except BaseException as error:  # noqa: B902 - nothing may unwind into C
            self._pending = None
            return _from_exception(self._name, "export_state", error)

    def _import_trampoline(self, _user_data, data, size):
        try:
            self._import(ctypes.string_at(data, size))
            return None
        except BaseException as error:  # noqa: B902 - nothing may unwind into C
            return _from_exception(self._name, "import_state", error)
