"""The frugal_ckpt_slice argument of CheckpointEngine.register_slice (ABI 2.2).

The C side copies the slice and both arrays during the call, so they live
in a :class:`SliceArg` the caller holds until frugal_ckpt_register_slice
returns, and no longer. The binding checks only what it must to build the
struct (one extent and one offset per dimension of the tensor); bounds,
overlap and the replicated rules are the core's to report.
"""

import ctypes

from . import _types as t


def _int64s(values, what, ndim, name):
    """A c_int64 array of ``ndim`` ints from a sequence, or a ValueError naming the slice."""
    values = [int(v) for v in values]
    if len(values) != ndim:
        raise ValueError(f"checkpoint slice {name!r}: {what} has {len(values)} values but the tensor has "
                         f"{ndim} dimensions")
    # One element at least: a 0-dimensional tensor still gets a valid (unread) array.
    return (ctypes.c_int64 * max(ndim, 1))(*values)


class SliceArg:
    """A filled frugal_ckpt_slice (``.slice``) and the arrays it points at, for one call.

    ``global_shape``: the whole tensor's extents; ``offsets``: where this
    rank's box starts (None: at zeros, passed as NULL); ``replicated``:
    every rank holds the whole tensor.
    """

    def __init__(self, name, ndim, global_shape, offsets, replicated):
        self._global_shape = _int64s(global_shape, "global_shape", ndim, name)
        self._offsets = None if offsets is None else _int64s(offsets, "offsets", ndim, name)
        self.slice = t.sized(
            t.CkptSlice,
            ndim=ndim,
            replicated=1 if replicated else 0,
            global_shape=ctypes.cast(self._global_shape, ctypes.POINTER(ctypes.c_int64)),
            offsets=ctypes.cast(self._offsets, ctypes.POINTER(ctypes.c_int64)) if self._offsets is not None else None,
        )
