"""Checkpoint storage backends (frugal/store.h), e.g. ``Store(ctx, "fs", root="/data/ckpt")``.

Keys follow frugal/store_vtable.h's rules; a bad key raises FrugalError
INVALID_ARGUMENT before the backend sees it.

Thread-safety: calls on different keys may run concurrently; calls on one
key are serialised by the caller. close() must not race other calls.
"""

import ctypes

from . import _lib
from . import _types as t
from ._handle import Handle
from ._strategy import create
from .errors import check, encode


def check_key(key):
    """Raises FrugalError INVALID_ARGUMENT naming the offending component of a bad key."""
    check(_lib.lib().frugal_store_check_key(encode(key, "key")))


class Store(Handle):
    """An open storage backend. Checkpoint engines created on it keep it open after close()."""

    _what = "store"

    def __init__(self, context, name, options=None, **kwargs):
        super().__init__(create("frugal_store_create", context, name, options, kwargs))
        self.name = name

    def _release(self, address):
        _lib.lib().frugal_store_destroy(address)

    def put(self, key, data):
        """Atomically and durably writes object ``key`` from a bytes-like object."""
        payload = bytes(data)
        check(_lib.lib().frugal_store_put(self.address, encode(key, "key"), payload, len(payload)))

    def size(self, key):
        """The size of object ``key``; FrugalError NOT_FOUND when absent."""
        out = ctypes.c_uint64()
        check(_lib.lib().frugal_store_size(self.address, encode(key, "key"), ctypes.byref(out)))
        return out.value

    def read(self, key, offset=0, length=None):
        """Bytes [offset, offset + length) of object ``key`` (to its end when length is None)."""
        if length is None:
            length = self.size(key) - offset
        buffer = ctypes.create_string_buffer(max(length, 1))
        check(_lib.lib().frugal_store_read(self.address, encode(key, "key"), offset, buffer, length))
        return buffer.raw[:length]

    def get(self, key):
        """The whole object ``key`` as bytes."""
        return self.read(key)

    def list(self, prefix=""):
        """[(key, size)] of every object whose key starts with ``prefix``, in key order."""
        found = []

        def collect(_user_data, key, size):
            found.append((key.decode("utf-8", "replace"), size))
            return 0

        callback = t.StoreListFn(collect)
        check(_lib.lib().frugal_store_list(self.address, encode(prefix, "prefix"), callback, None))
        return found

    def remove(self, key):
        """Removes object ``key``; an absent key is not an error."""
        check(_lib.lib().frugal_store_remove(self.address, encode(key, "key")))
