"""Communicators and collectives (frugal/comm.h, ABI 2.1).

A Comm is this process's end of a group of ranks, made by a comm strategy:
``"local"`` (a group of one, every collective a copy) or ``"mpi"`` (the
comm_mpi plugin; run the script under ``mpirun -np N``)::

    with frugal.Comm(ctx, "mpi") as world:
        grads = np.ones(1024, np.float32)
        world.all_reduce(grads)                 # in place: the sum over ranks
        experts = world.split(color=world.rank // 2)

Buffers are numpy arrays, torch tensors or frugal Tensors: compact, of one
dtype, on the comm's device (CPU for local and mpi). Collectives block
until done or until the comm's timeout (``set_timeout``, default 300 s),
then raise FrugalError (DEADLINE_EXCEEDED, IO) naming the operation, the
rank and where known the peer; the comm is broken from then on. Every rank
must make the same calls in the same order. The GIL is released while a
collective runs.

Thread-safety: one thread at a time per comm; different comms may be used
from different threads.
"""

import ctypes
import enum

from . import _lib
from ._handle import Handle
from ._strategy import create
from .errors import check
from .tensor import TensorArgs

#: FRUGAL_COMM_COLOR_NONE: split() joins no sub-group and returns None.
COLOR_NONE = -1
#: FRUGAL_COMM_DEFAULT_TIMEOUT_MS.
DEFAULT_TIMEOUT_MS = 300000


class ReduceOp(enum.IntEnum):
    """frugal_reduce_op_values."""

    SUM = 1
    MAX = 2
    MIN = 3


def _counts(values, what, size):
    """A size_t array of ``size`` non-negative ints, or None for None."""
    if values is None:
        return None
    values = [int(v) for v in values]
    if len(values) != size:
        raise ValueError(f"{what}: {len(values)} values for {size} ranks")
    if any(v < 0 for v in values):
        raise ValueError(f"{what}: counts and displacements are >= 0, got {values}")
    return (ctypes.c_size_t * size)(*values)


class Comm(Handle):
    """An owned communicator, e.g. ``Comm(ctx, "mpi", check_calls=True)``."""

    _what = "comm"

    def __init__(self, context, name="local", options=None, **kwargs):
        super().__init__(create("frugal_comm_create", context, name, options, kwargs))
        self.name = name

    @classmethod
    def _adopt(cls, address, name):
        comm = cls.__new__(cls)
        Handle.__init__(comm, address)
        comm.name = name
        return comm

    def _release(self, address):
        _lib.lib().frugal_comm_destroy(address)

    @property
    def rank(self):
        """This process's rank, in [0, size)."""
        return _lib.lib().frugal_comm_rank(self.address)

    @property
    def size(self):
        """Ranks in the group (>= 1)."""
        return _lib.lib().frugal_comm_size(self.address)

    @property
    def device_type(self):
        """frugal_device_type_values of the memory the collectives take (1: CPU)."""
        return _lib.lib().frugal_comm_device_type(self.address)

    def set_timeout(self, timeout_ms):
        """Deadline of each later collective, in milliseconds (> 0)."""
        check(_lib.lib().frugal_comm_set_timeout(self.address, int(timeout_ms)))

    def split(self, color, key=0):
        """Sub-group of the ranks passing the same ``color`` (>= 0), ranked by ``key``; collective.

        Returns a new Comm, or None for COLOR_NONE.
        """
        out = ctypes.c_void_p()
        check(_lib.lib().frugal_comm_split(self.address, int(color), int(key), ctypes.byref(out)))
        return None if out.value is None else Comm._adopt(out.value, self.name)

    def barrier(self):
        """Returns once every rank has entered it."""
        check(_lib.lib().frugal_comm_barrier(self.address))

    def all_reduce(self, send, recv=None, op=ReduceOp.SUM):
        """recv = the element-wise reduction of every rank's send; recv None: in place. Returns recv."""
        target = send if recv is None else recv
        with TensorArgs() as args:
            s = args.add(send, "send", writable=recv is None)
            r = s if recv is None else args.add(recv, "recv", writable=True)
            check(_lib.lib().frugal_comm_all_reduce(self.address, s.view, r.view, int(op)))
        return target

    def broadcast(self, buffer, root=0):
        """Every rank's buffer = rank ``root``'s. Returns buffer."""
        with TensorArgs() as args:
            b = args.add(buffer, "buffer", writable=True)
            check(_lib.lib().frugal_comm_broadcast(self.address, b.view, int(root)))
        return buffer

    def all_gather(self, send, recv):
        """recv (size x send's elements) = every rank's send in rank order. Returns recv."""
        return self._pair("frugal_comm_all_gather", send, recv)

    def all_gather_v(self, send, recv, recv_counts, recv_displs=None):
        """recv[recv_displs[r]:][:recv_counts[r]] = rank r's send; displacements None: packed. Returns recv."""
        size = self.size
        counts = _counts(recv_counts, "recv_counts", size)
        displs = _counts(recv_displs, "recv_displs", size)
        with TensorArgs() as args:
            s = args.add(send, "send")
            r = args.add(recv, "recv", writable=True)
            check(_lib.lib().frugal_comm_all_gather_v(self.address, s.view, r.view, counts, displs))
        return recv

    def reduce_scatter(self, send, recv, op=ReduceOp.SUM):
        """recv = block ``rank`` (recv's elements) of the reduction of every rank's send. Returns recv."""
        with TensorArgs() as args:
            s = args.add(send, "send")
            r = args.add(recv, "recv", writable=True)
            check(_lib.lib().frugal_comm_reduce_scatter(self.address, s.view, r.view, int(op)))
        return recv

    def all_to_all(self, send, recv):
        """Block p of send goes to rank p; block q of recv comes from rank q. Returns recv."""
        return self._pair("frugal_comm_all_to_all", send, recv)

    def all_to_all_v(self, send, send_counts, recv, recv_counts, send_displs=None, recv_displs=None):
        """Per-peer counts (zeros allowed) and displacements, in elements; None displacements: packed."""
        size = self.size
        sc = _counts(send_counts, "send_counts", size)
        sd = _counts(send_displs, "send_displs", size)
        rc = _counts(recv_counts, "recv_counts", size)
        rd = _counts(recv_displs, "recv_displs", size)
        if sc is None or rc is None:
            raise ValueError("all_to_all_v: send_counts and recv_counts are required")
        with TensorArgs() as args:
            s = args.add(send, "send")
            r = args.add(recv, "recv", writable=True)
            check(_lib.lib().frugal_comm_all_to_all_v(self.address, s.view, sc, sd, r.view, rc, rd))
        return recv

    def _pair(self, function, send, recv):
        with TensorArgs() as args:
            s = args.add(send, "send")
            r = args.add(recv, "recv", writable=True)
            check(getattr(_lib.lib(), function)(self.address, s.view, r.view))
        return recv
