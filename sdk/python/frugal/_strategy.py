"""The arguments every frugal_*_create/open call takes: context, name, options, out."""

import ctypes

from . import _lib
from .context import Context
from .errors import check, encode
from .options import options_arg


def create(function_name, context, name, options, extra):
    """Calls ``function_name(context, name, options, &out)`` and returns the new object's address.

    ``options`` is a mapping, an Options or None; ``extra`` keyword options
    are merged over it. Raises FrugalError as the core reports it.
    """
    if not isinstance(context, Context):
        raise TypeError(f"context must be a frugal.Context, not {type(context).__name__}")
    out = ctypes.c_void_p()
    with options_arg(options, extra) as options_address:
        function = getattr(_lib.lib(), function_name)
        check(function(context.address, encode(name, "strategy name"), options_address, ctypes.byref(out)))
    return out.value
