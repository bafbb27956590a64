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

``Quantizer.gemm(a, b)`` multiplies two per-tensor FP8 QuantizedTensors
(D = alpha * A * B^T, fp32 accumulation) into a float32/bfloat16 tensor or
an FP8 QuantizedTensor; ``QuantizedTensor.from_codes`` wraps codes and
scales the caller already holds, without a copy.

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
from ._handle import Handle, NotCopyable
from ._strategy import create
from .dtypes import DType, as_dtype
from ._state import export_blob, import_blob
from .errors import check
from .tensor import Tensor, TensorArgs, as_tensor, view_copy

#: frugal_quantize_args.flags: use the current scale and do not record this amax.
QUANTIZE_FREEZE_SCALE = 1 << 0
#: frugal_quant_layout.flags: outputs carry an int8 zero point.
QUANT_LAYOUT_ZERO_POINT = 1 << 0
#: frugal_quant_gemm_args.flags: Hopper's fast FP8 accumulation (FRUGAL_GEMM_FAST_ACCUM).
_GEMM_FAST_ACCUM = 1 << 0
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


class QuantizedTensor(NotCopyable):
    """Quantized codes and their scales, as Tensors this object owns (close() releases them).

    Attributes: ``codes`` (the input's shape, layout dtype), ``scale_inv``
    and ``scale`` (float32, the scale grid; for MX, scale_inv holds E8M0
    codes e, each the factor 2^(e - 127), and scale is None), ``amax``
    (float32, one element), ``zero_point`` (int8, the grid; None unless the
    layout has one), ``layout``. x ~= codes * scale_inv (per block).
    """

    _copy_hint = "dequantize() it, or copy its tensors' data out (numpy.array(q.codes))"

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

    @classmethod
    def from_codes(cls, codes, scale_inv, dtype, *, scale=None, amax=None, scaling_mode=ScalingMode.CURRENT):
        """Per-tensor FP8 (or INT8) codes the caller holds, with their dequantization factor, without a copy.

        ``codes`` (any shape; uint8/int8 buffers stand for 8-bit float codes)
        and ``scale_inv`` (float32, one element), optionally ``scale`` and
        ``amax`` (float32, one element): frugal.Tensors (borrowed), DLPack
        producers or buffers (imported until close()). ``dtype`` is the
        codes' element type (e.g. DType.FLOAT8_E4M3FN); ``scaling_mode`` is
        per-tensor (CURRENT or DELAYED). For :meth:`Quantizer.gemm` operands
        and :meth:`Quantizer.dequantize`.
        """
        dtype = as_dtype(dtype)
        owned = []
        try:
            tensors = []
            for value, what in ((codes, "codes"), (scale_inv, "scale_inv"), (scale, "scale"), (amax, "amax")):
                if value is None:
                    tensors.append(None)
                    continue
                tensor, temporary = as_tensor(value, what)
                if temporary:
                    owned.append(tensor)
                tensors.append(tensor)
            if tensors[0].dtype != dtype and not (tensors[0].dtype.itemsize == dtype.itemsize == 1):
                raise ValueError(f"codes: expected {dtype.name.lower()} (or an 8-bit integer buffer), "
                                 f"got {tensors[0].dtype.name.lower()}")
            for tensor, what in zip(tensors[1:], ("scale_inv", "scale", "amax")):
                if tensor is not None and tensor.dtype != DType.FLOAT32:
                    raise ValueError(f"{what}: expected float32, got {tensor.dtype.name.lower()}")
        except BaseException:
            while owned:
                owned.pop().close()
            raise
        layout = QuantLayout(dtype=dtype, scaling_mode=ScalingMode(scaling_mode), block_rows=0, block_cols=0,
                             scale_dtype=DType.FLOAT32, flags=0)
        return cls(layout, tensors[0], tensors[1], tensors[2], tensors[3], None, owned)

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
    """An owned quantizer, e.g. ``Quantizer(ctx, "quant_fp8", format="e4m3", recipe="current")``.

    A frugal.Comm as option ``amax_comm`` (quant_fp8's delayed and current
    recipes, ABI 2.4) makes every rank of that group quantize with the
    group's amax: ``Quantizer(ctx, "quant_fp8", recipe="delayed",
    amax_comm=dp_group)``; each recording quantize() is then collective.
    """

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
        are allocated by frugal. MX layouts have no ``scale`` (ValueError
        if one is given): scale_inv's E8M0 codes are the scales. ``fake`` (optional, written in place)
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
                fwd = self._scale_output(outputs, scale, grid)
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

    def _scale_output(self, outputs, scale, grid):
        """The scale tensor of a quantize call; None for MX, whose E8M0 codes in scale_inv are the only scales.

        The C API refuses a quant->scale beside E8M0 scale_inv codes.
        """
        if self.layout.scale_dtype == DType.FLOAT32:
            return outputs.take(scale, "scale", grid, DType.FLOAT32)
        if scale is not None:
            raise ValueError(f"scale: {self.layout.scaling_mode.name.lower()} scaling has no scale tensor "
                             f"(scale_inv alone holds the {self.layout.scale_dtype.name.lower()} scales)")
        return None

    def dequantize(self, quantized, out=None, dtype=DType.FLOAT32):
        """Dequantizes a QuantizedTensor into ``out`` (written in place) or a new frugal Tensor of ``dtype``.

        Returns ``out`` when given, else the new Tensor.
        """
        codes, keep = quantized._with_meta()
        if out is None:
            result = Tensor.zeros(quantized.shape, dtype)
            try:
                self._dequantize(codes, result.view)
            except BaseException:
                result.close()
                raise
            return result
        with TensorArgs() as args:
            target = args.add(out, "out", writable=True)
            self._dequantize(codes, target.view)
        del keep
        return out

    def _dequantize(self, codes, output):
        """frugal_quantizer_dequantize of ``codes`` (a frugal_tensor with its meta) into ``output`` (POINTER)."""
        call = t.sized(t.DequantizeArgs, input=ctypes.pointer(codes), output=output)
        check(_lib.lib().frugal_quantizer_dequantize(self.address, ctypes.byref(call)))

    def gemm(self, a, b, out=None, *, alpha=1.0, dtype=None, scale=None, amax=None, fast_accum=False):
        """D = alpha * A * B^T over per-tensor FP8 operands, fp32 accumulation (frugal_quantizer_gemm).

        ``a`` [m, k] and ``b`` [n, k] are QuantizedTensors (from
        :meth:`quantize` or :meth:`QuantizedTensor.from_codes`) with
        per-tensor scales, E4M3FN or E5M2 (not both E5M2); any quantizer's
        output is accepted, this quantizer only runs the GEMM. N-D operands
        are [prod(leading dims), last].

        D [m, n] is ``out`` (written in place: numpy array, torch tensor or
        frugal.Tensor) or a new frugal Tensor of ``dtype`` (default float32).
        float32 and bfloat16 D are returned as that tensor (``out`` itself
        when given). An FP8 D (``dtype`` FLOAT8_E4M3FN/E5M2, or ``out`` of
        that dtype; an 8-bit integer ``out`` with ``dtype`` naming the
        format) needs ``scale`` (a positive float: D is multiplied by it
        before the cast) and is returned as a QuantizedTensor whose
        scale_inv is 1 / scale and whose amax (``amax``, written in place,
        or a new one) receives the amax of D before scaling.
        ``fast_accum`` asks for Hopper's fast FP8 accumulation (CUDA only).

        Wrong shapes are FrugalError INVALID_ARGUMENT; block-scaled
        operands, dtypes or devices the strategy has no GEMM for are
        UNSUPPORTED; a strategy without a GEMM is UNIMPLEMENTED.
        """
        for operand, what in ((a, "a"), (b, "b")):
            if not isinstance(operand, QuantizedTensor):
                raise TypeError(f"{what} must be a frugal.QuantizedTensor (from quantize() or "
                                f"QuantizedTensor.from_codes()), not {type(operand).__name__}")
        m, _ = _rows_cols(a.shape, "a")
        n, _ = _rows_cols(b.shape, "b")
        call = t.sized(t.QuantGemmArgs, alpha=float(alpha), flags=_GEMM_FAST_ACCUM if fast_accum else 0)
        outputs = _Outputs()
        try:
            target = None
            if out is not None:
                target, temporary = as_tensor(out, "out", writable=True)
                if temporary:
                    outputs.owned.append(target)
            d_dtype = _gemm_output_dtype(target, dtype)
            if d_dtype in _FP8:
                if scale is None:
                    raise ValueError(f"an {d_dtype.name.lower()} output needs scale (D is multiplied by it "
                                     "before the cast)")
                scale = float(scale)
                if not (math.isfinite(scale) and scale > 0.0):
                    raise ValueError(f"scale must be finite and > 0, got {scale!r}")
                codes = outputs.take(target, "out", (m, n), d_dtype)
                fwd = _scalar(outputs, scale)
                inv = _scalar(outputs, 1.0 / scale)
                peak = outputs.take(amax, "amax", (1,), DType.FLOAT32)
                layout = QuantLayout(dtype=d_dtype, scaling_mode=ScalingMode.CURRENT, block_rows=0, block_cols=0,
                                     scale_dtype=DType.FLOAT32, flags=0)
                result = QuantizedTensor(layout, codes, inv, fwd, peak, None, outputs.owned)
                d_view, keep_d = result._with_meta()
                call.d = ctypes.pointer(d_view)
            else:
                if scale is not None or amax is not None:
                    raise ValueError(f"scale and amax apply to an FP8 output, not {d_dtype.name.lower()}")
                result = outputs.take(target, "out", (m, n), d_dtype)
                keep_d = None
                call.d = result.view
            a_view, keep_a = a._with_meta()
            b_view, keep_b = b._with_meta()
            call.a = ctypes.pointer(a_view)
            call.b = ctypes.pointer(b_view)
            check(_lib.lib().frugal_quantizer_gemm(self.address, ctypes.byref(call)))
            del keep_a, keep_b, keep_d
        except BaseException:
            outputs.close_all()
            raise
        if isinstance(result, QuantizedTensor):
            return result
        if out is not None:
            outputs.close_all()  # the imported view of out; the caller's memory holds D
            return out
        return result

    def export_state(self):
        """The recipe state as bytes (checkpoint it with the model)."""
        return export_blob(_lib.lib().frugal_quantizer_export_state, self.address)

    def import_state(self, blob):
        """Restores a state exported by a quantizer with the same options."""
        import_blob(_lib.lib().frugal_quantizer_import_state, self.address, blob)


_FP8 = (DType.FLOAT8_E4M3FN, DType.FLOAT8_E5M2)


def _gemm_output_dtype(target, dtype):
    """D's dtype: ``dtype`` when given (it must fit ``target``), else target's, else float32."""
    if dtype is not None:
        dtype = as_dtype(dtype)
        if target is not None and target.dtype != dtype and not (target.dtype.itemsize == dtype.itemsize == 1):
            raise ValueError(f"out: expected {dtype.name.lower()}, got {target.dtype.name.lower()}")
        return dtype
    if target is None:
        return DType.FLOAT32
    if target.dtype.itemsize == 1 and target.dtype not in _FP8:
        raise ValueError(f"out is {target.dtype.name.lower()}: pass dtype=DType.FLOAT8_E4M3FN or "
                         "DType.FLOAT8_E5M2 to say which FP8 format its bytes hold")
    return target.dtype


def _scalar(outputs, value):
    """A new one-element float32 Tensor holding ``value``, owned by ``outputs``."""
    tensor = Tensor.zeros((1,), DType.FLOAT32)
    outputs.owned.append(tensor)
    ctypes.c_float.from_address(tensor.data_ptr).value = value
    return tensor


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
