"""Errors from libfrugal as Python exceptions.

Every fallible C call returns a ``frugal_error*``; :func:`check` turns a
non-NULL one into a :class:`FrugalError` carrying the stable code, its name
and the message, and destroys the C object (the binding owns it). There is
no thread-local "last error" in frugal, so errors are exact even when
several threads call into the library.

Mistakes the binding catches before calling C (a closed handle, a wrong
Python type) raise the usual Python exceptions (ValueError, TypeError), not
FrugalError, except a closed handle, which raises FrugalError with
FAILED_PRECONDITION like the other bindings.
"""

import enum

from . import _lib


class ErrorCode(enum.IntEnum):
    """Stable error codes (frugal_error_code_values in frugal/types.h)."""

    OK = 0
    INVALID_ARGUMENT = 1
    NOT_FOUND = 2
    ALREADY_EXISTS = 3
    OUT_OF_RANGE = 4
    UNIMPLEMENTED = 5
    UNSUPPORTED = 6
    ABI_MISMATCH = 7
    PLUGIN_INVALID = 8
    IO = 9
    DATA_CORRUPTED = 10
    OUT_OF_MEMORY = 11
    FAILED_PRECONDITION = 12
    DEADLINE_EXCEEDED = 13
    CANCELLED = 14
    DEVICE = 15
    INTERNAL = 16


class FrugalError(Exception):
    """An error reported by libfrugal (or a plugin through it).

    Attributes:
        code: the frugal error code (int; compare with :class:`ErrorCode`).
        code_name: its stable name, e.g. ``"NOT_FOUND"``.
        message: the human-readable message from the core.
    Immutable; safe to pass between threads.
    """

    def __init__(self, code, message, code_name=None):
        self.code = int(code)
        self.code_name = code_name if code_name is not None else _code_name(self.code)
        self.message = message
        super().__init__(f"[{self.code_name}] {message}")


def _code_name(code):
    try:
        return ErrorCode(code).name
    except ValueError:
        return "UNKNOWN"


def check(error_address):
    """Raises FrugalError for a non-NULL ``frugal_error*`` (an int address) and destroys it.

    Returns None when the address is NULL (0 or None): the call succeeded.
    """
    if not error_address:
        return
    lib = _lib.lib()
    try:
        code = lib.frugal_error_code(error_address)
        raw_message = lib.frugal_error_message(error_address) or b""
        raw_name = lib.frugal_error_code_name(code) or b"UNKNOWN"
        message = raw_message.decode("utf-8", "replace")
        name = raw_name.decode("ascii", "replace")
    finally:
        lib.frugal_error_destroy(error_address)
    raise FrugalError(code, message, name)


def closed_error(what):
    """The error a method raises when its handle was already closed."""
    return FrugalError(ErrorCode.FAILED_PRECONDITION, f"{what} is closed", "FAILED_PRECONDITION")


def encode(text, what):
    """UTF-8 bytes of ``text`` for a ``const char*`` argument; refuses NUL characters clearly."""
    if isinstance(text, bytes):
        data = text
    elif isinstance(text, str):
        data = text.encode("utf-8")
    else:
        raise TypeError(f"{what} must be str, not {type(text).__name__}")
    if b"\0" in data:
        raise ValueError(f"{what} must not contain a NUL character")
    return data
