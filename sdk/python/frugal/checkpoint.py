"""The checkpoint engine (frugal/checkpoint.h): heartbeat and full checkpoints through a Store.

Registered tensors are borrowed, not copied: ``register("weights", w)``
with a numpy array or torch tensor makes frugal snapshot that very memory
on save and write into it on restore. The engine keeps the registered
tensor (and through it the producer's array) alive until unregister() or
close().

Host state that is not a tensor travels in the same checkpoints:
``register_router`` / ``register_quantizer`` / ``register_scheduler`` /
``register_loss_scaler`` borrow a frugal object (the engine keeps a
reference to it until unregister() or close(); the object must not be
closed, nor used from another thread, while it is registered), and
``register_state(name, export_state, import_state)`` registers any Python
state as bytes (at most CKPT_STATE_MAX_SIZE). Each save exports them with
the tensors; restore() imports them, in registration order, after every
shard verified. A registered state the checkpoint lacks is named in
``info.not_restored`` like a tensor.

Sharded checkpoints (ABI 2.2): an engine created with a ``comm`` option
(``CheckpointEngine(store, comm=world)``) saves and restores with every rank
of that frugal.Comm. Creating it, save(), emergency_save() and restore() are
then collective: every rank calls them in the same order with the same kind
and step. ``register_slice`` registers this rank's box of a global tensor (or
a replicated one); the checkpoint is one, whatever the number of ranks, and
a job of any size restores it, each rank reading only what overlaps its own
slices. A tensor registered with ``register`` on such an engine is rank-local.
ABI 2.3 adds ``preemption_agree()``, which every rank calls at a step
boundary so that a preemption notice on any rank reaches all of them at the
same step, and ``restored_metadata(rank)``, the metadata any saving rank
kept, for a job resumed on another number of ranks.

Thread-safety: an engine's methods may be called from any thread (the core
serialises them); the host must not write registered memory while save()
or restore() runs. close() waits for the in-flight persist and must not race
other calls.
"""

import ctypes
import dataclasses
import enum

from . import _lib
from . import _types as t
from ._ckpt_slice import SliceArg
from ._ckpt_state import StateCallbacks
from ._handle import Handle
from .errors import check, encode
from .options import options_arg
from .store import Store
from .telemetry import CheckpointKind
from .tensor import as_tensor

#: Mask of every checkpoint kind.
CKPT_ALL_KINDS = 3
#: The most bytes one registered state may export (FRUGAL_CKPT_STATE_MAX_SIZE).
CKPT_STATE_MAX_SIZE = t.CKPT_STATE_MAX_SIZE
_SAVE_WAIT = 1 << 0
_SAVE_SKIP_IF_BUSY = 1 << 1
_LIST_VERIFY_SHARDS = 1 << 0


class CheckpointStatus(enum.IntEnum):
    """frugal_ckpt_status_values."""

    VALID = 0
    INCOMPLETE = 1
    CORRUPT = 2
    NEWER_FORMAT = 3
    UNREADABLE = 4


def _text(raw):
    return raw.decode("utf-8", "replace")


@dataclasses.dataclass(frozen=True)
class SaveResult:
    """Outcome of save() (frugal_ckpt_save_result)."""

    name: str
    skipped: bool
    bytes: int
    wait_seconds: float
    snapshot_seconds: float


@dataclasses.dataclass(frozen=True)
class PersistResult:
    """Outcome of the last persist (frugal_ckpt_persist_result)."""

    name: str
    bytes: int
    persist_seconds: float


@dataclasses.dataclass(frozen=True)
class CheckpointInfo:
    """One checkpoint in the store (frugal_ckpt_info)."""

    name: str
    kind: int
    status: int
    step: int
    sequence: int
    created_unix_ns: int
    bytes: int
    tensor_count: int
    #: Registered states it holds (register_state, register_router, ...).
    state_count: int
    emergency: bool
    reason: str
    #: Set by restore() only: the full checkpoint the full-only tensors came
    #: from (the restored one itself when it is full), "" when none did.
    full_source: str = ""
    #: Set by restore() only: the registered tensors and states it left as
    #: they were (a heartbeat's full-only state with no valid full checkpoint
    #: before it, one saved with another shape, or a state the checkpoint
    #: does not hold). Empty: everything restored.
    not_restored: tuple = ()
    #: Ranks of the job that wrote it (ABI 2.3): 1 for an engine without a
    #: comm, the comm's size otherwise; 0 when no manifest was read (an
    #: incomplete or unreadable checkpoint in list()).
    world_size: int = 0

    @classmethod
    def _from_c(cls, raw):
        return cls(
            name=_text(raw.name),
            kind=raw.kind,
            status=raw.status,
            step=raw.step,
            sequence=raw.sequence,
            created_unix_ns=raw.created_unix_ns,
            bytes=raw.bytes,
            tensor_count=raw.tensor_count,
            state_count=raw.state_count,
            emergency=bool(raw.emergency),
            reason=_text(raw.reason),
            full_source=_text(raw.full_source),
            world_size=raw.world_size,
        )


@dataclasses.dataclass(frozen=True)
class EmergencyResult:
    """Outcome of emergency_save() (frugal_ckpt_emergency_result)."""

    name: str
    committed: bool
    seconds: float


def _grown_bytes(fill, capacity=4096):
    """The bytes ``fill(buffer, capacity, size_ref)`` writes, in a buffer grown as needed.

    ``fill`` raises OUT_OF_RANGE, having written nothing but the size it
    needs, when the buffer is too small; it is then called again with a
    buffer of that size (again if the size grew meanwhile).
    """
    while True:
        buffer = ctypes.create_string_buffer(capacity)
        size = ctypes.c_size_t()
        try:
            fill(buffer, capacity, ctypes.byref(size))
        except Exception as error:
            if getattr(error, "code_name", None) == "OUT_OF_RANGE" and size.value > capacity:
                capacity = size.value
                continue
            raise
        return buffer.raw[: size.value]


class CheckpointEngine(Handle):
    """An owned checkpoint engine writing through ``store``.

    Options: keep_heartbeats, keep_full, shard_bytes, prefix, and comm (a
    frugal.Comm taking host memory, "local" or "mpi"; ABI 2.2): the job's
    ranks then save and restore together, and creating the engine is
    collective over the comm (see the module documentation). The engine
    keeps sub-groups of its own, so the Comm may be closed after this
    returns. A Comm may be given as a keyword, in a mapping or in an
    Options (merged with keyword options like any other value).
    """

    _what = "checkpoint engine"

    def __init__(self, store, options=None, **kwargs):
        if not isinstance(store, Store):
            raise TypeError(f"store must be a frugal.Store, not {type(store).__name__}")
        out = ctypes.c_void_p()
        with options_arg(options, kwargs) as options_address:
            check(_lib.lib().frugal_ckpt_engine_create(store.address, options_address, ctypes.byref(out)))
        super().__init__(out.value)
        self._registered = {}

    def _release(self, address):
        _lib.lib().frugal_ckpt_engine_destroy(address)
        # Only now may the borrowed memory go: the engine no longer reads it.
        registered, self._registered = self._registered, {}
        for tensor, temporary in registered.values():
            if temporary:
                tensor.close()

    def register(self, name, tensor, kinds=0):
        """Registers compact host/CUDA memory under ``name`` (kinds: CheckpointKind mask, 0 = all).

        ``tensor`` is a frugal.Tensor, a DLPack producer (numpy array, torch
        tensor) or a buffer; its memory is borrowed, never copied, and must
        not be written while save()/restore() runs.
        """
        source, temporary = as_tensor(tensor, f"tensor {name!r}", writable=True)
        try:
            check(_lib.lib().frugal_ckpt_register(self.address, encode(name, "name"), source.view, int(kinds)))
        except BaseException:
            if temporary:
                source.close()
            raise
        self._registered[name] = (source, temporary)

    def register_slice(self, name, tensor, global_shape, offsets=None, replicated=False, kinds=0):
        """Registers this rank's slice of the global tensor ``name`` (engine created with a ``comm``).

        ``tensor`` (borrowed as by register()) holds the box of
        ``global_shape`` that starts at ``offsets`` (None: at zeros) and has
        the tensor's own shape; ``replicated=True`` says every rank holds
        the whole tensor (shape == global_shape), saved once by rank 0 and
        restored on every rank. Every rank registers the same names, dtypes
        and global shapes, and the slices together must cover each tensor
        without overlap (else the save that finds them otherwise commits on
        no rank). ``kinds`` as for register().

        ValueError when global_shape or offsets does not have one value per
        dimension of ``tensor``; FrugalError from the core otherwise:
        FAILED_PRECONDITION on an engine without a comm, OUT_OF_RANGE for a
        box outside global_shape, INVALID_ARGUMENT for a replicated tensor
        that is not whole, ALREADY_EXISTS for a name taken.
        """
        source, temporary = as_tensor(tensor, f"tensor {name!r}", writable=True)
        try:
            # Read during the call only: the core copies the slice and its arrays.
            arg = SliceArg(name, source.ndim, global_shape, offsets, replicated)
            check(_lib.lib().frugal_ckpt_register_slice(self.address, encode(name, "name"), source.view,
                                                        ctypes.byref(arg.slice), int(kinds)))
        except BaseException:
            if temporary:
                source.close()
            raise
        self._registered[name] = (source, temporary)

    def _register_object(self, name, function, kind, value, kinds):
        if not isinstance(value, kind):
            raise TypeError(f"state {name!r} must be a frugal.{kind.__name__}, not {type(value).__name__}")
        check(function(self.address, encode(name, "name"), value.address, int(kinds)))
        # Borrowed by the engine: the reference keeps the object alive until unregister()/close().
        self._registered[name] = (value, False)

    def register_router(self, name, router, kinds=0):
        """Saves and restores ``router``'s state (its export_state bytes) under ``name`` with the tensors."""
        from .router import Router
        self._register_object(name, _lib.lib().frugal_ckpt_register_router, Router, router, kinds)

    def register_quantizer(self, name, quantizer, kinds=0):
        """Saves and restores ``quantizer``'s state under ``name`` with the tensors."""
        from .quantizer import Quantizer
        self._register_object(name, _lib.lib().frugal_ckpt_register_quantizer, Quantizer, quantizer, kinds)

    def register_scheduler(self, name, scheduler, kinds=0):
        """Saves and restores ``scheduler``'s state under ``name``; each save counts as a checkpoint in its ledger."""
        from .scheduler import Scheduler
        self._register_object(name, _lib.lib().frugal_ckpt_register_scheduler, Scheduler, scheduler, kinds)

    def register_loss_scaler(self, name, scaler, kinds=0):
        """Saves and restores ``scaler``'s scale and counters under ``name`` with the tensors."""
        from .loss_scaler import LossScaler
        self._register_object(name, _lib.lib().frugal_ckpt_register_loss_scaler, LossScaler, scaler, kinds)

    def register_state(self, name, export_state, import_state, kinds=0):
        """Registers host state as bytes: ``export_state()`` on each save, ``import_state(data)`` on restore.

        Both run on the thread calling save()/emergency_save()/restore(),
        inside that call, and must not call this engine (it is locked). An
        exception they raise fails that save or restore with a FrugalError
        naming the state (its code kept when it is a FrugalError, INTERNAL
        otherwise); a failed import cannot roll back what was restored
        before it, so it should leave its state unchanged.
        """
        callbacks = StateCallbacks(name, export_state, import_state)
        check(_lib.lib().frugal_ckpt_register_state(self.address, encode(name, "name"), ctypes.byref(callbacks.fns),
                                                    int(kinds)))
        self._registered[name] = (callbacks, False)

    def unregister(self, name):
        """Unregisters the tensor or state ``name`` (FrugalError NOT_FOUND if it is not registered); lets it go."""
        check(_lib.lib().frugal_ckpt_unregister(self.address, encode(name, "name")))
        source, temporary = self._registered.pop(name, (None, False))
        if temporary:
            source.close()

    def _save_args(self, kind, step, metadata, flags):
        payload = bytes(metadata)
        holder = ctypes.create_string_buffer(payload, len(payload)) if payload else None
        args = t.sized(
            t.CkptSaveArgs,
            kind=int(kind),
            flags=flags,
            step=step,
            metadata=ctypes.addressof(holder) if holder is not None else None,
            metadata_size=len(payload),
        )
        return args, holder

    def save(self, step, kind=CheckpointKind.FULL, metadata=b"", wait=False, skip_if_busy=False):
        """Snapshots the registered tensors of ``kind`` plus ``metadata`` and persists them.

        The persist runs in the background unless ``wait`` (then its error is
        raised here). Returns a SaveResult naming the checkpoint.
        """
        flags = (_SAVE_WAIT if wait else 0) | (_SAVE_SKIP_IF_BUSY if skip_if_busy else 0)
        args, holder = self._save_args(kind, step, metadata, flags)
        result = t.sized(t.CkptSaveResult)
        check(_lib.lib().frugal_ckpt_save(self.address, ctypes.byref(args), ctypes.byref(result)))
        del holder
        return SaveResult(_text(result.name), bool(result.skipped), result.bytes, result.wait_seconds,
                          result.snapshot_seconds)

    def wait(self):
        """Blocks until no persist is in flight; raises the last persist's unreported error."""
        result = t.sized(t.CkptPersistResult)
        check(_lib.lib().frugal_ckpt_wait(self.address, ctypes.byref(result)))
        return PersistResult(_text(result.name), result.bytes, result.persist_seconds)

    def list(self, verify_shards=False):
        """Every checkpoint under the engine's prefix, newest first (CheckpointInfo)."""
        found = []

        def collect(_user_data, info):
            found.append(CheckpointInfo._from_c(info.contents))
            return 0

        callback = t.CkptListFn(collect)
        flags = _LIST_VERIFY_SHARDS if verify_shards else 0
        check(_lib.lib().frugal_ckpt_list(self.address, flags, callback, None))
        return found

    def verify(self, name):
        """Fully verifies checkpoint ``name``; the CheckpointInfo's status says how it went."""
        info = t.sized(t.CkptInfo)
        check(_lib.lib().frugal_ckpt_verify(self.address, encode(name, "name"), ctypes.byref(info)))
        return CheckpointInfo._from_c(info)

    def latest(self, kinds=CKPT_ALL_KINDS):
        """The newest checkpoint of ``kinds`` that verifies; FrugalError NOT_FOUND when none does."""
        info = t.sized(t.CkptInfo)
        check(_lib.lib().frugal_ckpt_latest(self.address, int(kinds), ctypes.byref(info)))
        return CheckpointInfo._from_c(info)

    def inspect_json(self, name):
        """The manifest of ``name`` as a JSON string."""
        out = ctypes.c_void_p()
        lib = _lib.lib()
        check(lib.frugal_ckpt_inspect_json(self.address, encode(name, "name"), ctypes.byref(out)))
        try:
            return ctypes.string_at(out.value).decode("utf-8")
        finally:
            lib.frugal_string_free(out.value)

    def restore(self, name=None, kinds=CKPT_ALL_KINDS):
        """Restores checkpoint ``name`` (newest valid of ``kinds`` when None) into the registered tensors.

        Returns (CheckpointInfo, metadata bytes). A heartbeat's full-only
        tensors are restored from the newest valid full checkpoint written
        before it (``info.full_source``); the tensors left as they were are
        ``info.not_restored`` (check it is empty before resuming training).
        Every shard is verified before any tensor is written.
        """
        lib = _lib.lib()
        key = encode(name, "name") if name is not None else None
        info = t.sized(t.CkptInfo)

        def fill(buffer, capacity, size):
            # Too small a buffer restores nothing (the size is reported).
            check(lib.frugal_ckpt_restore(self.address, key, int(kinds), buffer, capacity, size, ctypes.byref(info)))

        metadata = _grown_bytes(fill)
        names = []
        name = ctypes.create_string_buffer(t.CKPT_TENSOR_NAME_CAPACITY)
        for index in range(info.not_restored_count):
            check(lib.frugal_ckpt_restore_report(self.address, index, name, len(name)))
            names.append(_text(name.value))
        restored = dataclasses.replace(CheckpointInfo._from_c(info), not_restored=tuple(names))
        return restored, metadata

    def restored_metadata(self, rank):
        """The metadata rank ``rank`` of the writing job saved in the checkpoint the last restore() restored (ABI 2.3).

        restore() returns this rank's own metadata only when the job that
        saved had as many ranks (otherwise rank 0's); a job resumed on
        another number of ranks reads here what any saving rank kept (e.g.
        to share out its data-loader cursors). Reads nothing from the store;
        not collective. FrugalError OUT_OF_RANGE for a rank >= the restored
        checkpoint's world_size (0 is the only rank of an engine without a
        comm), FAILED_PRECONDITION before any successful restore().
        """
        lib = _lib.lib()
        return _grown_bytes(lambda buffer, capacity, size: check(
            lib.frugal_ckpt_restored_metadata(self.address, int(rank), buffer, capacity, size)))

    def gc(self):
        """Applies retention now; returns how many checkpoints were removed."""
        removed = ctypes.c_uint32()
        check(_lib.lib().frugal_ckpt_gc(self.address, ctypes.byref(removed)))
        return removed.value

    def emergency_save(self, step, deadline_seconds, metadata=b""):
        """Takes an emergency heartbeat and waits for it at most ``deadline_seconds``."""
        args, holder = self._save_args(CheckpointKind.HEARTBEAT, step, metadata, 0)
        result = t.sized(t.CkptEmergencyResult)
        check(_lib.lib().frugal_ckpt_emergency_save(self.address, ctypes.byref(args), deadline_seconds,
                                                    ctypes.byref(result)))
        del holder
        return EmergencyResult(_text(result.name), bool(result.committed), result.seconds)

    def preemption_agree(self):
        """True when any rank of the engine had a preemption notice (ABI 2.3; one all-reduce, cheap per step).

        With a comm it is collective, like save(): every rank calls it in the
        same order relative to the engine's other collectives, and when any
        rank had a notice (frugal.preemption.pending()) the notice is
        recorded on every rank and every rank gets True, so all take
        emergency_save() at the same step. A rank that never calls makes it
        fail on the others with the comm's error once the comm's timeout
        passes (the engine's comm is then broken; end the process). Without
        a comm it reports this process's notice. Without a call, a notice
        still reaches every rank with the job's next save.
        """
        pending = ctypes.c_int32()
        check(_lib.lib().frugal_ckpt_preemption_agree(self.address, ctypes.byref(pending)))
        return bool(pending.value)
