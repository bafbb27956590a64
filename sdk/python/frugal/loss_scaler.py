"""Dynamic loss scaling for FP16 and FP8 training (frugal/loss_scaler.h).

PyTorch GradScaler semantics with a floor and a ceiling: multiply the loss
by ``scaler.scale`` before backward and the gradients by ``1 / scale``
before the optimizer step, then report whether any gradient was NaN or Inf
with ``scaler.update(found_inf)``:

  * overflow: the step must be skipped (``update`` returns False);
    scale = max(scale * backoff_factor, min_scale); the clean-step counter
    resets;
  * otherwise (``update`` returns True): the counter grows; after
    growth_interval clean steps, scale = min(scale * growth_factor,
    max_scale) and the counter resets.

Options (all optional; the core's defaults in brackets): init_scale
[65536.0], growth_factor (> 1) [2.0], backoff_factor (in (0, 1)) [0.5],
growth_interval (int >= 1) [2000], min_scale (> 0) [1.0], max_scale
(finite) [2**24], with min_scale <= init_scale <= max_scale. An unknown or
bad option is FrugalError INVALID_ARGUMENT naming it.

State, for checkpoints: ``state()`` / ``set_state()`` exchange a
:class:`LossScalerState`; ``export_state()`` / ``import_state()`` exchange
it as bytes, the 32 bytes of ``frugal_loss_scaler_state`` in little-endian
order (struct_size = 32 as u64, scale as f64, clean_steps and
skipped_steps as i64). A state outside the scaler's configuration is
INVALID_ARGUMENT and changes nothing; a blob that is not such a record is
DATA_CORRUPTED.

Thread-safety: not thread-safe; one thread at a time per scaler (the core
does not lock). Distinct scalers are independent.
"""

import ctypes
import dataclasses
import struct

from . import _lib
from . import _types as t
from ._handle import Handle
from .errors import ErrorCode, FrugalError, check
from .options import options_arg

#: The layout of export_state()'s blob: frugal_loss_scaler_state, little-endian.
_BLOB = struct.Struct("<Qdqq")


@dataclasses.dataclass(frozen=True)
class LossScalerState:
    """A loss scaler's state (frugal_loss_scaler_state)."""

    #: Current scale, in [min_scale, max_scale].
    scale: float
    #: Clean steps since the last growth or overflow, in [0, growth_interval).
    clean_steps: int
    #: Steps skipped for overflow so far, >= 0.
    skipped_steps: int


class LossScaler(Handle):
    """An owned loss scaler: ``LossScaler(init_scale=2.0**16, growth_interval=2000)``.

    ``options`` is a mapping or an Options; keyword options are merged over
    it. No context is needed: the scaler is host arithmetic in the core.
    """

    _what = "loss scaler"

    def __init__(self, options=None, **kwargs):
        out = ctypes.c_void_p()
        with options_arg(options, kwargs) as options_address:
            check(_lib.lib().frugal_loss_scaler_create(options_address, ctypes.byref(out)))
        super().__init__(out.value)

    def _release(self, address):
        _lib.lib().frugal_loss_scaler_destroy(address)

    @property
    def scale(self):
        """The current scale (multiply the loss by it), a float."""
        return _lib.lib().frugal_loss_scaler_scale(self.address)

    def update(self, found_inf):
        """Reports the step's outcome; returns True when the optimizer step may be applied, False to skip it."""
        apply_step = ctypes.c_int32(-1)
        check(_lib.lib().frugal_loss_scaler_update(self.address, 1 if found_inf else 0, ctypes.byref(apply_step)))
        return bool(apply_step.value)

    def state(self):
        """A copy of the state (LossScalerState)."""
        raw = t.sized(t.LossScalerState)
        check(_lib.lib().frugal_loss_scaler_get_state(self.address, ctypes.byref(raw)))
        return LossScalerState(scale=raw.scale, clean_steps=raw.clean_steps, skipped_steps=raw.skipped_steps)

    def set_state(self, state):
        """Restores a LossScalerState; one outside this scaler's configuration is INVALID_ARGUMENT."""
        if not isinstance(state, LossScalerState):
            raise TypeError(f"state must be a frugal.LossScalerState, not {type(state).__name__}")
        raw = t.sized(t.LossScalerState, scale=float(state.scale), clean_steps=int(state.clean_steps),
                      skipped_steps=int(state.skipped_steps))
        check(_lib.lib().frugal_loss_scaler_set_state(self.address, ctypes.byref(raw)))

    def export_state(self):
        """The state as bytes (32: frugal_loss_scaler_state, little-endian)."""
        state = self.state()
        return _BLOB.pack(_BLOB.size, state.scale, state.clean_steps, state.skipped_steps)

    def import_state(self, blob):
        """Restores export_state()'s bytes; a blob of another shape is DATA_CORRUPTED and changes nothing."""
        data = bytes(blob)
        if len(data) != _BLOB.size:
            raise FrugalError(ErrorCode.DATA_CORRUPTED,
                              f"loss scaler state: expected {_BLOB.size} bytes, got {len(data)}",
                              "DATA_CORRUPTED")
        size, scale, clean_steps, skipped_steps = _BLOB.unpack(data)
        if size != _BLOB.size:
            raise FrugalError(ErrorCode.DATA_CORRUPTED,
                              f"loss scaler state: the record says it is {size} bytes, expected {_BLOB.size}",
                              "DATA_CORRUPTED")
        self.set_state(LossScalerState(scale=scale, clean_steps=clean_steps, skipped_steps=skipped_steps))

    def __repr__(self):
        if self.closed:
            return "frugal.LossScaler(<closed>)"
        return f"frugal.LossScaler(scale={self.scale})"
