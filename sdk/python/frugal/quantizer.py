"""FP8/INT8 quantization (frugal/quantizer.h).

``Quantizer.quantize(x)`` returns a :class:`QuantizedTensor`: the codes and
the scales that give them meaning (scale_inv always; scale, amax and, for
asymmetric INT8, the zero point). Outputs are allocated by frugal unless
the caller passes its own writable tensors (numpy arrays, torch tensors),
which frugal then writes in place, without a copy. Code buffers may be
uint8/int8 arrays: they are reinterpreted as the layout's 8-bit dtype,
since neither numpy nor torch 1.13 has fp8 types.

Inputs: [rows, cols] (N-D tensors are [prod(leading dims), last]; 1-D is one
row) in float32, bfloat16 or float16, last dimension contiguous.

Thread-safety: calls on one quantizer may run concurrently when its
strategy has STRATEGY_THREAD_SAFE (quant_fp8's do); close() must not race
other calls. A QuantizedTensor is not synchronised: do not close it while
another thread uses it.
"""

import ctypes
import dataclasses
import enum
import math

from . import _lib
from . import _types as t
from ._handle import Handle
from ._strategy import create
from .dtypes import DType, as_dtype
from ._state import export_blob, import_blob
from .errors import check
from .tensor import Tensor, TensorArgs, as_tensor, view_copy

#: frugal_quantize_args.flags: use the current scale and do not record this amax.
QUANTIZE_FREEZE_SCALE = 1 << 0
#: frugal_quant_layout.flags: outputs carry an int8 zero point.
QUANT_LAYOUT_ZERO_POINT = 1 << 0
#: frugal_ext_header.type of frugal_quant_zero_point_ext.
_EXT_QUANT_ZERO_POINT = 0x00020001


class ScalingMode(enum.IntEnum):
    """frugal_scaling_mode_values."""

    NONE = 0
    DELAYED = 1
    CURRENT = 2
    PER_CHANNEL = 3
    BLOCK = 4
    MX = 5


@dataclasses.dataclass(frozen=True)
class QuantLayout:
    """What a quantizer produces (frugal_quant_layout)."""

    dtype: DType
    scaling_mode: ScalingMode
    block_rows: int
    block_cols: int
    scale_dtype: DType
    flags: int

    @property
    def has_zero_point(self):
        """True for layouts with an int8 zero point (asymmetric INT8)."""
        return bool(self.flags & QUANT_LAYOUT_ZERO_POINT)


def _rows_cols(shape, what):
    if len(shape) == 0:
        raise ValueError(f"{what}: a scalar cannot be quantized; give it at least one dimension")
    if len(shape) == 1:
        return 1, shape[0]
    return math.prod(shape[:-1]), shape[-1]


class QuantizedTensor:
    """Quantized codes and their scales, as Tensors this object owns (close() releases them).

    Attributes: ``codes`` (the input's shape, layout dtype), ``scale_inv``
    and ``scale`` (float32, the scale grid), ``amax`` (float32, one
    element), ``zero_point`` (int8, the grid; None unless the layout has
    one), ``layout``. x ~= codes * scale_inv (per block).
    """

    def __init__(self, layout, codes, scale_inv, scale, amax, zero_point, owned=()):
        self.layout = layout
        self._owned = list(owned)
        self.codes = codes
        self.scale_inv = scale_inv
        self.scale = scale
        self.amax = amax
        self.zero_point = zero_point

    @property
    def shape(self):
        """The codes' shape (the input's)."""
        return self.codes.shape

    def scale_inv_value(self):
        """The per-tensor dequantization factor as a float (per-tensor layouts)."""
        return float(self.scale_inv.tolist()[0][0] if self.scale_inv.ndim == 2 else self.scale_inv.tolist()[0])

    def scale_value(self):
        """The per-tensor quantization scale as a float (per-tensor layouts)."""
        return float(self.scale.tolist()[0][0] if self.scale.ndim == 2 else self.scale.tolist()[0])

    def amax_value(self):
        """The input's absolute maximum as a float."""
        return float(self.amax.tolist()[0])

    def _with_meta(self):
        """(codes view with quant meta attached, objects to keep alive during the call)."""
        meta = t.sized(
            t.QuantMeta,
            scaling_mode=int(self.layout.scaling_mode),
            block_rows=self.layout.block_rows,
            block_cols=self.layout.block_cols,
        )
        meta.scale_inv = self.scale_inv.view
        if self.scale is not None:
            meta.scale = self.scale.view
        if self.amax is not None:
            meta.amax = self.amax.view
        keep = [meta]
        if self.zero_point is not None:
            ext = t.QuantZeroPointExt()
            ext.header.struct_size = ctypes.sizeof(t.QuantZeroPointExt)
            ext.header.type = _EXT_QUANT_ZERO_POINT
            ext.zero_point = self.zero_point.view
            meta.ext = ctypes.cast(ctypes.pointer(ext), ctypes.POINTER(t.ExtHeader))
            keep.append(ext)
        codes = view_copy(self.codes, self.layout.dtype)
        codes.quant = ctypes.pointer(meta)
        return codes, keep

    def close(self):
        """Releases the tensors it made or imported; a caller's frugal.Tensor stays open."""
        while self._owned:
            self._owned.pop().close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False


class Quantizer(Handle):
    """An owned quantizer, e.g. ``Quantizer(ctx, "quant_fp8", format="e4m3", recipe="current")``."""

    _what = "quantizer"

    def __init__(self, context, name, options=None, **kwargs):
        super().__init__(create("frugal_quantizer_create", context, name, options, kwargs))
        self.name = name
        try:
            raw = t.sized(t.QuantLayout)
            check(_lib.lib().frugal_quantizer_layout(self.address, ctypes.byref(raw)))
        except BaseException:
            self.close()
            raise
        #: The layout (QuantLayout), fixed at creation.
        self.layout = QuantLayout(
            dtype=DType(raw.dtype),
            scaling_mode=ScalingMode(raw.scaling_mode),
            block_rows=raw.block_rows,
            block_cols=raw.block_cols,
            scale_dtype=DType(raw.scale_dtype),
            flags=raw.flags,
        )

    def _release(self, address):
        _lib.lib().frugal_quantizer_destroy(address)

    def scale_shape(self, rows, cols):
        """The scale grid (a, b) for a [rows, cols] input."""
        shape = (ctypes.c_int64 * 2)()
        check(_lib.lib().frugal_quantizer_scale_shape(self.address, rows, cols, shape))
        return shape[0], shape[1]

    def quantize(self, x, out=None, fake=None, *, scale_inv=None, scale=None, amax=None, zero_point=None,
                 freeze_scale=False):
        """Quantizes ``x``; returns a QuantizedTensor owning (or holding) every output.

        ``out`` (codes), ``scale_inv``, ``scale``, ``amax`` and
        ``zero_point`` may be caller tensors written in place; missing ones
        are allocated by frugal. ``fake`` (optional, written in place)
        receives dequantize(quantize(x)) in x's dtype. ``freeze_scale`` uses
        the current scale without recording this amax (evaluation).
        """
        with TensorArgs() as args:
            source = args.add(x, "x")
            rows, cols = _rows_cols(source.shape, "x")
            grid = self.scale_shape(rows, cols)
            outputs = _Outputs()
            try:
                codes = outputs.take(out, "out", source.shape, self.layout.dtype)
                inv = outputs.take(scale_inv, "scale_inv", grid, self.layout.scale_dtype)
                fwd = outputs.take(scale, "scale", grid, self.layout.scale_dtype)
                peak = outputs.take(amax, "amax", (1,), DType.FLOAT32)
                zero = (outputs.take(zero_point, "zero_point", grid, DType.INT8)
                        if self.layout.has_zero_point else None)
                result = QuantizedTensor(self.layout, codes, inv, fwd, peak, zero, outputs.owned)
                output_view, keep = result._with_meta()
                fake_tensor = args.add(fake, "fake", writable=True)
                call = t.sized(t.QuantizeArgs, flags=QUANTIZE_FREEZE_SCALE if freeze_scale else 0)
                call.input = source.view
                call.output = ctypes.pointer(output_view)
                if fake_tensor is not None:
                    call.fake = fake_tensor.view
                check(_lib.lib().frugal_quantizer_quantize(self.address, ctypes.byref(call)))
                del keep
            except BaseException:
                outputs.close_all()
                raise
        return result

    def dequantize(self, quantized, out=None, dtype=DType.FLOAT32):
        """Dequantizes a QuantizedTensor into ``out`` (written in place) or a new frugal Tensor of ``dtype``.

        Returns ``out`` when given, else the new Tensor.
        """
        codes, keep = quantized._with_meta()
        if out is None:
            result = Tensor.zeros(quantized.shape, dtype)
            try:
                check(_lib.lib().frugal_quantizer_dequantize(self.address, ctypes.byref(codes), result.view, None))
            except BaseException:
                result.close()
                raise
            return result
        with TensorArgs() as args:
            target = args.add(out, "out", writable=True)
            check(_lib.lib().frugal_quantizer_dequantize(self.address, ctypes.byref(codes), target.view, None))
        del keep
        return out

    def export_state(self):
        """The recipe state as bytes (checkpoint it with the model)."""
        return export_blob(_lib.lib().frugal_quantizer_export_state, self.address)

    def import_state(self, blob):
        """Restores a state exported by a quantizer with the same options."""
        import_blob(_lib.lib().frugal_quantizer_import_state, self.address, blob)


class _Outputs:
    """Output tensors of one quantize call: the caller's (imported) or new frugal ones."""

    def __init__(self):
        self.owned = []

    def take(self, value, what, shape, dtype):
        if value is None:
            tensor = Tensor.zeros(shape, dtype)
            self.owned.append(tensor)
        else:
            tensor, temporary = as_tensor(value, what, writable=True)
            if temporary:
                self.owned.append(tensor)
            # An 8-bit integer buffer stands in for 8-bit float codes.
            if tensor.dtype != dtype and not (tensor.dtype.itemsize == dtype.itemsize == 1):
                raise ValueError(f"{what}: expected {as_dtype(dtype).name.lower()}, got {tensor.dtype.name.lower()}")
        return tensor

    def close_all(self):
        while self.owned:
            self.owned.pop().close()
