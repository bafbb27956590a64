"""Typed named values that configure contexts and strategies (frugal/options.h).

The Python type of a value decides the option type: ``bool`` -> BOOL (checked
before int, since bool is an int subclass), ``int`` -> INT, ``float`` ->
DOUBLE, ``str`` -> STRING, a :class:`frugal.Comm` -> COMM (read back as that
same object). Anything else is a TypeError naming the option.

Strategy constructors accept a mapping or an :class:`Options`; they build a
temporary Options for the create call, which reads it during the call only.

Thread-safety: setters and close() need exclusive access; getters may run
concurrently with each other.
"""

import ctypes
import enum

from . import _lib
from ._handle import Handle
from .errors import check, encode


def _is_comm(value):
    from .comm import Comm  # pylint: disable=import-outside-toplevel  (comm.py imports this module)

    return isinstance(value, Comm)


class OptionType(enum.IntEnum):
    """frugal_option_type_values."""

    INT = 1
    DOUBLE = 2
    BOOL = 3
    STRING = 4
    COMM = 5


class Options(Handle):
    """An owned frugal_options object (close() or a ``with`` block releases it).

    ``Options({"lr": 3e-4, "warmup_steps": 100})`` or ``Options(lr=3e-4)``.
    """

    _what = "options"
    _copy_hint = "build another with Options(options.to_dict())"

    def __init__(self, values=None, **kwargs):
        # The frugal.Comm of each COMM option set here, by encoded name: the
        # C object holds only its address, so reading the option back (items,
        # to_dict, a merge with keyword options) returns this object.
        self._comms = {}
        out = ctypes.c_void_p()
        check(_lib.lib().frugal_options_create(ctypes.byref(out)))
        super().__init__(out.value)
        try:
            self.update(values or {})
            self.update(kwargs)
        except BaseException:
            self.close()
            raise

    def _release(self, address):
        _lib.lib().frugal_options_destroy(address)

    def update(self, values):
        """Sets every (name, value) of a mapping, in its iteration order."""
        for name, value in dict(values).items():
            self[name] = value

    def __setitem__(self, name, value):
        lib = _lib.lib()
        key = encode(name, "option name")
        if isinstance(value, bool):
            check(lib.frugal_options_set_bool(self.address, key, 1 if value else 0))
        elif isinstance(value, int):
            check(lib.frugal_options_set_int(self.address, key, value))
        elif isinstance(value, float):
            check(lib.frugal_options_set_double(self.address, key, value))
        elif isinstance(value, str):
            check(lib.frugal_options_set_string(self.address, key, encode(value, f"option {name!r}")))
        elif _is_comm(value):
            # The options, and every object created from them, keep the comm alive.
            check(lib.frugal_options_set_comm(self.address, key, value.address))
            self._comms[key] = value
            return
        else:
            raise TypeError(f"option {name!r}: value must be bool, int, float, str or frugal.Comm, "
                            f"not {type(value).__name__}")
        self._comms.pop(key, None)  # replaced by a value of another type

    def set_parsed(self, name, text):
        """Sets ``name`` from text the way a command line spells it ("true", "42", "1e-3", "ffd")."""
        check(_lib.lib().frugal_options_set_parsed(self.address, encode(name, "option name"), encode(text, "text")))

    def type_of(self, name):
        """The OptionType of ``name``, or None when it is absent."""
        value = _lib.lib().frugal_options_type(self.address, encode(name, "option name"))
        return OptionType(value) if value else None

    def __len__(self):
        return _lib.lib().frugal_options_count(self.address)

    def __contains__(self, name):
        return self.type_of(name) is not None

    def __getitem__(self, name):
        kind = self.type_of(name)
        if kind is None:
            raise KeyError(name)
        return self._get(encode(name, "option name"), kind)

    def _get(self, key, kind):
        lib = _lib.lib()
        if kind == OptionType.INT:
            out = ctypes.c_int64()
            check(lib.frugal_options_get_int(self.address, key, 0, ctypes.byref(out)))
            return out.value
        if kind == OptionType.DOUBLE:
            out = ctypes.c_double()
            check(lib.frugal_options_get_double(self.address, key, 0.0, ctypes.byref(out)))
            return out.value
        if kind == OptionType.BOOL:
            out = ctypes.c_int32()
            check(lib.frugal_options_get_bool(self.address, key, 0, ctypes.byref(out)))
            return bool(out.value)
        if kind == OptionType.COMM:
            return self._comms[key]
        out = ctypes.c_char_p()
        check(lib.frugal_options_get_string(self.address, key, None, ctypes.byref(out)))
        return out.value.decode("utf-8")

    def items(self):
        """Every (name, value) in insertion order, copied into Python values."""
        lib = _lib.lib()
        result = []
        for index in range(len(self)):
            name = ctypes.c_char_p()
            kind = ctypes.c_int32()
            check(lib.frugal_options_entry(self.address, index, ctypes.byref(name), ctypes.byref(kind)))
            result.append((name.value.decode("utf-8"), self._get(name.value, OptionType(kind.value))))
        return result

    def to_dict(self):
        """The values as a plain dict."""
        return dict(self.items())


class _BorrowedOrOwned:
    """Context manager yielding the address of an Options built from a mapping (or a given one)."""

    def __init__(self, values):
        self._given = values if isinstance(values, Options) else None
        self._owned = None if self._given is not None or values is None else Options(values)

    def __enter__(self):
        holder = self._given or self._owned
        return holder.address if holder is not None else None

    def __exit__(self, *exc_info):
        if self._owned is not None:
            self._owned.close()
        return False


def options_arg(options, extra):
    """For create calls: merges ``options`` (mapping, Options or None) and keyword ``extra``.

    Returns a context manager yielding the options address (None for no options).
    """
    if extra:
        if isinstance(options, Options):
            merged = options.to_dict()
        else:
            merged = dict(options or {})
        merged.update(extra)
        options = merged
    return _BorrowedOrOwned(options)
