"""The base of every owning handle: one C object, released exactly once.

Subclasses set ``_what`` (a name for messages) and implement ``_release``
(the matching frugal_*_destroy/close call). ``close()`` is idempotent and
explicit release is the rule: ``with`` blocks or ``close()`` calls. The
``__del__`` safety net only releases what the program forgot, because
garbage collection promises neither when nor on which thread it runs.

Thread-safety: close() must not race other calls on the same handle (the
C destroy functions require exclusive access); distinct handles are
independent.
"""

from .errors import closed_error


class Handle:
    """An owned C object; a context manager that closes it on exit."""

    _what = "handle"

    def __init__(self, address):
        self._address = address

    @property
    def address(self):
        """The C pointer (int) for calling libfrugal directly; raises FrugalError once closed."""
        if not self._address:
            raise closed_error(self._what)
        return self._address

    @property
    def closed(self):
        """True once close() ran (or the object was handed on, e.g. a tensor exported by DLPack)."""
        return not self._address

    def close(self):
        """Releases the C object; later calls do nothing."""
        address, self._address = self._address, None
        if address:
            self._release(address)

    def _release(self, address):  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def _detach(self):
        """Gives up ownership without releasing (the object moved elsewhere); returns the pointer."""
        address, self._address = self.address, None
        return address

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False

    def __del__(self):
        # Interpreter shutdown may have torn down module globals already.
        try:
            self.close()
        except Exception:
            pass
