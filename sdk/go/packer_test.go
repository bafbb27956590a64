package frugal

import (
	"math/rand"
	"testing"
)

const testMaxLen = 64

func newTestPacker(t *testing.T, opts *Options) *Packer {
	t.Helper()
	p, err := NewPacker(newTestContext(t), "packer_seq", opts)
	if err != nil {
		t.Fatalf("NewPacker: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func maxLenOptions(t *testing.T) *Options {
	opts := newTestOptions(t)
	must(t, opts.SetInt("max_len", testMaxLen))
	return opts
}

// randomLengths gives n lengths in 1..testMaxLen from a fixed seed, so a
// failure reproduces.
func randomLengths(n int) []int64 {
	r := rand.New(rand.NewSource(42))
	out := make([]int64, n)
	for i := range out {
		out[i] = 1 + r.Int63n(testMaxLen)
	}
	return out
}

func TestPackPlacesEverySequenceOnceWithinMaxLen(t *testing.T) {
	p := newTestPacker(t, maxLenOptions(t))
	lengths := randomLengths(200)
	plan, err := p.Pack(lengths)
	if err != nil {
		t.Fatalf("Pack: %v", err)
	}
	defer plan.Close()

	seen := make([]int, len(lengths))
	var total int64
	for i, pack := range plan.Packs() {
		var tokens int64
		for j, id := range pack {
			if id < 0 || int(id) >= len(lengths) {
				t.Fatalf("pack %d holds sequence id %d, out of range", i, id)
			}
			seen[id]++
			if got := plan.UnitLengths()[i][j]; got != lengths[id] {
				t.Errorf("pack %d unit %d: length %d, sequence %d has %d", i, j, got, id, lengths[id])
			}
			tokens += lengths[id]
		}
		if tokens > testMaxLen {
			t.Errorf("pack %d holds %d tokens > max_len %d", i, tokens, testMaxLen)
		}
		total += tokens
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("sequence %d placed %d times, want 1", id, n)
		}
	}
	st := plan.Stats()
	if st.Packs != int64(len(plan.Packs())) || st.Units != 200 || st.Sequences != 200 ||
		st.RealTokens != total || st.MaxLen != testMaxLen {
		t.Errorf("stats %+v disagree with the packs (%d packs, %d tokens)", st, len(plan.Packs()), total)
	}
	if st.Packs < st.LowerBound || st.Method == "" {
		t.Errorf("stats: %d packs below lower bound %d, or no method (%q)", st.Packs, st.LowerBound, st.Method)
	}
}

func TestCuSeqlensAndPositionIDsFollowThePacks(t *testing.T) {
	p := newTestPacker(t, maxLenOptions(t))
	lengths := randomLengths(50)
	plan, err := p.Pack(lengths)
	must(t, err)
	defer plan.Close()
	for i, pack := range plan.Packs() {
		cu, maxSeqlen, err := plan.CuSeqlens(i)
		if err != nil {
			t.Fatalf("CuSeqlens(%d): %v", i, err)
		}
		if len(cu) != len(pack)+1 || cu[0] != 0 {
			t.Fatalf("pack %d: cu_seqlens %v for %d units", i, cu, len(pack))
		}
		var longest int64
		for j, id := range pack {
			if int64(cu[j+1]-cu[j]) != lengths[id] {
				t.Errorf("pack %d: cu_seqlens %v step %d != length %d of sequence %d", i, cu, j, lengths[id], id)
			}
			if lengths[id] > longest {
				longest = lengths[id]
			}
		}
		if int64(maxSeqlen) != longest {
			t.Errorf("pack %d: max_seqlen %d, want %d", i, maxSeqlen, longest)
		}
		pos, err := plan.PositionIDs(i, testMaxLen)
		if err != nil {
			t.Fatalf("PositionIDs(%d): %v", i, err)
		}
		// Each unit counts 0.. from its cu_seqlens start; padding is 0.
		for j := 0; j+1 < len(cu); j++ {
			for k := cu[j]; k < cu[j+1]; k++ {
				if pos[k] != int64(k-cu[j]) {
					t.Fatalf("pack %d: position %d = %d, want %d", i, k, pos[k], k-cu[j])
				}
			}
		}
		for k := int(cu[len(cu)-1]); k < testMaxLen; k++ {
			if pos[k] != 0 {
				t.Fatalf("pack %d: padding position %d = %d, want 0", i, k, pos[k])
			}
		}
	}
	_, _, err = plan.CuSeqlens(len(plan.Packs()))
	wantError(t, err, CodeOutOfRange)
}

func TestPackRefusals(t *testing.T) {
	p := newTestPacker(t, maxLenOptions(t))
	_, err := p.Pack(nil)
	wantError(t, err, CodeInvalidArgument)
	_, err = p.Pack([]int64{3, 0, 5})
	wantError(t, err, CodeInvalidArgument)
	// overlong defaults to "error": a sequence over max_len is refused.
	_, err = p.Pack([]int64{testMaxLen + 1})
	wantError(t, err, CodeInvalidArgument)
}

func TestPackerWithoutMaxLenOrUnknownIsRefused(t *testing.T) {
	ctx := newTestContext(t)
	_, err := NewPacker(ctx, "packer_seq", newTestOptions(t))
	wantError(t, err, CodeInvalidArgument, "max_len")
	_, err = NewPacker(ctx, "no_such_packer", maxLenOptions(t))
	wantError(t, err, CodeNotFound, "no_such_packer")
}

func TestPackerAndPlanCloseTwice(t *testing.T) {
	p := newTestPacker(t, maxLenOptions(t))
	plan, err := p.Pack([]int64{10, 20, 30})
	must(t, err)
	must(t, p.Close())
	must(t, p.Close())
	// The plan outlives its packer and keeps its Go copies after Close.
	if _, _, err := plan.CuSeqlens(0); err != nil {
		t.Fatalf("CuSeqlens after packer Close: %v", err)
	}
	must(t, plan.Close())
	must(t, plan.Close())
	if got := plan.Stats().Units; got != 3 {
		t.Errorf("Stats().Units after Close = %d, want 3", got)
	}
	_, err = plan.PositionIDs(0, testMaxLen)
	wantError(t, err, CodeFailedPrecondition, "pack plan is closed")
	_, err = p.Pack([]int64{1})
	wantError(t, err, CodeFailedPrecondition, "packer is closed")
}
