"""Mixture-of-experts routing (frugal/router.h).

A training step: ``plan = router.route(logits)`` (a RoutePlan of frugal
tensors, reused across steps with ``route(logits, plan)``), then
``router.permute(plan, x)``, the experts, ``router.combine(plan, y)``, and
once per optimizer step ``router.update(expert_load)`` for routers with a
bias. Read plan tensors with ``np.asarray(plan.expert_ids)`` (a view that
keeps the plan's memory alive) or ``plan.expert_ids.tolist()``.

Expert parallelism (ABI 2.4): a router created with a Comm as its
``ep_comm`` option (``Router(ctx, "topk_softmax", experts=8, k=2,
ep_comm=group)``) splits the experts over the group's ranks
(``layout.ep_rank``, ``layout.ep_ranks``); route() becomes collective and
its plans carry ``ep_tokens`` and ``ep_rows``. Then
``rows, offsets, row_token = router.ep_dispatch(plan, x)`` gives the rows of
this rank's experts (local expert j's rows are ``offsets[j]:offsets[j+1]``),
and ``router.ep_combine(plan, expert_out)`` returns the experts' outputs to
their tokens [T, H]; ``router.ep_shape(plan)`` gives the sizes. Every rank
makes the same calls in the same order; host tensors only.

Thread-safety: calls on one router may run concurrently when its strategy
has STRATEGY_THREAD_SAFE (router_moe's do); close() must not race other
calls. A RoutePlan is written by route(): do not share one plan between
concurrent routes.
"""

import collections
import ctypes
import dataclasses
import enum
import math

from . import _lib
from . import _types as t
from ._handle import Handle, NotCopyable
from ._state import export_blob, import_blob
from ._strategy import create
from .dtypes import DType
from .errors import check
from .tensor import Tensor, TensorArgs

#: frugal_route_layout.flags: the router has a selection bias moved by update().
ROUTE_LAYOUT_BIAS = 1 << 0


class RouterChoice(enum.IntEnum):
    """frugal_router_choice_values."""

    TOKEN_CHOICE = 0
    EXPERT_CHOICE = 1


class DropPolicy(enum.IntEnum):
    """frugal_router_drop_values."""

    DROPLESS = 0
    DROP_BY_PROBABILITY = 1
    DROP_BY_POSITION = 2


@dataclasses.dataclass(frozen=True)
class RouterLayout:
    """What a router produces (frugal_route_layout)."""

    choice: RouterChoice
    experts: int
    top_k: int
    drop_policy: DropPolicy
    capacity_factor: float
    flags: int
    #: This rank in the expert-parallel group (ABI 2.4); 0 without ``ep_comm``.
    ep_rank: int = 0
    #: Ranks of the expert-parallel group (ABI 2.4); 0 without ``ep_comm``.
    ep_ranks: int = 0


@dataclasses.dataclass(frozen=True)
class RouteShape:
    """A plan's sizes for T tokens (frugal_route_shape)."""

    tokens: int
    capacity: int
    max_rows: int


@dataclasses.dataclass(frozen=True)
class RouteStats:
    """A routed plan's load statistics (frugal_route_stats)."""

    tokens: int
    assignments: int
    kept: int
    dropped: int
    max_load: int
    max_over_mean: float
    dropped_fraction: float
    aux_loss: float
    z_loss: float


@dataclasses.dataclass(frozen=True)
class RouteEpShape:
    """The sizes of one expert-parallel exchange (frugal_route_ep_shape, ABI 2.4)."""

    rank: int
    ranks: int
    first_expert: int
    local_experts: int
    group_tokens: int
    token_offset: int
    sent_rows: int
    received_rows: int


class EpDispatch(collections.namedtuple("EpDispatch", ["rows", "expert_offsets", "row_token"])):
    """What ep_dispatch returns: rows [received, H], expert_offsets [local_experts + 1], row_token [received]."""

    __slots__ = ()


def _copy_fields(raw, cls):
    return cls(**{field.name: getattr(raw, field.name) for field in dataclasses.fields(cls)})


class RoutePlan(NotCopyable):
    """The tensors one route call writes, allocated by frugal (close() releases them).

    Token-choice members (``expert_ids`` [T, k] int32, ``weights`` [T, k]
    float32, ``dropped`` [T, k] uint8, ``slot_row`` [T, k] int64) are None
    for expert-choice routers. Always present: ``expert_offsets`` [E+1],
    ``expert_demand`` [E], ``row_token`` [R], ``row_weight`` [R] float32,
    ``token_offsets`` [T+1], ``token_rows`` [R], ``mean_prob`` [E] float32,
    ``losses`` [2] float32 (int64 unless stated). Expert-parallel routers
    (``layout.ep_ranks`` W > 0) add ``ep_tokens`` [W] and ``ep_rows`` [W, E];
    they are None otherwise.
    """

    _copy_hint = "copy its tensors' data out (numpy.array(plan.expert_offsets))"

    def __init__(self, layout, shape):
        tokens, rows, experts, k = shape.tokens, shape.max_rows, layout.experts, layout.top_k
        ranks = layout.ep_ranks
        self.shape = shape
        self.layout = layout
        token_choice = layout.choice == RouterChoice.TOKEN_CHOICE
        specs = {
            "expert_ids": ((tokens, k), DType.INT32, token_choice),
            "weights": ((tokens, k), DType.FLOAT32, token_choice),
            "dropped": ((tokens, k), DType.UINT8, token_choice),
            "slot_row": ((tokens, k), DType.INT64, token_choice),
            "expert_offsets": ((experts + 1,), DType.INT64, True),
            "expert_demand": ((experts,), DType.INT64, True),
            "row_token": ((rows,), DType.INT64, True),
            "row_weight": ((rows,), DType.FLOAT32, True),
            "token_offsets": ((tokens + 1,), DType.INT64, True),
            "token_rows": ((rows,), DType.INT64, True),
            "mean_prob": ((experts,), DType.FLOAT32, True),
            "losses": ((2,), DType.FLOAT32, True),
            "ep_tokens": ((ranks,), DType.INT64, ranks > 0),
            "ep_rows": ((ranks, experts), DType.INT64, ranks > 0),
        }
        self._tensors = []
        try:
            for name in t.ROUTE_PLAN_FIELDS:
                dims, dtype, present = specs[name]
                tensor = Tensor.zeros(dims, dtype) if present else None
                setattr(self, name, tensor)
                if tensor is not None:
                    self._tensors.append(tensor)
        except BaseException:
            self.close()
            raise

    @property
    def tokens(self):
        """T, the tokens this plan is sized for."""
        return self.shape.tokens

    def _struct(self):
        plan = t.sized(t.RoutePlan)
        for name in t.ROUTE_PLAN_FIELDS:
            tensor = getattr(self, name)
            if tensor is not None:
                setattr(plan, name, tensor.view)
        return plan

    def close(self):
        """Releases the plan's tensors (numpy views taken of them keep their memory alive)."""
        while self._tensors:
            self._tensors.pop().close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False


class Router(Handle):
    """An owned router, e.g. ``Router(ctx, "topk_softmax", experts=8, k=2, capacity_factor=8.0)``."""

    _what = "router"

    def __init__(self, context, name, options=None, **kwargs):
        super().__init__(create("frugal_router_create", context, name, options, kwargs))
        self.name = name
        try:
            raw = t.sized(t.RouterLayout)
            check(_lib.lib().frugal_router_layout(self.address, ctypes.byref(raw)))
        except BaseException:
            self.close()
            raise
        #: The layout (RouterLayout), fixed at creation.
        self.layout = RouterLayout(
            choice=RouterChoice(raw.choice),
            experts=raw.experts,
            top_k=raw.top_k,
            drop_policy=DropPolicy(raw.drop_policy),
            capacity_factor=raw.capacity_factor,
            flags=raw.flags,
            ep_rank=raw.ep_rank,
            ep_ranks=raw.ep_ranks,
        )

    def _release(self, address):
        _lib.lib().frugal_router_destroy(address)

    def plan_shape(self, tokens):
        """The plan's sizes (RouteShape) for ``tokens`` tokens."""
        raw = t.sized(t.RouteShape)
        check(_lib.lib().frugal_router_plan_shape(self.address, tokens, ctypes.byref(raw)))
        return _copy_fields(raw, RouteShape)

    def new_plan(self, tokens):
        """A RoutePlan sized for ``tokens`` tokens, allocated by frugal."""
        return RoutePlan(self.layout, self.plan_shape(tokens))

    def route(self, logits, plan=None):
        """Routes logits [T, E] (float32, bfloat16 or float16) into ``plan`` (a new one when None).

        Returns the plan. Host routes complete (and are checked by the core) before return.
        """
        with TensorArgs() as args:
            source = args.add(logits, "logits")
            dims = source.shape
            tokens = math.prod(dims[:-1]) if len(dims) > 1 else 1
            made = plan is None
            if made:
                plan = self.new_plan(tokens)
            try:
                plan_struct = plan._struct()
                call = t.sized(t.RouteArgs, logits=source.view, plan=ctypes.pointer(plan_struct))
                check(_lib.lib().frugal_router_route(self.address, ctypes.byref(call)))
            except BaseException:
                if made:
                    plan.close()
                raise
        return plan

    def _move(self, function, plan, source, out, out_rows):
        with TensorArgs() as args:
            src = args.add(source, "input")
            if out is None:
                target = Tensor.zeros((out_rows, src.shape[-1]), src.dtype)
                result = target
            else:
                target = args.add(out, "out", writable=True)
                result = out
            plan_struct = plan._struct()
            call = t.sized(t.RouteMoveArgs, plan=ctypes.pointer(plan_struct), input=src.view, output=target.view)
            try:
                check(function(self.address, ctypes.byref(call)))
            except BaseException:
                if out is None:
                    target.close()
                raise
        return result

    def ep_shape(self, plan):
        """The sizes (RouteEpShape) of the exchange a routed plan of an expert-parallel router asks for.

        Local (no collective). A router without ``ep_comm`` raises FAILED_PRECONDITION.
        """
        plan_struct = plan._struct()
        raw = t.sized(t.RouteEpShape)
        check(_lib.lib().frugal_router_ep_shape(self.address, ctypes.byref(plan_struct), ctypes.byref(raw)))
        return _copy_fields(raw, RouteEpShape)

    def ep_dispatch(self, plan, x, out=None, expert_offsets=None, row_token=None):
        """Sends x [T, H]'s kept rows to their experts' ranks; returns an EpDispatch (rows, expert_offsets, row_token).

        rows [received_rows, H] (``out`` or a new Tensor) are this rank's
        experts' rows, expert-major, each expert's in rising group token
        order; expert_offsets [local_experts + 1] int64 bound local expert
        j's rows; row_token [received_rows] int64 is each row's token in the
        group's numbering (``expert_offsets`` / ``row_token`` given: written
        into and returned, else new Tensors). Collective over the router's
        ep_comm.
        """
        shape = self.ep_shape(plan)
        made = []
        try:
            with TensorArgs() as args:
                src = args.add(x, "input")

                def output(given, dims, dtype, what):
                    if given is not None:
                        return args.add(given, what, writable=True), given
                    tensor = Tensor.zeros(dims, dtype)
                    made.append(tensor)
                    return tensor, tensor

                target, rows = output(out, (shape.received_rows, src.shape[-1]), src.dtype, "out")
                offsets, offsets_result = output(expert_offsets, (shape.local_experts + 1,), DType.INT64,
                                                 "expert_offsets")
                tokens, tokens_result = output(row_token, (shape.received_rows,), DType.INT64, "row_token")
                plan_struct = plan._struct()
                call = t.sized(t.RouteDispatchArgs, plan=ctypes.pointer(plan_struct), input=src.view,
                               output=target.view, expert_offsets=offsets.view, row_token=tokens.view)
                check(_lib.lib().frugal_router_ep_dispatch(self.address, ctypes.byref(call)))
        except BaseException:
            for tensor in made:
                tensor.close()
            raise
        return EpDispatch(rows, offsets_result, tokens_result)

    def ep_combine(self, plan, rows, out=None):
        """Returns the experts' outputs rows [received_rows, H] to their tokens: out [T, H] or a new Tensor.

        ``rows`` in ep_dispatch's order; each output row is bit for bit what
        combine() gives one router on the group's tokens. Collective over
        the router's ep_comm.
        """
        return self._move(_lib.lib().frugal_router_ep_combine, plan, rows, out, plan.shape.tokens)

    def permute(self, plan, x, out=None):
        """Gathers x [T, H] into expert-major rows [R, H]; returns ``out`` or a new Tensor."""
        return self._move(_lib.lib().frugal_router_permute, plan, x, out, plan.shape.max_rows)

    def combine(self, plan, y, out=None):
        """Weighted scatter-add of y [R, H] back to tokens [T, H]; returns ``out`` or a new Tensor."""
        return self._move(_lib.lib().frugal_router_combine, plan, y, out, plan.shape.tokens)

    def update(self, expert_load):
        """One aux-loss-free bias step from [E] int64 loads (host memory)."""
        with TensorArgs() as args:
            load = args.add(expert_load, "expert_load")
            check(_lib.lib().frugal_router_update(self.address, load.view))

    def stats(self, plan):
        """Load statistics (RouteStats) of a routed host plan."""
        plan_struct = plan._struct()
        raw = t.sized(t.RouteStats)
        check(_lib.lib().frugal_router_stats(self.address, ctypes.byref(plan_struct), ctypes.byref(raw)))
        return _copy_fields(raw, RouteStats)

    def export_state(self):
        """The router state (the bias; empty for stateless routers) as bytes."""
        return export_blob(_lib.lib().frugal_router_export_state, self.address)

    def import_state(self, blob):
        """Restores a state exported by a router with the same options."""
        import_blob(_lib.lib().frugal_router_import_state, self.address, blob)
