"""The base of every owning handle: one C object, released exactly once.

Subclasses set ``_what`` (a name for messages) and implement ``_release``
(the matching frugal_*_destroy/close call). ``close()`` is idempotent and
explicit release is the rule: ``with`` blocks or ``close()`` calls. The
``__del__`` safety net only releases what the program forgot, because
garbage collection promises neither when nor on which thread it runs.

Copying and pickling are refused (:class:`NotCopyable`): a copy would hold
the same C pointer, so both would free it (a double free) and an unpickled
one would point into another process's memory. Objects with recipe state
are saved with ``export_state()`` and restored with ``import_state()``.

Thread-safety: close() must not race other calls on the same handle (the
C destroy functions require exclusive access); distinct handles are
independent.
"""

from .errors import closed_error


class NotCopyable:
    """Refuses copy.copy, copy.deepcopy and pickling (torch.save, multiprocessing spawn) with a TypeError.

    The base of every object that owns C memory. ``_copy_hint`` says what to
    do instead; by default: export_state()/import_state() where the class
    has them, else make a new object.
    """

    _copy_hint = None

    def _refuse_copy(self, *_args):
        name = type(self).__name__
        hint = self._copy_hint
        if hint is None and hasattr(type(self), "export_state"):
            hint = (f"save its state with export_state() and load it into a new {name} "
                    "with import_state()")
        elif hint is None:
            hint = f"create a new {name} instead"
        raise TypeError(f"frugal.{name} cannot be copied or pickled: it owns a C object that a copy "
                        f"would free twice; {hint}")

    __copy__ = _refuse_copy
    __deepcopy__ = _refuse_copy
    __reduce__ = _refuse_copy
    __reduce_ex__ = _refuse_copy
    __getstate__ = _refuse_copy


class Handle(NotCopyable):
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
