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
	return r.run(C.FRUGAL_GO_ROUTE, plan, [3]Tensor{logits}, [3]string{"logits"})
}

// Permute gathers activation rows into the plan's expert-major order:
// input [T, H] -> output [R, H] (float32 or bfloat16, one dtype). Rows
// past the kept ones are left untouched.
func (r *Router) Permute(plan *RoutePlan, input, output Tensor) error {
	return r.run(C.FRUGAL_GO_PERMUTE, plan, [3]Tensor{{}, input, output}, [3]string{"", "input", "output"})
}

// Combine scatter-adds expert outputs back to token order, weighted by the
// plan's row weights: input [R, H] -> output [T, H], fp32 accumulation.
func (r *Router) Combine(plan *RoutePlan, input, output Tensor) error {
	return r.run(C.FRUGAL_GO_COMBINE, plan, [3]Tensor{{}, input, output}, [3]string{"", "input", "output"})
}

// Stats returns a routed plan's load statistics.
func (r *Router) Stats(plan *RoutePlan) (RouteStats, error) {
	var s RouteStats
	err := r.runFrame(C.FRUGAL_GO_ROUTE_STATS, plan, [3]Tensor{}, [3]string{}, func(f *callFrame) {
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
	return r.run(C.FRUGAL_GO_ROUTER_UPDATE, nil, [3]Tensor{Int64s(expertLoad)}, [3]string{"expert_load"})
}

// run describes plan (slots 1..12) and the extra tensors (slots 0, 13, 14;
// zero Tensors skipped) in a frame and calls op.
func (r *Router) run(op C.int32_t, plan *RoutePlan, extra [3]Tensor, roles [3]string) error {
	return r.runFrame(op, plan, extra, roles, nil)
}

// runFrame is run with a hook that reads the frame after a successful call.
func (r *Router) runFrame(op C.int32_t, plan *RoutePlan, extra [3]Tensor, roles [3]string, after func(*callFrame)) error {
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
	for i, slot := range [3]int{0, 13, 14} {
		if err := f.set(slot, extra[i], roles[i], roles[i] != ""); err != nil {
			return err
		}
	}
	if needsPlan {
		for i, part := range plan.parts() {
			if err := f.set(1+i, part.t, "plan."+part.name, false); err != nil {
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
