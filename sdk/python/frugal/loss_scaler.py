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

Status and state: ``status()`` / ``set_status()`` exchange a
:class:`LossScalerStatus` (one outside the scaler's configuration is
INVALID_ARGUMENT and changes nothing); ``export_state()`` /
``import_state()`` exchange the core's versioned, checksummed blob
(frugal_loss_scaler_export_state: the bytes a checkpoint engine stores for
``CheckpointEngine.register_loss_scaler``). A blob that is truncated, of
another kind, fails its checksum or holds a field outside this scaler's
configuration is DATA_CORRUPTED naming what is wrong, and changes nothing.

Thread-safety: not thread-safe; one thread at a time per scaler (the core
does not lock). Distinct scalers are independent.
"""

import ctypes
import dataclasses

from . import _lib
from . import _types as t
from ._handle import Handle
from ._state import export_blob, import_blob
from .errors import check
from .options import options_arg


@dataclasses.dataclass(frozen=True)
class LossScalerStatus:
    """A loss scaler's scale and step counters (frugal_loss_scaler_status)."""

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

    def status(self):
        """A copy of the scale and step counters (LossScalerStatus)."""
        raw = t.sized(t.LossScalerStatus)
        check(_lib.lib().frugal_loss_scaler_get_status(self.address, ctypes.byref(raw)))
        return LossScalerStatus(scale=raw.scale, clean_steps=raw.clean_steps, skipped_steps=raw.skipped_steps)

    def set_status(self, status):
        """Restores a LossScalerStatus; one outside this scaler's configuration is INVALID_ARGUMENT."""
        if not isinstance(status, LossScalerStatus):
            raise TypeError(f"status must be a frugal.LossScalerStatus, not {type(status).__name__}")
        raw = t.sized(t.LossScalerStatus, scale=float(status.scale), clean_steps=int(status.clean_steps),
                      skipped_steps=int(status.skipped_steps))
        check(_lib.lib().frugal_loss_scaler_set_status(self.address, ctypes.byref(raw)))

    def export_state(self):
        """The state as the core's versioned, checksummed bytes (frugal_loss_scaler_export_state)."""
        return export_blob(_lib.lib().frugal_loss_scaler_export_state, self.address)

    def import_state(self, blob):
        """Restores export_state()'s bytes; a bad blob is DATA_CORRUPTED naming what is wrong and changes nothing."""
        import_blob(_lib.lib().frugal_loss_scaler_import_state, self.address, blob)

    def __repr__(self):
        if self.closed:
            return "frugal.LossScaler(<closed>)"
        return f"frugal.LossScaler(scale={self.scale})"
