"""Owning tensors (frugal_managed_tensor) and the zero-copy ways in and out.

In, without a copy:
  * ``Tensor.from_dlpack(x)``: anything with ``__dlpack__`` (numpy >= 1.22
    arrays, torch tensors, another library's) or a raw DLPack capsule. The
    Tensor holds the producer's deleter: the producer's memory stays alive
    until the Tensor is closed.
  * ``Tensor.wrap(x)``: objects with ``__array_interface__`` (numpy arrays,
    including read-only ones numpy refuses to export) or the buffer
    protocol (array.array, bytearray, memoryview). The Tensor keeps a
    reference to ``x`` until frugal releases the memory, then calls
    ``on_release``.
  * every frugal call that takes a tensor accepts any of the above and
    converts it for the duration of the call (:func:`as_tensor`).

Out, without a copy:
  * ``__dlpack__`` / ``__dlpack_device__``: ``np.from_dlpack(t)``,
    ``torch.utils.dlpack.from_dlpack(t)``, ``torch.from_dlpack(t)``. The
    export MOVES the memory to the consumer (frugal_managed_tensor_to_dlpack):
    afterwards this Tensor is closed, and the consumer releases the memory
    when it is done. A capsule nobody consumed releases it when collected.
  * ``__array_interface__``: ``np.asarray(t)`` views the memory and keeps
    this Tensor alive. Once such a view was taken the Tensor refuses to be
    exported (the view would outlive the memory), and close() only hides
    the handle: the memory is released when the last view is gone.

Thread-safety: distinct Tensors are independent; one Tensor must not be
closed or exported while another thread uses it.
"""

import ctypes
import math
import struct

from . import _lib
from . import _types as t
from . import dlpack
from ._handle import Handle
from .dtypes import ITEM_FORMAT, DType, as_dtype, from_format, from_typestr
from .errors import check

DEVICE_CPU = 1
DEVICE_CUDA = 2
DEVICE_CUDA_PINNED = 3

_CTYPE_OF_FORMAT = {"f": ctypes.c_float, "d": ctypes.c_double, "b": ctypes.c_int8, "B": ctypes.c_uint8,
                    "h": ctypes.c_int16, "H": ctypes.c_uint16, "i": ctypes.c_int32, "q": ctypes.c_int64,
                    "?": ctypes.c_bool}

# Objects a wrapped Tensor keeps alive until frugal calls the release
# function, keyed by the user_data frugal hands back.
_kept_alive = {}
_next_key = [1]


def _release_kept(user_data):
    # Runs wherever frugal releases the memory (any thread; ctypes takes
    # the GIL). Pops exactly once: frugal calls release exactly once.
    entry = _kept_alive.pop(user_data, None)
    if entry is not None and entry[1] is not None:
        entry[1]()


# Kept for the process: frugal may release a wrapped tensor exported to a
# consumer at any time, including interpreter shutdown.
_RELEASE_KEPT = t.ReleaseFn(_release_kept)
ctypes.pythonapi.Py_IncRef.argtypes = [ctypes.py_object]
ctypes.pythonapi.Py_IncRef(_RELEASE_KEPT)


class Tensor(Handle):
    """An owned frugal_managed_tensor: a tensor view plus what keeps its memory alive."""

    _what = "tensor"
    _copy_hint = "copy its data out (numpy.array(tensor)) or move it through DLPack"

    def __init__(self, address):
        super().__init__(address)
        self._shared = False  # an __array_interface__ view exists
        self._deferred = None  # address close() left for __del__ because views exist

    # --- making tensors ---------------------------------------------------

    @classmethod
    def zeros(cls, shape, dtype=DType.FLOAT32):
        """A new zero-filled, compact, 64-byte-aligned CPU tensor allocated by frugal."""
        dims = [int(d) for d in shape]
        shape_array = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        out = ctypes.c_void_p()
        check(_lib.lib().frugal_managed_tensor_alloc(int(as_dtype(dtype)), len(dims), shape_array, ctypes.byref(out)))
        return cls(out.value)

    @classmethod
    def from_dlpack(cls, source):
        """Imports a DLPack producer (``__dlpack__``) or capsule without copying.

        Raises FrugalError for tensors frugal cannot describe (e.g.
        complex dtypes: UNSUPPORTED), TypeError for objects that are neither.
        """
        if isinstance(source, Tensor):
            raise TypeError("already a frugal.Tensor")
        if dlpack.is_capsule(source):
            capsule = source
        elif hasattr(source, "__dlpack__"):
            capsule = dlpack.export_from(source)
        else:
            raise TypeError(f"{type(source).__name__} has no __dlpack__ and is not a DLPack capsule")
        return cls(dlpack.take_capsule(capsule))

    @classmethod
    def wrap(cls, source, on_release=None):
        """Wraps an ``__array_interface__`` or buffer-protocol object's memory without copying.

        ``source`` is kept alive until frugal releases the memory (when this
        Tensor, or a consumer it was exported to, is done); then
        ``on_release()`` is called, exactly once.
        """
        view, shape, strides, keep = _describe_foreign(source)
        view.shape = shape
        view.strides = strides
        key = _next_key[0]
        _next_key[0] += 1
        _kept_alive[key] = (keep, on_release)
        out = ctypes.c_void_p()
        try:
            check(_lib.lib().frugal_managed_tensor_wrap(ctypes.byref(view), _RELEASE_KEPT, key, ctypes.byref(out)))
        except BaseException:
            _kept_alive.pop(key, None)  # on failure frugal does not call release
            raise
        return cls(out.value)

    # --- reading the view -------------------------------------------------

    @property
    def view(self):
        """POINTER(frugal_tensor) owned by this Tensor, for passing to C; valid until close/export."""
        return _lib.lib().frugal_managed_tensor_view(self.address)

    @property
    def dtype(self):
        """The element type (DType)."""
        return DType(self.view.contents.dtype)

    @property
    def ndim(self):
        """Number of dimensions."""
        return self.view.contents.ndim

    @property
    def shape(self):
        """Extents, as a tuple."""
        view = self.view.contents
        return tuple(view.shape[i] for i in range(view.ndim))

    @property
    def strides(self):
        """Strides in elements, as a tuple (always filled by frugal)."""
        view = self.view.contents
        return tuple(view.strides[i] for i in range(view.ndim))

    @property
    def data_ptr(self):
        """Address of the first element (data + byte_offset), as an int; 0 for an empty tensor."""
        view = self.view.contents
        return (view.data or 0) + view.byte_offset

    @property
    def device(self):
        """(device type, device index): (1, 0) for host memory."""
        view = self.view.contents
        return view.device.type, view.device.id

    @property
    def numel(self):
        """Number of elements."""
        return math.prod(self.shape)

    @property
    def read_only(self):
        """True when the tensor was imported read-only (writing through it is a bug)."""
        return bool(_lib.lib().frugal_managed_tensor_is_read_only(self.address))

    def is_contiguous(self):
        """True when the strides are compact row-major."""
        expected = 1
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True

    def tolist(self):
        """The elements as nested Python lists (a copy); host memory only.

        8-bit float codes come out as their raw byte values, bfloat16 as raw
        16-bit patterns (Python has no such types).
        """
        if self.device[0] == DEVICE_CUDA:
            raise ValueError("tolist() reads host memory; this tensor lives on a CUDA device")
        fmt, _, itemsize = ITEM_FORMAT[self.dtype]
        shape, strides, base = self.shape, self.strides, self.data_ptr
        if fmt == "e":  # ctypes has no half type; struct does

            def read(address):
                return struct.unpack("<e", ctypes.string_at(address, 2))[0]

        else:
            ctype = _CTYPE_OF_FORMAT[fmt]

            def read(address):
                return ctype.from_address(address).value

        def build(dim, address):
            if dim == len(shape):
                return read(address)
            return [build(dim + 1, address + i * strides[dim] * itemsize) for i in range(shape[dim])]

        return build(0, base)

    # --- exporting ----------------------------------------------------------

    def __dlpack_device__(self):
        """(DLDeviceType, device id), as the DLPack protocol asks."""
        return self.device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Moves this tensor into a DLPack capsule (legacy "dltensor" unless max_version >= 1).

        Afterwards this Tensor is closed; the consumer owns the memory.
        Raises BufferError when a copy is demanded (frugal never copies), for
        a device change, or while numpy views of this Tensor may be alive.
        """
        if copy:
            raise BufferError("frugal exports without copying; copy=True is not supported")
        if dl_device is not None and tuple(dl_device) != self.device:
            raise BufferError(f"cannot move a tensor on device {self.device} to {tuple(dl_device)}")
        if stream not in (None, -1) and self.device[0] != DEVICE_CUDA:
            raise BufferError(f"stream must be None for host memory, got {stream!r}")
        if self._shared:
            raise BufferError("an __array_interface__ view of this tensor exists; exporting would let it dangle")
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        capsule = dlpack.make_capsule(self.address, versioned)
        self._address = None  # moved into the capsule
        return capsule

    @property
    def __array_interface__(self):
        """A numpy view (``np.asarray(t)``) that keeps this Tensor alive; host memory only."""
        if self.device[0] == DEVICE_CUDA:
            raise AttributeError("__array_interface__ describes host memory; this tensor lives on a CUDA device")
        self._shared = True
        itemsize = self.dtype.itemsize
        return {
            "version": 3,
            "shape": self.shape,
            "typestr": ITEM_FORMAT[self.dtype][1],
            "data": (self.data_ptr, self.read_only),
            "strides": tuple(s * itemsize for s in self.strides) if self.ndim else None,
        }

    # --- lifetime -----------------------------------------------------------

    def close(self):
        """Releases the memory (running the producer's deleter for imported tensors).

        With numpy views alive (see ``__array_interface__``) only the handle
        is dropped; the memory goes when the last view does.
        """
        if self._shared and self._address:
            self._deferred, self._address = self._address, None
            return
        super().close()

    def _release(self, address):
        _lib.lib().frugal_managed_tensor_destroy(address)

    def __del__(self):
        deferred, self._deferred = getattr(self, "_deferred", None), None
        try:
            if deferred:
                self._release(deferred)
            self.close()
        except Exception:
            pass

    def __repr__(self):
        if self.closed:
            return "frugal.Tensor(<closed>)"
        return f"frugal.Tensor(shape={self.shape}, dtype={self.dtype.name.lower()}, device={self.device})"


def _describe_foreign(source):
    """(frugal_tensor without shape/strides, shape array, strides array, object to keep alive)."""
    view = t.sized(t.FrugalTensor)
    view.device.type = DEVICE_CPU
    interface = getattr(source, "__array_interface__", None)
    if interface is not None:
        dtype = from_typestr(interface["typestr"])
        dims = tuple(interface["shape"])
        address, _read_only = interface["data"]
        byte_strides = interface.get("strides")
        keep = source
    else:
        memory = memoryview(source)
        dtype = from_format(memory.format, memory.itemsize)
        dims = memory.shape
        byte_strides = memory.strides
        # The address of the first element, through a ctypes view of the buffer.
        if memory.readonly:
            raise ValueError("read-only buffers cannot be wrapped (frugal may write through a tensor)")
        holder = (ctypes.c_char * memory.nbytes).from_buffer(memory.cast("B") if memory.ndim != 1 else memory)
        address = ctypes.addressof(holder)
        keep = (source, memory, holder)
    itemsize = dtype.itemsize
    strides = None
    if byte_strides is not None:
        if any(s % itemsize for s in byte_strides):
            raise ValueError("strides that are not a multiple of the element size are not supported")
        strides = (ctypes.c_int64 * max(len(dims), 1))(*[s // itemsize for s in byte_strides])
    view.data = address
    view.dtype = int(dtype)
    view.ndim = len(dims)
    shape = (ctypes.c_int64 * max(len(dims), 1))(*dims)
    return view, shape, strides, keep


def as_tensor(value, what, writable=False):
    """A Tensor for a call argument, and whether the caller must close it after the call.

    Accepts a Tensor (borrowed), a DLPack producer or capsule (imported), or
    an array-interface / buffer object (wrapped). ``writable`` refuses
    read-only sources for tensors frugal writes into.
    """
    if isinstance(value, Tensor):
        if writable and value.read_only:
            raise ValueError(f"{what}: the tensor is read-only")
        return value, False
    if dlpack.is_capsule(value):
        tensor = Tensor.from_dlpack(value)
        return tensor, True
    if hasattr(value, "__dlpack__"):
        try:
            tensor = Tensor.from_dlpack(value)
        except BufferError as error:
            # numpy refuses to export read-only arrays; they can still be read.
            if writable:
                raise ValueError(f"{what}: cannot be written through: {error}") from error
            if not hasattr(value, "__array_interface__"):
                raise
            return Tensor.wrap(value), True
        if writable and tensor.read_only:
            tensor.close()
            raise ValueError(f"{what}: the tensor is read-only")
        return tensor, True
    if hasattr(value, "__array_interface__"):
        if writable and value.__array_interface__["data"][1]:
            raise ValueError(f"{what}: the array is read-only")
        return Tensor.wrap(value), True
    try:
        return Tensor.wrap(value), True
    except TypeError:
        raise TypeError(
            f"{what}: expected a frugal.Tensor, a DLPack producer (numpy array, torch tensor) or a buffer, "
            f"not {type(value).__name__}"
        ) from None


class TensorArgs:
    """Converts several call arguments and closes the temporaries afterwards (a context manager)."""

    def __init__(self):
        self._temporaries = []

    def add(self, value, what, writable=False):
        """The Tensor for ``value`` (None stays None); temporaries are closed on exit."""
        if value is None:
            return None
        tensor, temporary = as_tensor(value, what, writable)
        if temporary:
            self._temporaries.append(tensor)
        return tensor

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        while self._temporaries:
            self._temporaries.pop().close()
        return False


def view_copy(tensor, dtype=None):
    """A caller-owned copy of ``tensor``'s frugal_tensor struct (shape/strides still point into it).

    Used to attach quantization metadata or reinterpret the dtype of a
    same-width buffer; valid while ``tensor`` is open.
    """
    copy = t.FrugalTensor.from_buffer_copy(tensor.view.contents)
    copy.struct_size = ctypes.sizeof(t.FrugalTensor)
    if dtype is not None:
        copy.dtype = int(dtype)
    return copy
