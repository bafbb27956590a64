package frugal

/*
#include "shim.h"
*/
import "C"

import "unsafe"

// RouterChoice says who chooses (frugal_router_choice_values).
type RouterChoice int32

// Router choices.
const (
	TokenChoice  RouterChoice = 0 // each token picks TopK experts
	ExpertChoice RouterChoice = 1 // each expert picks its best tokens
)

// DropPolicy is what happens past an expert's capacity
// (frugal_router_drop_values).
type DropPolicy int32

// Drop policies.
const (
	Dropless          DropPolicy = 0
	DropByProbability DropPolicy = 1
	DropByPosition    DropPolicy = 2
)

// RouterLayout is what a router produces (frugal_route_layout).
type RouterLayout struct {
	Choice         RouterChoice
	Experts        int32
	TopK           int32 // 0 for expert choice
	DropPolicy     DropPolicy
	CapacityFactor float64 // 0 when dropless
	// Bias is true for routers with a selection bias moved by Update.
	Bias bool
	// EpRank is this rank in the expert-parallel group and EpRanks the
	// group's ranks (ABI 2.4, option ep_comm); both 0 without a group.
	EpRank  int32
	EpRanks int32
}

// RouteShape is the size of a plan for some number of tokens.
type RouteShape struct {
	Tokens   int64
	Capacity int64 // rows per expert at most; 0 when dropless
	MaxRows  int64 // R: rows of the expert-major buffers
}

// RouteStats summarises a routed plan (frugal_route_stats).
type RouteStats struct {
	Tokens          int64
	Assignments     int64
	Kept            int64
	Dropped         int64
	MaxLoad         int64
	MaxOverMean     float64
	DroppedFraction float64
	AuxLoss         float32
	ZLoss           float32
}

// RouteEpShape is the size of one expert-parallel exchange
// (frugal_route_ep_shape, ABI 2.4).
type RouteEpShape struct {
	Rank         int32 // this rank in the group
	Ranks        int32 // W, the group's ranks
	FirstExpert  int32 // the first expert this rank runs
	LocalExperts int32 // how many experts this rank runs (>= 1)
	GroupTokens  int64 // tokens routed by the whole group
	TokenOffset  int64 // this rank's first token in the group's numbering
	SentRows     int64 // rows this rank sends (its plan's kept rows)
	ReceivedRows int64 // rows this rank's experts receive: EpDispatch's output rows
}

// Router is a mixture-of-experts router: an instance of a KindRouter
// strategy ("topk_softmax", "deepseek_v3", "expert_choice" from
// router_moe).
//
// Ownership: created by NewRouter, released by Close. It does not
// reference the context afterwards.
//
// Thread safety: calls may run concurrently when the strategy has
// StrategyThreadSafe (router_moe's have); Close must not race any other
// call.
//
// Expert parallelism (ABI 2.4): a router created with a comm as option
// ep_comm (Options.SetComm) splits its experts over that group's ranks
// (Layout().EpRanks); Route becomes collective and its plans carry
// EpTokens and EpRows. EpShape sizes the exchange, EpDispatch sends each
// kept row to the rank owning its expert, EpCombine brings the experts'
// outputs back to their tokens. Every rank makes the same calls in the
// same order; host memory only.
type Router struct {
	_ noCopy
	*routerHandle
}

// routerHandle owns the C object; every copy of a
// Router shares it (handle.go).
type routerHandle struct {
	ptr    *C.frugal_router
	layout RouterLayout
	borrows
}

// NewRouter creates router `name` configured by opts (nil for defaults;
// read during the call only).
func NewRouter(ctx *Context, name string, opts *Options) (*Router, error) {
	args, err := newStrategyArgs(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	defer args.free()
	var out *C.frugal_router
	if err := takeError(C.frugal_router_create(args.ctx, args.name, args.opts, &out)); err != nil {
		return nil, err
	}
	r := &Router{routerHandle: &routerHandle{ptr: out}}
	var l C.frugal_route_layout
	l.struct_size = C.sizeof_frugal_route_layout
	if err := takeError(C.frugal_router_layout(out, &l)); err != nil {
		r.Close()
		return nil, err
	}
	r.layout = RouterLayout{
		Choice:         RouterChoice(l.choice),
		Experts:        int32(l.experts),
		TopK:           int32(l.top_k),
		DropPolicy:     DropPolicy(l.drop_policy),
		CapacityFactor: float64(l.capacity_factor),
		Bias:           uint32(l.flags)&C.FRUGAL_ROUTE_LAYOUT_BIAS != 0,
		EpRank:         int32(l.ep_rank),
		EpRanks:        int32(l.ep_ranks),
	}
	return r, nil
}

// Layout returns what the router produces (read once at creation).
func (r *Router) Layout() RouterLayout { return r.layout }

// PlanShape returns the plan's sizes for `tokens` tokens (>= 1).
func (r *Router) PlanShape(tokens int64) (RouteShape, error) {
	if r.ptr == nil {
		return RouteShape{}, closedError("router")
	}
	var s C.frugal_route_shape
	s.struct_size = C.sizeof_frugal_route_shape
	if err := takeError(C.frugal_router_plan_shape(r.ptr, C.int64_t(tokens), &s)); err != nil {
		return RouteShape{}, err
	}
	return RouteShape{Tokens: int64(s.tokens), Capacity: int64(s.capacity), MaxRows: int64(s.max_rows)}, nil
}

// Route writes the plan for logits [T, E] (float32, bfloat16 or float16)
// into plan, whose tensors the caller owns (NewPlan allocates them). The
// core checks the plan the plugin wrote before returning.
func (r *Router) Route(logits Tensor, plan *RoutePlan) error {
	return r.run(C.FRUGAL_GO_ROUTE, plan, routerArg{slotLogits, logits, "logits", true})
}

// Permute gathers activation rows into the plan's expert-major order:
// input [T, H] -> output [R, H] (float32 or bfloat16, one dtype). Rows
// past the kept ones are left untouched.
func (r *Router) Permute(plan *RoutePlan, input, output Tensor) error {
	return r.run(C.FRUGAL_GO_PERMUTE, plan, routerArg{slotInput, input, "input", true},
		routerArg{slotOutput, output, "output", true})
}

// Combine scatter-adds expert outputs back to token order, weighted by the
// plan's row weights: input [R, H] -> output [T, H], fp32 accumulation.
func (r *Router) Combine(plan *RoutePlan, input, output Tensor) error {
	return r.run(C.FRUGAL_GO_COMBINE, plan, routerArg{slotInput, input, "input", true},
		routerArg{slotOutput, output, "output", true})
}

// EpShape returns the sizes of the exchange a routed plan of an
// expert-parallel router asks for (ABI 2.4): the rows this rank sends and
// receives. Local (no collective). A router without ep_comm is
// CodeFailedPrecondition.
func (r *Router) EpShape(plan *RoutePlan) (RouteEpShape, error) {
	var s RouteEpShape
	err := r.runFrame(C.FRUGAL_GO_EP_SHAPE, plan, func(f *callFrame) {
		c := &f.c.ep_shape
		s = RouteEpShape{
			Rank: int32(c.rank), Ranks: int32(c.ranks), FirstExpert: int32(c.first_expert),
			LocalExperts: int32(c.local_experts), GroupTokens: int64(c.group_tokens),
			TokenOffset: int64(c.token_offset), SentRows: int64(c.sent_rows), ReceivedRows: int64(c.received_rows),
		}
	})
	return s, err
}

// EpDispatch sends each kept row of input [T, H] to the rank owning its
// expert and writes the rows this rank's experts receive into output
// [ReceivedRows, H] (input's dtype; an empty Tensor when none),
// expert-major, each expert's rows in rising group token order: what
// Permute on the group's tokens gives for these experts (ABI 2.4).
// expertOffsets ([LocalExperts+1] int64) gets the bounds of each local
// expert's rows, rowToken ([ReceivedRows] int64) each row's token in the
// group's numbering; either may be the zero Tensor. Sizes from EpShape.
// Collective over the router's ep_comm.
func (r *Router) EpDispatch(plan *RoutePlan, input, output, expertOffsets, rowToken Tensor) error {
	return r.run(C.FRUGAL_GO_EP_DISPATCH, plan, routerArg{slotInput, input, "input", true},
		routerArg{slotOutput, output, "output", true}, routerArg{slotExpertOffsets, expertOffsets, "expert_offsets", false},
		routerArg{slotRowToken, rowToken, "row_token", false})
}

// EpCombine returns the experts' outputs input [ReceivedRows, H] (in
// EpDispatch's order) to their tokens' ranks and combines them into output
// [T, H], each row bit for bit what Combine gives one router on the
// group's tokens (ABI 2.4). Collective over the router's ep_comm.
func (r *Router) EpCombine(plan *RoutePlan, input, output Tensor) error {
	return r.run(C.FRUGAL_GO_EP_COMBINE, plan, routerArg{slotInput, input, "input", true},
		routerArg{slotOutput, output, "output", true})
}

// Stats returns a routed plan's load statistics.
func (r *Router) Stats(plan *RoutePlan) (RouteStats, error) {
	var s RouteStats
	err := r.runFrame(C.FRUGAL_GO_ROUTE_STATS, plan, func(f *callFrame) {
		c := &f.c.route_stats
		s = RouteStats{
			Tokens: int64(c.tokens), Assignments: int64(c.assignments), Kept: int64(c.kept),
			Dropped: int64(c.dropped), MaxLoad: int64(c.max_load), MaxOverMean: float64(c.max_over_mean),
			DroppedFraction: float64(c.dropped_fraction), AuxLoss: float32(c.aux_loss), ZLoss: float32(c.z_loss),
		}
	})
	return s, err
}

// Update moves the selection bias one step from the experts' loads
// ([E] int64, each >= 0: a plan's ExpertDemand, summed over micro-batches
// and ranks). Once per optimizer step, for routers with Layout().Bias.
func (r *Router) Update(expertLoad []int64) error {
	return r.run(C.FRUGAL_GO_ROUTER_UPDATE, nil, routerArg{slotLogits, Int64s(expertLoad), "expert_load", true})
}

// Router frame slots (shim.c): the plan in 1..14, the other tensors here.
const (
	slotLogits        = 0 // logits (Route), expert load (Update)
	slotExpertOffsets = 0 // EpDispatch's expert_offsets
	slotPlan          = 1
	slotInput         = 15
	slotOutput        = 16
	slotRowToken      = 17 // EpDispatch's row_token
)

// routerArg is one tensor of a router call besides the plan.
type routerArg struct {
	slot     int
	t        Tensor
	role     string
	required bool
}

// run describes plan (slots 1..14) and the other tensors (zero Tensors
// that are not required skipped) in a frame and calls op.
func (r *Router) run(op C.int32_t, plan *RoutePlan, args ...routerArg) error {
	return r.runFrame(op, plan, nil, args...)
}

// runFrame is run with a hook that reads the frame after a successful call.
func (r *Router) runFrame(op C.int32_t, plan *RoutePlan, after func(*callFrame), args ...routerArg) error {
	if r.ptr == nil {
		return closedError("router")
	}
	needsPlan := op != C.FRUGAL_GO_ROUTER_UPDATE
	if needsPlan && plan == nil {
		return &Error{Code: CodeInvalidArgument, Message: "plan: a route plan is required"}
	}
	f, err := newCallFrame()
	if err != nil {
		return err
	}
	defer f.free()
	for _, a := range args {
		if err := f.set(a.slot, a.t, a.role, a.required); err != nil {
			return err
		}
	}
	if needsPlan {
		for i, part := range plan.parts() {
			if err := f.set(slotPlan+i, part.t, "plan."+part.name, false); err != nil {
				return err
			}
		}
	}
	if err := f.call(op, unsafe.Pointer(r.ptr)); err != nil {
		return err
	}
	if after != nil {
		after(f)
	}
	return nil
}

// ExportState serialises the router state (the bias; empty for stateless
// routers).
func (r *Router) ExportState() ([]byte, error) {
	if r.ptr == nil {
		return nil, closedError("router")
	}
	return exportState(func(buf unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.frugal_error {
		return C.frugal_router_export_state(r.ptr, buf, capacity, size)
	})
}

// ImportState restores a state exported by a router with the same options;
// a bad blob is an error and leaves the state as it was.
func (r *Router) ImportState(state []byte) error {
	if r.ptr == nil {
		return closedError("router")
	}
	data, size := stateArg(state)
	return takeError(C.frugal_router_import_state(r.ptr, data, size))
}

// Close destroys the router. Calling it again does nothing. It fails with
// CodeFailedPrecondition while the router is registered with a checkpoint
// engine.
func (r *Router) Close() error {
	if err := r.closeRefusal("router"); err != nil {
		return err
	}
	if r.ptr != nil {
		C.frugal_router_destroy(r.ptr)
		r.ptr = nil
	}
	return nil
}
