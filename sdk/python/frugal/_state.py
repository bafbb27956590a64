"""Serialised strategy state: the size-query-then-copy pattern of frugal_*_export_state."""

import ctypes

from .errors import check


def export_blob(function, address):
    """Calls ``function(address, NULL, 0, &size)`` then ``function(address, buffer, size, &size)``; returns bytes."""
    size = ctypes.c_size_t()
    check(function(address, None, 0, ctypes.byref(size)))
    buffer = ctypes.create_string_buffer(max(size.value, 1))
    check(function(address, buffer, size.value, ctypes.byref(size)))
    return buffer.raw[: size.value]


def import_blob(function, address, blob):
    """Calls ``function(address, data, size)`` with a bytes-like blob."""
    data = bytes(blob)
    check(function(address, data, len(data)))
