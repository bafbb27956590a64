"""Sequence packing (frugal/packer.h): packers, immutable plans and streams.

Array results (cu_seqlens, position ids, ...) are ``array.array`` objects:
standard-library buffers that numpy (``np.asarray``) and torch
(``torch.frombuffer``) view without a copy.

Thread-safety: a plan is immutable and may be read from any number of
threads; pack() may run concurrently on one packer when its strategy has
STRATEGY_THREAD_SAFE (packer_seq's do); a stream is not thread-safe.
close() must not race other calls on the same object.
"""

import array
import ctypes
import dataclasses

from . import _lib
from . import _types as t
from ._handle import Handle
from ._strategy import create
from .errors import check
from .options import options_arg


def _int64_array(values, what):
    data = array.array("q", values)
    if not data:
        return data, None
    pointer = (ctypes.c_int64 * len(data)).from_buffer(data)
    return data, ctypes.cast(pointer, ctypes.POINTER(ctypes.c_int64))


def _pointer_to(buffer, ctype):
    """A POINTER(ctype) into a writable buffer (array.array), valid while the buffer lives."""
    return ctypes.cast((ctype * len(buffer)).from_buffer(buffer), ctypes.POINTER(ctype))


@dataclasses.dataclass(frozen=True)
class PackStats:
    """Statistics of a plan (frugal_pack_stats), copied into Python values."""

    packs: int
    units: int
    sequences: int
    real_tokens: int
    max_len: int
    lower_bound: int
    lower_bound_tight: int
    efficiency: float
    padding_before: float
    padding_after: float
    speedup: float
    truncated_sequences: int
    truncated_tokens: int
    split_sequences: int
    method: str


class Packer(Handle):
    """An owned packer, e.g. ``Packer(ctx, "packer_seq", max_len=2048, algo="ffd")``.

    ``max_len`` is required by the core; other options: max_per_pack,
    overlong ("error", "truncate", "split"), seed, and the strategy's own.
    """

    _what = "packer"

    def __init__(self, context, name, options=None, **kwargs):
        super().__init__(create("frugal_packer_create", context, name, options, kwargs))
        self.name = name

    def _release(self, address):
        _lib.lib().frugal_packer_destroy(address)

    def pack(self, lengths):
        """Packs sequences (sequence i has lengths[i] tokens and id i); returns a PackPlan."""
        data, pointer = _int64_array(lengths, "lengths")
        out = ctypes.c_void_p()
        check(_lib.lib().frugal_packer_pack(self.address, pointer, len(data), ctypes.byref(out)))
        return PackPlan(out.value)

    def pack_histogram(self, lengths, counts):
        """Packs counts[b] sequences of lengths[b] tokens, numbered in bin order; returns a PackPlan."""
        length_data, length_pointer = _int64_array(lengths, "lengths")
        count_data, count_pointer = _int64_array(counts, "counts")
        if len(length_data) != len(count_data):
            raise ValueError(f"lengths has {len(length_data)} bins but counts has {len(count_data)}")
        out = ctypes.c_void_p()
        check(
            _lib.lib().frugal_packer_pack_histogram(
                self.address, length_pointer, count_pointer, len(length_data), ctypes.byref(out)
            )
        )
        return PackPlan(out.value)

    def stream(self, options=None, **kwargs):
        """A PackStream over this packer (options: window, max_rounds)."""
        out = ctypes.c_void_p()
        with options_arg(options, kwargs) as options_address:
            check(_lib.lib().frugal_pack_stream_create(self.address, options_address, ctypes.byref(out)))
        return PackStream(out.value)


class PackPlan(Handle):
    """An owned, immutable packing result.

    The assignment (``packs``, ``unit_lengths``, ...) and ``stats`` are
    copied into Python values when the plan is made, so they stay readable
    after close(); the per-pack builders (varlen, position_ids, ...) read
    the C plan and need it open.
    """

    _what = "pack plan"

    def __init__(self, address):
        super().__init__(address)
        try:
            self.stats = self._read_stats()
            self._read_view()
        except BaseException:
            self.close()
            raise

    def _release(self, address):
        _lib.lib().frugal_pack_plan_destroy(address)

    def _read_stats(self):
        stats = t.sized(t.PackStats)
        check(_lib.lib().frugal_pack_plan_stats(self.address, ctypes.byref(stats)))
        values = {field: getattr(stats, field) for field, _ in t.PackStats._fields_ if field != "struct_size"}
        values["method"] = (stats.method or b"").decode("utf-8", "replace")
        return PackStats(**values)

    def _read_view(self):
        view = t.sized(t.PackPlanView)
        check(_lib.lib().frugal_pack_plan_view_get(self.address, ctypes.byref(view)))
        units = view.unit_count

        def copy(pointer, count):
            return tuple(pointer[i] for i in range(count)) if count else ()

        #: pack_count + 1 offsets: pack p holds units [offsets[p], offsets[p+1]).
        self.pack_offsets = copy(view.pack_offsets, view.pack_count + 1)
        #: Each unit's sequence id, grouped by pack in row order.
        self.sequence_ids = copy(view.sequence_ids, units)
        #: Each unit's first token within its sequence (0 unless split).
        self.token_offsets = copy(view.token_offsets, units)
        #: Each unit's tokens.
        self.unit_lengths = copy(view.unit_lengths, units)
        #: Real tokens in each pack.
        self.pack_tokens = copy(view.pack_tokens, view.pack_count)

    @property
    def pack_count(self):
        """Packs (rows) in the plan."""
        return len(self.pack_tokens)

    @property
    def packs(self):
        """Each pack's sequence ids, in row order (a list of tuples)."""
        offsets = self.pack_offsets
        return [self.sequence_ids[offsets[p] : offsets[p + 1]] for p in range(self.pack_count)]

    def pack_unit_lengths(self, pack):
        """The token counts of pack ``pack``'s units, in row order."""
        return self.unit_lengths[self.pack_offsets[pack] : self.pack_offsets[pack + 1]]

    def varlen(self, pack):
        """(cu_seqlens as array('i'), max_seqlen) of pack ``pack``: flash-attention's varlen format."""
        capacity = self.pack_offsets[pack + 1] - self.pack_offsets[pack] + 1 if pack < self.pack_count else 1
        cu_seqlens = array.array("i", bytes(4 * capacity))
        written = ctypes.c_size_t()
        max_seqlen = ctypes.c_int32()
        target = _pointer_to(cu_seqlens, ctypes.c_int32)
        check(
            _lib.lib().frugal_pack_plan_varlen(
                self.address, pack, target, capacity, ctypes.byref(written), ctypes.byref(max_seqlen)
            )
        )
        # The capacity is exactly units + 1, so every entry was written.
        return cu_seqlens[: written.value], max_seqlen.value

    def position_ids(self, pack, length):
        """Position ids of pack ``pack`` as a row of ``length`` tokens (array('q'))."""
        out = array.array("q", bytes(8 * length))
        check(_lib.lib().frugal_pack_plan_position_ids(self.address, pack, _pointer_to(out, ctypes.c_int64), length))
        return out

    def segment_ids(self, pack, length):
        """Segment ids (k+1 for unit k, 0 for padding) of pack ``pack`` (array('i'))."""
        out = array.array("i", bytes(4 * length))
        check(_lib.lib().frugal_pack_plan_segment_ids(self.address, pack, _pointer_to(out, ctypes.c_int32), length))
        return out

    def mask(self, pack, side):
        """The block-diagonal causal mask of pack ``pack``, row-major side x side (array('B'))."""
        out = array.array("B", bytes(side * side))
        check(_lib.lib().frugal_pack_plan_mask(self.address, pack, _pointer_to(out, ctypes.c_uint8), side))
        return out

    def gather(self, pack, tokens, sequence_offsets, out_length, labels=None, pad_token=0,
               ignore_index=-100, mask_first_label=True):
        """Builds pack ``pack``'s token and label rows from the sequences' arrays.

        ``tokens`` holds every sequence back to back; sequence s is
        tokens[sequence_offsets[s]:sequence_offsets[s+1]]. Returns
        (tokens, labels), each an array('q') of ``out_length`` entries.
        """
        token_data, token_pointer = _int64_array(tokens, "tokens")
        offset_data, offset_pointer = _int64_array(sequence_offsets, "sequence_offsets")
        label_data, label_pointer = _int64_array(labels, "labels") if labels is not None else (None, None)
        out_tokens = array.array("q", bytes(8 * out_length))
        out_labels = array.array("q", bytes(8 * out_length))
        args = t.sized(
            t.PackGatherArgs,
            tokens=token_pointer,
            sequence_offsets=offset_pointer,
            sequence_count=max(len(offset_data) - 1, 0),
            labels=label_pointer,
            out_tokens=_pointer_to(out_tokens, ctypes.c_int64),
            out_labels=_pointer_to(out_labels, ctypes.c_int64),
            out_length=out_length,
            pad_token=pad_token,
            ignore_index=ignore_index,
            mask_first_label=1 if mask_first_label else 0,
        )
        check(_lib.lib().frugal_pack_plan_gather(self.address, pack, ctypes.byref(args)))
        del token_data, label_data  # kept alive through the call above
        return out_tokens, out_labels


class PackStream(Handle):
    """An owned streaming packer (not thread-safe: serialise calls on one stream)."""

    _what = "pack stream"

    def _release(self, address):
        _lib.lib().frugal_pack_stream_destroy(address)

    def push(self, sequence_id, length):
        """Adds a sequence; packs when the window fills (a packing error is raised here)."""
        check(_lib.lib().frugal_pack_stream_push(self.address, sequence_id, length))

    def flush(self):
        """Packs everything held, so the next pop() hands out every unit pushed so far."""
        check(_lib.lib().frugal_pack_stream_flush(self.address))

    def pop(self):
        """Takes the packs ready so far as a PackPlan (possibly with zero packs)."""
        out = ctypes.c_void_p()
        check(_lib.lib().frugal_pack_stream_pop(self.address, ctypes.byref(out)))
        return PackPlan(out.value)

    def pending(self):
        """(units held in the window, packs ready to pop)."""
        held = ctypes.c_size_t()
        ready = ctypes.c_size_t()
        check(_lib.lib().frugal_pack_stream_pending(self.address, ctypes.byref(held), ctypes.byref(ready)))
        return held.value, ready.value
