package frugal

// RoutePlan is the dispatch plan a Route call writes: tensors the caller
// owns (NewPlan allocates them as Go slices; any compact tensors of the
// right dtype and element count do). The token-choice members (ExpertIDs,
// Weights, Dropped, SlotRow) stay zero Tensors for expert choice, the
// expert-parallel ones (EpTokens, EpRows, ABI 2.4) for a router without
// ep_comm. Read results with the Tensor accessors, e.g.
// plan.ExpertIDs.Int32s().
//
// Rows [N, R) past the N kept rows hold RowToken = TokenRows = -1 and
// RowWeight = 0.
type RoutePlan struct {
	ExpertIDs     Tensor // [T, k] int32: each token's experts, best first
	Weights       Tensor // [T, k] float32: their gate weights
	Dropped       Tensor // [T, k] uint8: 1 where capacity dropped the assignment
	SlotRow       Tensor // [T, k] int64: the row of each slot, -1 where dropped
	ExpertOffsets Tensor // [E+1] int64: expert e's rows are [off[e], off[e+1])
	ExpertDemand  Tensor // [E] int64: assignments asked of each expert, before drops
	RowToken      Tensor // [R] int64: the token of each row
	RowWeight     Tensor // [R] float32: the gate weight of each row
	TokenOffsets  Tensor // [T+1] int64: token t's rows are TokenRows[off[t]:off[t+1]]
	TokenRows     Tensor // [R] int64: row indices grouped by token
	MeanProb      Tensor // [E] float32: mean router probability per expert
	Losses        Tensor // [2] float32: aux loss and z-loss
	// Expert parallelism (ABI 2.4): host memory, required when the
	// router's Layout().EpRanks W > 0.
	EpTokens Tensor // [W] int64: the tokens each rank of the group routed
	EpRows   Tensor // [W, E] int64: the rows each rank kept for each expert
}

// planPart is one plan member with its C field name, for messages.
type planPart struct {
	t    Tensor
	name string
}

// parts lists the members in frugal_route_plan order (the shim's slots).
func (p *RoutePlan) parts() [14]planPart {
	return [14]planPart{
		{p.ExpertIDs, "expert_ids"}, {p.Weights, "weights"}, {p.Dropped, "dropped"}, {p.SlotRow, "slot_row"},
		{p.ExpertOffsets, "expert_offsets"}, {p.ExpertDemand, "expert_demand"}, {p.RowToken, "row_token"},
		{p.RowWeight, "row_weight"}, {p.TokenOffsets, "token_offsets"}, {p.TokenRows, "token_rows"},
		{p.MeanProb, "mean_prob"}, {p.Losses, "losses"}, {p.EpTokens, "ep_tokens"}, {p.EpRows, "ep_rows"},
	}
}

// NewPlan allocates, in Go memory, a plan for `tokens` tokens with the
// shapes PlanShape gives. Reuse it for every batch of that many tokens.
func (r *Router) NewPlan(tokens int64) (*RoutePlan, error) {
	shape, err := r.PlanShape(tokens)
	if err != nil {
		return nil, err
	}
	experts := int64(r.layout.Experts)
	rows := shape.MaxRows
	p := &RoutePlan{
		ExpertOffsets: Int64s(make([]int64, experts+1)),
		ExpertDemand:  Int64s(make([]int64, experts)),
		RowToken:      Int64s(make([]int64, rows)),
		RowWeight:     Float32s(make([]float32, rows)),
		TokenOffsets:  Int64s(make([]int64, tokens+1)),
		TokenRows:     Int64s(make([]int64, rows)),
		MeanProb:      Float32s(make([]float32, experts)),
		Losses:        Float32s(make([]float32, 2)),
	}
	if r.layout.Choice == TokenChoice {
		k := int64(r.layout.TopK)
		p.ExpertIDs = Int32s(make([]int32, tokens*k), tokens, k)
		p.Weights = Float32s(make([]float32, tokens*k), tokens, k)
		p.Dropped = Uint8s(make([]uint8, tokens*k), tokens, k)
		p.SlotRow = Int64s(make([]int64, tokens*k), tokens, k)
	}
	if w := int64(r.layout.EpRanks); w > 0 {
		p.EpTokens = Int64s(make([]int64, w))
		p.EpRows = Int64s(make([]int64, w*experts), w, experts)
	}
	return p, nil
}
