package frugal

import (
	"reflect"
	"testing"
)

func TestPackStreamHandsOutEverySequenceExactlyOnce(t *testing.T) {
	p := newTestPacker(t, maxLenOptions(t))
	sopts := newTestOptions(t)
	must(t, sopts.SetInt("window", 16))
	must(t, sopts.SetInt("max_rounds", 2))
	s, err := NewPackStream(p, sopts)
	must(t, err)
	defer s.Close()
	must(t, p.Close()) // the stream keeps what it needs

	lengths := randomLengths(100)
	// A few pushes into an empty window are only held.
	for i := 0; i < 3; i++ {
		must(t, s.Push(int64(1000+i), lengths[i]))
	}
	if held, ready, err := s.Pending(); err != nil || held != 3 || ready != 0 {
		t.Fatalf("pending after 3 pushes: held %d ready %d (%v), want 3, 0", held, ready, err)
	}
	seen := map[int64]int64{} // id -> tokens out
	collect := func() int {
		plan, err := s.Pop()
		must(t, err)
		defer plan.Close()
		for pk, ids := range plan.Packs() {
			var total int64
			for u, id := range ids {
				seen[id] += plan.UnitLengths()[pk][u]
				total += plan.UnitLengths()[pk][u]
			}
			if total > testMaxLen {
				t.Fatalf("pack %d holds %d tokens > %d", pk, total, testMaxLen)
			}
		}
		return len(plan.Packs())
	}
	for i := 3; i < len(lengths); i++ {
		must(t, s.Push(int64(1000+i), lengths[i]))
		held, _, err := s.Pending()
		must(t, err)
		if held > 16 {
			t.Fatalf("window holds %d units > 16", held)
		}
		if i%10 == 0 {
			collect()
		}
	}
	must(t, s.Flush())
	held, ready, err := s.Pending()
	must(t, err)
	if held != 0 || ready == 0 {
		t.Fatalf("after flush: held %d ready %d, want 0 and > 0", held, ready)
	}
	if got := collect(); got != ready {
		t.Fatalf("pop gave %d packs, pending said %d", got, ready)
	}
	if held, ready, _ := s.Pending(); held != 0 || ready != 0 {
		t.Fatalf("after the last pop: held %d ready %d", held, ready)
	}
	if len(seen) != len(lengths) {
		t.Fatalf("%d distinct sequences out, %d pushed", len(seen), len(lengths))
	}
	for i, l := range lengths {
		if seen[int64(1000+i)] != l {
			t.Fatalf("sequence %d: %d tokens out, %d pushed", 1000+i, seen[int64(1000+i)], l)
		}
	}
	// An empty pop is a plan with no packs.
	empty, err := s.Pop()
	must(t, err)
	if len(empty.Packs()) != 0 || empty.Stats().Packs != 0 {
		t.Fatalf("empty pop: %v", empty.Packs())
	}
	empty.Close()
	wantError(t, s.Push(1, 0), CodeInvalidArgument)
	must(t, s.Close())
	must(t, s.Close())
	wantError(t, s.Flush(), CodeFailedPrecondition, "pack stream is closed")
}

func TestPackHistogramNumbersSequencesInBinOrder(t *testing.T) {
	p := newTestPacker(t, maxLenOptions(t))
	plan, err := p.PackHistogram([]int64{10, 30}, []int64{3, 2})
	must(t, err)
	defer plan.Close()
	got := map[int64]int64{}
	for pk, ids := range plan.Packs() {
		for u, id := range ids {
			got[id] = plan.UnitLengths()[pk][u]
		}
	}
	want := map[int64]int64{0: 10, 1: 10, 2: 10, 3: 30, 4: 30}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("units %v, want %v", got, want)
	}
	if st := plan.Stats(); st.Sequences != 5 || st.RealTokens != 90 || st.LowerBound != 2 {
		t.Fatalf("stats %+v", st)
	}
	_, err = p.PackHistogram([]int64{10}, []int64{1, 2})
	wantError(t, err, CodeInvalidArgument, "1 lengths but 2 counts")
	_, err = p.PackHistogram([]int64{10}, []int64{0})
	wantError(t, err, CodeInvalidArgument)
}

func TestGatherMaskAndSegmentIDsOfOnePack(t *testing.T) {
	p := newTestPacker(t, maxLenOptions(t))
	plan, err := p.Pack([]int64{3, 2})
	must(t, err)
	defer plan.Close()
	if !reflect.DeepEqual(plan.Packs(), [][]int64{{0, 1}}) {
		t.Fatalf("packs %v, want [[0 1]]", plan.Packs())
	}
	args := GatherArgs{
		Tokens:          []int64{11, 12, 13, 21, 22},
		SequenceOffsets: []int64{0, 3, 5},
		OutTokens:       make([]int64, 6),
		OutLabels:       make([]int64, 6),
		PadToken:        -1,
		IgnoreIndex:     -100,
		MaskFirstLabel:  true,
	}
	must(t, plan.Gather(0, args))
	if want := []int64{11, 12, 13, 21, 22, -1}; !reflect.DeepEqual(args.OutTokens, want) {
		t.Errorf("tokens %v, want %v", args.OutTokens, want)
	}
	if want := []int64{-100, 12, 13, -100, 22, -100}; !reflect.DeepEqual(args.OutLabels, want) {
		t.Errorf("labels %v, want %v", args.OutLabels, want)
	}
	// Own labels, first labels kept.
	args.Labels = []int64{1, 2, 3, 4, 5}
	args.MaskFirstLabel = false
	must(t, plan.Gather(0, args))
	if want := []int64{1, 2, 3, 4, 5, -100}; !reflect.DeepEqual(args.OutLabels, want) {
		t.Errorf("own labels %v, want %v", args.OutLabels, want)
	}

	seg, err := plan.SegmentIDs(0, 6)
	must(t, err)
	if want := []int32{1, 1, 1, 2, 2, 0}; !reflect.DeepEqual(seg, want) {
		t.Errorf("segment ids %v, want %v", seg, want)
	}
	mask, err := plan.Mask(0, 6)
	must(t, err)
	want := []uint8{
		1, 0, 0, 0, 0, 0,
		1, 1, 0, 0, 0, 0,
		1, 1, 1, 0, 0, 0,
		0, 0, 0, 1, 0, 0,
		0, 0, 0, 1, 1, 0,
		0, 0, 0, 0, 0, 1, // padding attends only to itself
	}
	if !reflect.DeepEqual(mask, want) {
		t.Errorf("mask %v, want %v", mask, want)
	}

	// Offsets past the tokens are refused before C could read past them.
	bad := args
	bad.SequenceOffsets = []int64{0, 3, 9}
	wantError(t, plan.Gather(0, bad), CodeInvalidArgument, "past the 5 tokens")
	// A sequence shorter than the plan expects: libfrugal names it.
	short := args
	short.Tokens, short.Labels, short.SequenceOffsets = []int64{11, 12, 13, 21}, nil, []int64{0, 3, 4}
	wantError(t, plan.Gather(0, short), CodeInvalidArgument)
	tooSmall := args
	tooSmall.OutTokens, tooSmall.OutLabels = make([]int64, 4), nil
	wantError(t, plan.Gather(0, tooSmall), CodeOutOfRange, "out_length is 4")
	_, err = plan.Mask(1, 6)
	wantError(t, err, CodeOutOfRange)
}
