//! `Router`: a mixture-of-experts router strategy instance
//! (frugal/router.h), routing slice-backed logits into a [`RoutePlan`]
//! whose arrays are ordinary Rust vectors.
//!
//! Expert parallelism (ABI 2.4): a router created with a comm as its
//! `ep_comm` option ([`Options::set_comm`]) splits its experts over that
//! group's ranks ([`RouterLayout::ep_ranks`]); [`Router::route`] becomes
//! collective and its plans carry `ep_tokens` / `ep_rows`. Then
//! [`Router::ep_shape`] sizes the exchange, [`Router::ep_dispatch`] sends
//! each kept row to the rank owning its expert and [`Router::ep_combine`]
//! brings the experts' outputs back to their tokens. Every rank makes the
//! same calls in the same order; host memory only.

use std::mem::size_of;
use std::os::raw::c_void;
use std::ptr::{self, NonNull};

use crate::context::Context;
use crate::error::{check, Result};
use crate::options::Options;
use crate::state_blob::export_blob;
use crate::strings::to_c_string;
use crate::sys;
use crate::tensor::{TensorMut, TensorRef};

/// What a router produces, fixed at creation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RouterLayout {
    /// `sys::FRUGAL_ROUTER_TOKEN_CHOICE` or `_EXPERT_CHOICE`.
    pub choice: i32,
    /// E.
    pub experts: i32,
    /// Experts per token (token choice), 0 for expert choice.
    pub top_k: i32,
    /// `sys::FRUGAL_ROUTER_DROPLESS` / `_DROP_BY_*`.
    pub drop_policy: i32,
    /// 0 when dropless.
    pub capacity_factor: f64,
    /// `sys::FRUGAL_ROUTER_LAYOUT_*` bits.
    pub flags: u32,
    /// This rank in the expert-parallel group (ABI 2.4); 0 without `ep_comm`.
    pub ep_rank: i32,
    /// Ranks of the expert-parallel group (ABI 2.4); 0 without `ep_comm`.
    pub ep_ranks: i32,
}

/// The sizes of a plan for `tokens` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteShape {
    pub tokens: i64,
    /// Rows per expert at most; 0 when dropless.
    pub capacity: i64,
    /// R: rows of the expert-major buffers.
    pub max_rows: i64,
}

/// Load statistics of a routed plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RouteStats {
    pub tokens: i64,
    pub assignments: i64,
    pub kept: i64,
    pub dropped: i64,
    pub max_load: i64,
    pub max_over_mean: f64,
    pub dropped_fraction: f64,
    pub aux_loss: f32,
    pub z_loss: f32,
}

/// The sizes of one expert-parallel exchange (`frugal_route_ep_shape`, ABI 2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteEpShape {
    /// This rank in the group.
    pub rank: i32,
    /// W, the group's ranks.
    pub ranks: i32,
    /// The first expert this rank runs.
    pub first_expert: i32,
    /// How many experts this rank runs (>= 1).
    pub local_experts: i32,
    /// Tokens routed by the whole group.
    pub group_tokens: i64,
    /// This rank's first token in the group's numbering.
    pub token_offset: i64,
    /// Rows this rank sends (its plan's kept rows).
    pub sent_rows: i64,
    /// Rows this rank's experts receive: the rows of [`Router::ep_dispatch`]'s output.
    pub received_rows: i64,
}

/// A dispatch plan for a fixed token count, owned by Rust and written by
/// [`Router::route`]. Make one with [`Router::new_plan`] and reuse it for
/// every batch of that size. Arrays are as frugal/router_vtable.h
/// describes `frugal_route_plan`; the token-choice ones are empty for an
/// expert-choice router, the expert-parallel ones (`ep_tokens`,
/// `ep_rows`) for a router without `ep_comm`.
#[derive(Debug, Clone)]
pub struct RoutePlan {
    shape: RouteShape,
    experts: i64,
    top_k: i64,
    ep_ranks: i64,
    expert_ids: Vec<i32>,
    weights: Vec<f32>,
    dropped: Vec<u8>,
    slot_row: Vec<i64>,
    expert_offsets: Vec<i64>,
    expert_demand: Vec<i64>,
    row_token: Vec<i64>,
    row_weight: Vec<f32>,
    token_offsets: Vec<i64>,
    token_rows: Vec<i64>,
    mean_prob: Vec<f32>,
    losses: Vec<f32>,
    ep_tokens: Vec<i64>,
    ep_rows: Vec<i64>,
}

/// The extents of a plan's arrays, the shapes its C views point to.
struct PlanExtents {
    slots: [i64; 2],
    experts1: [i64; 1],
    experts: [i64; 1],
    rows: [i64; 1],
    tokens1: [i64; 1],
    two: [i64; 1],
    ranks: [i64; 1],
    ranks_experts: [i64; 2],
}

/// A 1-D view of an optional index slice (ep_dispatch's outputs).
fn index_view(slice: Option<&mut [i64]>) -> Result<Option<TensorMut<'_>>> {
    match slice {
        Some(s) => {
            let len = s.len() as i64;
            TensorMut::new(s, &[len]).map(Some)
        }
        None => Ok(None),
    }
}

fn view(data: *mut c_void, dtype: i32, shape: &[i64]) -> sys::frugal_tensor {
    sys::frugal_tensor {
        struct_size: size_of::<sys::frugal_tensor>(),
        data,
        byte_offset: 0,
        dtype,
        ndim: shape.len() as i32,
        device: sys::frugal_device { type_: sys::FRUGAL_DEVICE_CPU, id: 0 },
        shape: shape.as_ptr(),
        strides: ptr::null(),
        quant: ptr::null(),
        ext: ptr::null(),
    }
}

impl RoutePlan {
    /// The sizes this plan was made for.
    pub fn shape(&self) -> RouteShape {
        self.shape
    }
    /// [T, top_k]: each token's experts, best first.
    pub fn expert_ids(&self) -> &[i32] {
        &self.expert_ids
    }
    /// [T, top_k]: their gate weights.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }
    /// [T, top_k]: 1 where capacity dropped the assignment.
    pub fn dropped(&self) -> &[u8] {
        &self.dropped
    }
    /// [T, top_k]: the row of each slot, -1 where dropped.
    pub fn slot_row(&self) -> &[i64] {
        &self.slot_row
    }
    /// [E + 1]: expert e's rows are `[offsets[e], offsets[e + 1])`.
    pub fn expert_offsets(&self) -> &[i64] {
        &self.expert_offsets
    }
    /// [E]: assignments each expert was asked for, before drops.
    pub fn expert_demand(&self) -> &[i64] {
        &self.expert_demand
    }
    /// Rows each expert kept (`expert_offsets` differences).
    pub fn expert_loads(&self) -> Vec<i64> {
        self.expert_offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }
    /// N: rows kept in all.
    pub fn kept_rows(&self) -> i64 {
        self.expert_offsets.last().copied().unwrap_or(0)
    }
    /// [R]: the token of each row (-1 past N).
    pub fn row_token(&self) -> &[i64] {
        &self.row_token
    }
    /// [R]: the gate weight of each row.
    pub fn row_weight(&self) -> &[f32] {
        &self.row_weight
    }
    /// [T + 1]: token t's rows are `token_rows[offsets[t]..offsets[t + 1]]`.
    pub fn token_offsets(&self) -> &[i64] {
        &self.token_offsets
    }
    /// [R]: row indices grouped by token.
    pub fn token_rows(&self) -> &[i64] {
        &self.token_rows
    }
    /// [E]: mean router probability per expert.
    pub fn mean_prob(&self) -> &[f32] {
        &self.mean_prob
    }
    /// [2]: the load-balancing loss and the z-loss.
    pub fn losses(&self) -> &[f32] {
        &self.losses
    }
    /// [W]: the tokens each rank of the expert-parallel group routed
    /// (ABI 2.4); empty without `ep_comm`.
    pub fn ep_tokens(&self) -> &[i64] {
        &self.ep_tokens
    }
    /// [W, E]: the rows each rank kept for each expert (ABI 2.4); empty
    /// without `ep_comm`.
    pub fn ep_rows(&self) -> &[i64] {
        &self.ep_rows
    }

    fn extents(&self) -> PlanExtents {
        let t = self.shape.tokens;
        PlanExtents {
            slots: [t, self.top_k],
            experts1: [self.experts + 1],
            experts: [self.experts],
            rows: [self.shape.max_rows],
            tokens1: [t + 1],
            two: [2],
            ranks: [self.ep_ranks],
            ranks_experts: [self.ep_ranks, self.experts],
        }
    }

    /// The arrays' base pointers, derived from a shared borrow: only for
    /// calls that read the plan.
    fn read_ptrs(&self) -> [*mut c_void; 14] {
        [
            self.expert_ids.as_ptr() as *mut c_void,
            self.weights.as_ptr() as *mut c_void,
            self.dropped.as_ptr() as *mut c_void,
            self.slot_row.as_ptr() as *mut c_void,
            self.expert_offsets.as_ptr() as *mut c_void,
            self.expert_demand.as_ptr() as *mut c_void,
            self.row_token.as_ptr() as *mut c_void,
            self.row_weight.as_ptr() as *mut c_void,
            self.token_offsets.as_ptr() as *mut c_void,
            self.token_rows.as_ptr() as *mut c_void,
            self.mean_prob.as_ptr() as *mut c_void,
            self.losses.as_ptr() as *mut c_void,
            self.ep_tokens.as_ptr() as *mut c_void,
            self.ep_rows.as_ptr() as *mut c_void,
        ]
    }

    /// The arrays' base pointers, derived from an exclusive borrow: the
    /// core may write through them while `self` stays borrowed.
    fn write_ptrs(&mut self) -> [*mut c_void; 14] {
        [
            self.expert_ids.as_mut_ptr() as *mut c_void,
            self.weights.as_mut_ptr() as *mut c_void,
            self.dropped.as_mut_ptr() as *mut c_void,
            self.slot_row.as_mut_ptr() as *mut c_void,
            self.expert_offsets.as_mut_ptr() as *mut c_void,
            self.expert_demand.as_mut_ptr() as *mut c_void,
            self.row_token.as_mut_ptr() as *mut c_void,
            self.row_weight.as_mut_ptr() as *mut c_void,
            self.token_offsets.as_mut_ptr() as *mut c_void,
            self.token_rows.as_mut_ptr() as *mut c_void,
            self.mean_prob.as_mut_ptr() as *mut c_void,
            self.losses.as_mut_ptr() as *mut c_void,
            self.ep_tokens.as_mut_ptr() as *mut c_void,
            self.ep_rows.as_mut_ptr() as *mut c_void,
        ]
    }

    /// Calls `f` with the C plan over `ptrs` (this plan's arrays, in field
    /// order). The views point into this stack frame, so they never
    /// outlive the call.
    fn with_raw<R>(&self, ptrs: [*mut c_void; 14], f: impl FnOnce(&sys::frugal_route_plan) -> R) -> R {
        let e = self.extents();
        let (i32_, f32_, u8_, i64_) =
            (sys::FRUGAL_DTYPE_INT32, sys::FRUGAL_DTYPE_FLOAT32, sys::FRUGAL_DTYPE_UINT8, sys::FRUGAL_DTYPE_INT64);
        let views = [
            view(ptrs[0], i32_, &e.slots),
            view(ptrs[1], f32_, &e.slots),
            view(ptrs[2], u8_, &e.slots),
            view(ptrs[3], i64_, &e.slots),
            view(ptrs[4], i64_, &e.experts1),
            view(ptrs[5], i64_, &e.experts),
            view(ptrs[6], i64_, &e.rows),
            view(ptrs[7], f32_, &e.rows),
            view(ptrs[8], i64_, &e.tokens1),
            view(ptrs[9], i64_, &e.rows),
            view(ptrs[10], f32_, &e.experts),
            view(ptrs[11], f32_, &e.two),
            view(ptrs[12], i64_, &e.ranks),
            view(ptrs[13], i64_, &e.ranks_experts),
        ];
        // Expert choice has no slots: its token-choice members stay NULL;
        // likewise the expert-parallel members of a router without a group.
        let slot_view = |i: usize| if self.top_k > 0 { &views[i] as *const _ } else { ptr::null() };
        let ep_view = |i: usize| if self.ep_ranks > 0 { &views[i] as *const _ } else { ptr::null() };
        let plan = sys::frugal_route_plan {
            struct_size: size_of::<sys::frugal_route_plan>(),
            expert_ids: slot_view(0),
            weights: slot_view(1),
            dropped: slot_view(2),
            slot_row: slot_view(3),
            expert_offsets: &views[4],
            expert_demand: &views[5],
            row_token: &views[6],
            row_weight: &views[7],
            token_offsets: &views[8],
            token_rows: &views[9],
            mean_prob: &views[10],
            losses: &views[11],
            ep_tokens: ep_view(12),
            ep_rows: ep_view(13),
        };
        f(&plan)
    }
}

/// A router instance. Dropping it calls `frugal_router_destroy`; it may
/// outlive its context.
///
/// `Send` but not `Sync`: concurrent calls are allowed only for strategies
/// flagged thread-safe (router_moe's are); share it behind a `Mutex`.
pub struct Router {
    raw: NonNull<sys::frugal_router>,
    layout: RouterLayout,
}

// SAFETY: router.h lets a router move between threads.
unsafe impl Send for Router {}

impl Router {
    /// Creates the router `name` ("topk_softmax", "deepseek_v3",
    /// "expert_choice", or "plugin/name"); `options` read during the call.
    pub fn new(context: &Context, name: &str, options: Option<&Options>) -> Result<Router> {
        let name = to_c_string("router name", name)?;
        let options = options.map_or(ptr::null(), |o| o.as_ptr());
        let mut raw = ptr::null_mut();
        // SAFETY: live context; name and options outlive the call.
        check(unsafe { sys::frugal_router_create(context.as_ptr(), name.as_ptr(), options, &mut raw) })?;
        let raw = NonNull::new(raw).expect("frugal_router_create succeeded with NULL");
        let mut router = Router {
            raw,
            layout: RouterLayout {
                choice: 0,
                experts: 0,
                top_k: 0,
                drop_policy: 0,
                capacity_factor: 0.0,
                flags: 0,
                ep_rank: 0,
                ep_ranks: 0,
            },
        };
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut c_layout: sys::frugal_route_layout = unsafe { std::mem::zeroed() };
        c_layout.struct_size = size_of::<sys::frugal_route_layout>();
        // SAFETY: live router; caller-allocated layout with struct_size set.
        check(unsafe { sys::frugal_router_layout(raw.as_ptr(), &mut c_layout) })?;
        router.layout = RouterLayout {
            choice: c_layout.choice,
            experts: c_layout.experts,
            top_k: c_layout.top_k,
            drop_policy: c_layout.drop_policy,
            capacity_factor: c_layout.capacity_factor,
            flags: c_layout.flags,
            ep_rank: c_layout.ep_rank,
            ep_ranks: c_layout.ep_ranks,
        };
        Ok(router)
    }

    /// The layout, read once at creation.
    pub fn layout(&self) -> RouterLayout {
        self.layout
    }

    /// The plan's sizes for `tokens` tokens (>= 1).
    pub fn plan_shape(&self, tokens: i64) -> Result<RouteShape> {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut shape: sys::frugal_route_shape = unsafe { std::mem::zeroed() };
        shape.struct_size = size_of::<sys::frugal_route_shape>();
        // SAFETY: live router; caller-allocated out struct.
        check(unsafe { sys::frugal_router_plan_shape(self.raw.as_ptr(), tokens, &mut shape) })?;
        Ok(RouteShape { tokens: shape.tokens, capacity: shape.capacity, max_rows: shape.max_rows })
    }

    /// A zeroed plan sized for `tokens` tokens.
    pub fn new_plan(&self, tokens: i64) -> Result<RoutePlan> {
        let shape = self.plan_shape(tokens)?;
        let t = shape.tokens as usize;
        let e = self.layout.experts as usize;
        let k = self.layout.top_k.max(0) as usize;
        let r = shape.max_rows as usize;
        let w = self.layout.ep_ranks.max(0) as usize;
        Ok(RoutePlan {
            shape,
            experts: e as i64,
            top_k: k as i64,
            ep_ranks: w as i64,
            expert_ids: vec![0; t * k],
            weights: vec![0.0; t * k],
            dropped: vec![0; t * k],
            slot_row: vec![0; t * k],
            expert_offsets: vec![0; e + 1],
            expert_demand: vec![0; e],
            row_token: vec![0; r],
            row_weight: vec![0.0; r],
            token_offsets: vec![0; t + 1],
            token_rows: vec![0; r],
            mean_prob: vec![0.0; e],
            losses: vec![0.0; 2],
            ep_tokens: vec![0; w],
            ep_rows: vec![0; w * e],
        })
    }

    /// Routes `logits` ([T, E], f32/bf16/f16) into `plan` (made for T
    /// tokens by this router). The core checks the plan before returning.
    pub fn route(&self, logits: &TensorRef<'_>, plan: &mut RoutePlan) -> Result<()> {
        let logits = logits.raw();
        let ptrs = plan.write_ptrs();
        plan.with_raw(ptrs, |raw_plan| {
            let args = sys::frugal_route_args {
                struct_size: size_of::<sys::frugal_route_args>(),
                logits: &logits,
                plan: raw_plan,
                stream: ptr::null_mut(),
            };
            // SAFETY: logits borrowed for the call; the plan's arrays are
            // exclusively borrowed (&mut plan) and sized by plan_shape.
            check(unsafe { sys::frugal_router_route(self.raw.as_ptr(), &args) })
        })
    }

    fn do_move(
        &self,
        plan: &RoutePlan,
        input: &TensorRef<'_>,
        output: &mut TensorMut<'_>,
        call: unsafe extern "C" fn(*mut sys::frugal_router, *const sys::frugal_route_move_args) -> *mut sys::frugal_error,
    ) -> Result<()> {
        let input = input.raw();
        let output = output.raw();
        plan.with_raw(plan.read_ptrs(), |raw_plan| {
            let args = sys::frugal_route_move_args {
                struct_size: size_of::<sys::frugal_route_move_args>(),
                plan: raw_plan,
                input: &input,
                output: &output,
                stream: ptr::null_mut(),
            };
            // SAFETY: the plan and input are only read; output is
            // exclusively borrowed; all outlive the call.
            check(unsafe { call(self.raw.as_ptr(), &args) })
        })
    }

    /// Gathers activation rows into expert-major order: `input` [T, H] ->
    /// `output` [R, H] (f32 or bf16). Rows past the kept ones are untouched.
    pub fn permute(&self, plan: &RoutePlan, input: &TensorRef<'_>, output: &mut TensorMut<'_>) -> Result<()> {
        self.do_move(plan, input, output, sys::frugal_router_permute)
    }

    /// Weighted scatter-add back to token order: `input` [R, H] -> `output`
    /// [T, H], fp32 accumulation in the plan's token_rows order.
    pub fn combine(&self, plan: &RoutePlan, input: &TensorRef<'_>, output: &mut TensorMut<'_>) -> Result<()> {
        self.do_move(plan, input, output, sys::frugal_router_combine)
    }

    /// The sizes of the exchange a routed plan asks for (ABI 2.4): the rows
    /// this rank sends and receives. Local (no collective). A router
    /// without `ep_comm` is `ErrorCode::FailedPrecondition`.
    pub fn ep_shape(&self, plan: &RoutePlan) -> Result<RouteEpShape> {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut s: sys::frugal_route_ep_shape = unsafe { std::mem::zeroed() };
        s.struct_size = size_of::<sys::frugal_route_ep_shape>();
        plan.with_raw(plan.read_ptrs(), |raw_plan| {
            // SAFETY: the plan is only read; `s` is caller-allocated.
            check(unsafe { sys::frugal_router_ep_shape(self.raw.as_ptr(), raw_plan, &mut s) })
        })?;
        Ok(RouteEpShape {
            rank: s.rank,
            ranks: s.ranks,
            first_expert: s.first_expert,
            local_experts: s.local_experts,
            group_tokens: s.group_tokens,
            token_offset: s.token_offset,
            sent_rows: s.sent_rows,
            received_rows: s.received_rows,
        })
    }

    /// Expert-parallel dispatch (ABI 2.4): sends each kept row of `input`
    /// [T, H] to the rank owning its expert and writes the rows this rank's
    /// experts receive into `output` [received_rows, H] (same dtype; empty
    /// when none), expert-major, each expert's rows in rising group token
    /// order. `expert_offsets` ([local_experts + 1]) gets the bounds of
    /// each local expert's rows, `row_token` (`[received_rows]`) each row's
    /// token in the group's numbering; either may be `None`. Sizes from
    /// [`Router::ep_shape`]. Collective over the router's `ep_comm`.
    pub fn ep_dispatch(
        &self,
        plan: &RoutePlan,
        input: &TensorRef<'_>,
        output: &mut TensorMut<'_>,
        expert_offsets: Option<&mut [i64]>,
        row_token: Option<&mut [i64]>,
    ) -> Result<()> {
        // The views own the shapes their raw structs point to: they live
        // until the call returns.
        let mut offsets_view = index_view(expert_offsets)?;
        let mut tokens_view = index_view(row_token)?;
        let input = input.raw();
        let output = output.raw();
        let offsets = offsets_view.as_mut().map(|v| v.raw());
        let tokens = tokens_view.as_mut().map(|v| v.raw());
        plan.with_raw(plan.read_ptrs(), |raw_plan| {
            let args = sys::frugal_route_dispatch_args {
                struct_size: size_of::<sys::frugal_route_dispatch_args>(),
                plan: raw_plan,
                input: &input,
                output: &output,
                expert_offsets: offsets.as_ref().map_or(ptr::null(), |v| v as *const _),
                row_token: tokens.as_ref().map_or(ptr::null(), |v| v as *const _),
                stream: ptr::null_mut(),
            };
            // SAFETY: the plan and input are only read; output and the two
            // index slices are exclusively borrowed; all outlive the call.
            check(unsafe { sys::frugal_router_ep_dispatch(self.raw.as_ptr(), &args) })
        })
    }

    /// Expert-parallel combine (ABI 2.4): returns the experts' outputs
    /// `input` [received_rows, H] (in [`Router::ep_dispatch`]'s order) to
    /// their tokens' ranks and combines them into `output` [T, H], each row
    /// bit for bit what [`Router::combine`] gives one router on the group's
    /// tokens. Collective over the router's `ep_comm`.
    pub fn ep_combine(&self, plan: &RoutePlan, input: &TensorRef<'_>, output: &mut TensorMut<'_>) -> Result<()> {
        self.do_move(plan, input, output, sys::frugal_router_ep_combine)
    }

    /// One aux-loss-free bias step from the experts' loads ([E], each >= 0).
    pub fn update(&self, expert_load: &[i64]) -> Result<()> {
        let load = TensorRef::new(expert_load, &[expert_load.len() as i64])?;
        let load = load.raw();
        // SAFETY: live router; the view is read during the call.
        check(unsafe { sys::frugal_router_update(self.raw.as_ptr(), &load) })
    }

    /// Load statistics of a routed plan.
    pub fn stats(&self, plan: &RoutePlan) -> Result<RouteStats> {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut s: sys::frugal_route_stats = unsafe { std::mem::zeroed() };
        s.struct_size = size_of::<sys::frugal_route_stats>();
        // SAFETY: the plan is only read; `s` is caller-allocated.
        plan.with_raw(plan.read_ptrs(), |raw_plan| check(unsafe { sys::frugal_router_stats(self.raw.as_ptr(), raw_plan, &mut s) }))?;
        Ok(RouteStats {
            tokens: s.tokens,
            assignments: s.assignments,
            kept: s.kept,
            dropped: s.dropped,
            max_load: s.max_load,
            max_over_mean: s.max_over_mean,
            dropped_fraction: s.dropped_fraction,
            aux_loss: s.aux_loss,
            z_loss: s.z_loss,
        })
    }

    /// The router state (the bias; empty for stateless routers).
    pub fn export_state(&self) -> Result<Vec<u8>> {
        // SAFETY: live router; the helper passes a valid buffer and size.
        export_blob(|buffer, capacity, size| unsafe {
            sys::frugal_router_export_state(self.raw.as_ptr(), buffer, capacity, size)
        })
    }

    /// Restores a state exported by a router with the same options.
    pub fn import_state(&self, state: &[u8]) -> Result<()> {
        // SAFETY: live router; `state` is read during the call.
        check(unsafe { sys::frugal_router_import_state(self.raw.as_ptr(), state.as_ptr() as *const c_void, state.len()) })
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *mut sys::frugal_router {
        self.raw.as_ptr()
    }
}

impl Drop for Router {
    fn drop(&mut self) {
        // SAFETY: we own the router; `&mut self` excludes other calls.
        unsafe { sys::frugal_router_destroy(self.raw.as_ptr()) }
    }
}
