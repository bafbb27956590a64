"""Element types (frugal_dtype_values) and their Python spellings.

A dtype may be given as a :class:`DType`, its int value, or a name:
frugal's own ("float32", "float8_e4m3fn", ...) or numpy's and torch's
("float32", "torch.float32", "f4", ...). ``ITEM_FORMAT`` maps each dtype
to the struct-module format and the array-interface typestr used for
zero-copy views; 8-bit float codes (no numpy or torch 1.13 equivalent) are
viewed as raw uint8 and bfloat16 as raw uint16.
"""

import enum


class DType(enum.IntEnum):
    """frugal_dtype_values (frugal/tensor.h)."""

    FLOAT32 = 1
    FLOAT16 = 2
    BFLOAT16 = 3
    FLOAT64 = 4
    FLOAT8_E4M3FN = 5
    FLOAT8_E5M2 = 6
    FLOAT8_E8M0FNU = 7
    INT8 = 8
    UINT8 = 9
    INT16 = 10
    INT32 = 11
    INT64 = 12
    BOOL = 13

    @property
    def itemsize(self):
        """Bytes per element."""
        return ITEM_FORMAT[self][2]


#: DType -> (struct format for memoryview, array-interface typestr, bytes per element).
ITEM_FORMAT = {
    DType.FLOAT32: ("f", "<f4", 4),
    DType.FLOAT16: ("e", "<f2", 2),
    DType.BFLOAT16: ("H", "<u2", 2),
    DType.FLOAT64: ("d", "<f8", 8),
    DType.FLOAT8_E4M3FN: ("B", "|u1", 1),
    DType.FLOAT8_E5M2: ("B", "|u1", 1),
    DType.FLOAT8_E8M0FNU: ("B", "|u1", 1),
    DType.INT8: ("b", "|i1", 1),
    DType.UINT8: ("B", "|u1", 1),
    DType.INT16: ("h", "<i2", 2),
    DType.INT32: ("i", "<i4", 4),
    DType.INT64: ("q", "<i8", 8),
    DType.BOOL: ("?", "|b1", 1),
}

_ALIASES = {
    "float": DType.FLOAT32,
    "half": DType.FLOAT16,
    "double": DType.FLOAT64,
    "long": DType.INT64,
    "int": DType.INT32,
    "f4": DType.FLOAT32,
    "f2": DType.FLOAT16,
    "f8": DType.FLOAT64,
    "i1": DType.INT8,
    "u1": DType.UINT8,
    "i2": DType.INT16,
    "i4": DType.INT32,
    "i8": DType.INT64,
    "b1": DType.BOOL,
    "e4m3": DType.FLOAT8_E4M3FN,
    "e5m2": DType.FLOAT8_E5M2,
}

#: Array-interface typestr (without byte order) -> DType, for wrapping foreign buffers.
_FROM_TYPESTR = {"f4": DType.FLOAT32, "f2": DType.FLOAT16, "f8": DType.FLOAT64, "i1": DType.INT8,
                 "u1": DType.UINT8, "i2": DType.INT16, "i4": DType.INT32, "i8": DType.INT64, "b1": DType.BOOL}

#: struct format -> DType, for wrapping buffer-protocol objects (array.array, bytearray, memoryview).
_FROM_FORMAT = {"f": DType.FLOAT32, "e": DType.FLOAT16, "d": DType.FLOAT64, "b": DType.INT8, "B": DType.UINT8,
                "c": DType.UINT8, "h": DType.INT16, "i": DType.INT32, "l": DType.INT64, "q": DType.INT64,
                "?": DType.BOOL}


def as_dtype(value):
    """Normalises a DType, int or name to a DType; ValueError for anything unknown."""
    if isinstance(value, DType):
        return value
    if isinstance(value, int):
        return DType(value)
    name = str(value).lower()
    for prefix in ("torch.", "numpy.", "np."):
        if name.startswith(prefix):
            name = name[len(prefix):]
    name = name.lstrip("<>|=")
    if name in _ALIASES:
        return _ALIASES[name]
    try:
        return DType[name.upper()]
    except KeyError:
        raise ValueError(f"unknown dtype {value!r}") from None


def from_typestr(typestr):
    """The DType of an array-interface typestr such as "<f4"; ValueError when frugal has none."""
    if typestr[0] == ">":
        raise ValueError(f"big-endian data ({typestr}) is not supported")
    try:
        return _FROM_TYPESTR[typestr[1:]]
    except KeyError:
        raise ValueError(f"no frugal dtype for array typestr {typestr!r}") from None


def from_format(fmt, itemsize):
    """The DType of a memoryview format; ValueError when frugal has none."""
    code = fmt.lstrip("@=<")
    dtype = _FROM_FORMAT.get(code)
    if dtype is None or dtype.itemsize != itemsize:
        raise ValueError(f"no frugal dtype for buffer format {fmt!r} of {itemsize} bytes")
    return dtype
