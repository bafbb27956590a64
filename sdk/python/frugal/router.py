"""Mixture-of-experts routing (frugal/router.h).

A training step: ``plan = router.route(logits)`` (a RoutePlan of frugal
tensors, reused across steps with ``route(logits, plan)``), then
``router.permute(plan, x)``, the experts, ``router.combine(plan, y)``, and
once per optimizer step ``router.update(expert_load)`` for routers with a
bias. Read plan tensors with ``np.asarray(plan.expert_ids)`` (a view that
keeps the plan's memory alive) or ``plan.expert_ids.tolist()``.

Thread-safety: calls on one router may run concurrently when its strategy
has STRATEGY_THREAD_SAFE (router_moe's do); close() must not race other
calls. A RoutePlan is written by route(): do not share one plan between
concurrent routes.
"""

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


def _copy_fields(raw, cls):
    return cls(**{field.name: getattr(raw, field.name) for field in dataclasses.fields(cls)})


class RoutePlan(NotCopyable):
    """The tensors one route call writes, allocated by frugal (close() releases them).

    Token-choice members (``expert_ids`` [T, k] int32, ``weights`` [T, k]
    float32, ``dropped`` [T, k] uint8, ``slot_row`` [T, k] int64) are None
    for expert-choice routers. Always present: ``expert_offsets`` [E+1],
    ``expert_demand`` [E], ``row_token`` [R], ``row_weight`` [R] float32,
    ``token_offsets`` [T+1], ``token_rows`` [R], ``mean_prob`` [E] float32,
    ``losses`` [2] float32 (int64 unless stated).
    """

    _copy_hint = "copy its tensors' data out (numpy.array(plan.expert_offsets))"

    def __init__(self, layout, shape):
        tokens, rows, experts, k = shape.tokens, shape.max_rows, layout.experts, layout.top_k
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
