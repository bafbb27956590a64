package main

import (
	"fmt"
	"math"

	frugal "frugal.invalid/sdk/go"
)

// The tour's cosine schedule (steps 2 and 6).
const (
	peakLR      = 3e-4
	minLR       = 3e-5
	warmupSteps = 100
	totalSteps  = 1000
)

// cosineOptions returns the options of the tour's cosine schedule; the
// caller closes them.
func cosineOptions() (*frugal.Options, error) {
	opts, err := frugal.NewOptions()
	if err != nil {
		return nil, err
	}
	for _, set := range []error{
		opts.SetDouble("lr", peakLR), opts.SetDouble("min_lr", minLR),
		opts.SetInt("warmup_steps", warmupSteps), opts.SetInt("total_steps", totalSteps),
	} {
		if set != nil {
			opts.Close()
			return nil, set
		}
	}
	return opts, nil
}

// cosineClosedForm is the schedule as the tour states it.
func cosineClosedForm(step int64) float64 {
	switch {
	case step < warmupSteps:
		return peakLR * float64(step+1) / warmupSteps
	case step >= totalSteps:
		return minLR
	}
	progress := float64(step-warmupSteps) / float64(totalSteps-warmupSteps)
	return minLR + (peakLR-minLR)*0.5*(1+math.Cos(math.Pi*progress))
}

// tourSchedule is step 2: the cosine schedule equals its closed form.
func tourSchedule(ctx *frugal.Context) (string, error) {
	opts, err := cosineOptions()
	if err != nil {
		return "", err
	}
	defer opts.Close()
	schedule, err := frugal.NewSchedule(ctx, "cosine", opts)
	if err != nil {
		return "", err
	}
	defer schedule.Close()
	line := "schedule: cosine lr at steps 0 99 100 550 999 1000 5000 ="
	for _, step := range []int64{0, 99, 100, 550, 999, 1000, 5000} {
		lr, err := schedule.LR(step)
		if err != nil {
			return "", err
		}
		if want := cosineClosedForm(step); math.Abs(lr-want) > 1e-12*want {
			return "", mismatch("schedule: lr at step %d is %.17g; the closed form gives %.17g", step, lr, want)
		}
		line += fmt.Sprintf(" %.6e", lr)
	}
	return line, nil
}

const (
	packSequences = 256
	packMaxLen    = 2048
)

// tourPack is step 3: packer_seq places every sequence once, within
// max_len, efficiently, and pack 0's cu_seqlens follow its sequences.
func tourPack(ctx *frugal.Context) (string, error) {
	rng := newStream(7)
	lengths := make([]int64, packSequences)
	for i := range lengths {
		lengths[i] = int64(1 + rng.next()%1024)
	}
	opts, err := frugal.NewOptions()
	if err != nil {
		return "", err
	}
	defer opts.Close()
	if err := opts.SetInt("max_len", packMaxLen); err != nil {
		return "", err
	}
	packer, err := frugal.NewPacker(ctx, "packer_seq", opts)
	if err != nil {
		return "", err
	}
	defer packer.Close()
	plan, err := packer.Pack(lengths)
	if err != nil {
		return "", err
	}
	defer plan.Close()
	if err := checkPlacement(plan, lengths); err != nil {
		return "", err
	}
	stats := plan.Stats()
	var total int64
	for _, l := range lengths {
		total += l
	}
	if stats.RealTokens != total {
		return "", mismatch("pack: the plan counts %d real tokens; the lengths sum to %d", stats.RealTokens, total)
	}
	if !(stats.Efficiency >= 0.95) {
		return "", mismatch("pack: efficiency %.4f is below 0.95", stats.Efficiency)
	}
	tokens0, err := checkCuSeqlens(plan, lengths)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("pack: %d sequences, %d tokens in %d packs of %d (efficiency %.4f, %s); pack 0: %d sequences, %d tokens",
		packSequences, stats.RealTokens, stats.Packs, packMaxLen, stats.Efficiency, stats.Method,
		len(plan.Packs()[0]), tokens0), nil
}

// checkPlacement: every sequence id appears exactly once across the packs,
// and no pack holds more than max_len tokens.
func checkPlacement(plan *frugal.PackPlan, lengths []int64) error {
	seen := make([]int, len(lengths))
	for p, pack := range plan.Packs() {
		var tokens int64
		for _, id := range pack {
			if id < 0 || int(id) >= len(lengths) {
				return mismatch("pack: pack %d holds sequence id %d of %d", p, id, len(lengths))
			}
			seen[id]++
			tokens += lengths[id]
		}
		if tokens > packMaxLen {
			return mismatch("pack: pack %d holds %d tokens, more than %d", p, tokens, packMaxLen)
		}
	}
	for id, n := range seen {
		if n != 1 {
			return mismatch("pack: sequence %d appears %d times across the packs", id, n)
		}
	}
	return nil
}

// checkCuSeqlens: pack 0's cu_seqlens start at 0, rise by each of its
// sequences' lengths and end at the pack's token count, which it returns.
func checkCuSeqlens(plan *frugal.PackPlan, lengths []int64) (int64, error) {
	pack0 := plan.Packs()[0]
	var tokens int64
	for _, l := range plan.UnitLengths()[0] {
		tokens += l
	}
	cu, _, err := plan.CuSeqlens(0)
	if err != nil {
		return 0, err
	}
	if len(cu) != len(pack0)+1 || cu[0] != 0 {
		return 0, mismatch("pack: cu_seqlens of pack 0 are %v for %d sequences", cu, len(pack0))
	}
	for u, id := range pack0 {
		if rise := int64(cu[u+1] - cu[u]); rise != lengths[id] {
			return 0, mismatch("pack: cu_seqlens of pack 0 rises by %d at entry %d; its sequence has %d tokens", rise, u, lengths[id])
		}
	}
	if end := int64(cu[len(pack0)]); end != tokens {
		return 0, mismatch("pack: cu_seqlens of pack 0 ends at %d; the pack holds %d tokens", end, tokens)
	}
	return tokens, nil
}
