package frugal

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Sharded checkpoints (ABI 2.2) in one process: an engine over a "local"
// comm, a group of one; and the ABI 2.3 calls over it, the preemption
// agreement (collective) and each saving rank's restored metadata.

// newShardedEngine opens an engine with prefix over a local comm; the comm
// and the options are closed at once (the engine keeps sub-groups of its
// own), the engine when the test ends.
func newShardedEngine(t *testing.T, store *Store, prefix string) *CkptEngine {
	t.Helper()
	c := newLocalComm(t)
	if c.Rank() != 0 || c.Size() != 1 {
		t.Fatalf("local comm: rank %d of %d, want 0 of 1", c.Rank(), c.Size())
	}
	opts := newTestOptions(t)
	must(t, opts.SetComm("comm", c))
	must(t, opts.SetString("prefix", prefix))
	e, err := NewCkptEngine(store, opts)
	must(t, err)
	must(t, c.Close())
	must(t, opts.Close())
	t.Cleanup(func() { e.Close() })
	return e
}

func TestShardedCheckpointRoundTripsASliceAReplicatedAndARankLocalTensor(t *testing.T) {
	store := newTestStore(t)
	e := newShardedEngine(t, store, "job/")
	weights := newTestCTensor(t, DTypeFloat32, 6, 4)
	bias := newTestCTensor(t, DTypeFloat64, 4)
	cursor := newTestCTensor(t, DTypeInt64, 3)
	copy(weights.Tensor().Float32s(), uniformFloats(23, 24, 1))
	copy(bias.Tensor().Float64s(), []float64{-1.5, -0.5, 0.5, 1.5})
	copy(cursor.Tensor().Int64s(), []int64{7, 8, 9})
	wantWeights := append([]byte(nil), weights.Tensor().Bytes()...)
	wantBias := append([]byte(nil), bias.Tensor().Bytes()...)
	// This rank holds rows 0..6 of [6, 4]: all of it, in a group of one.
	must(t, e.RegisterSlice("model/weights", weights, CkptSlice{GlobalShape: []int64{6, 4}, Offsets: []int64{0, 0}}, 0))
	must(t, e.RegisterSlice("model/bias", bias, CkptSlice{GlobalShape: []int64{4}, Replicated: true}, 0))
	must(t, e.Register("data/cursor", cursor, 0)) // rank-local on an engine with a comm
	saved, err := e.Save(CkptFull, 7, []byte("sharded"), SaveWait)
	must(t, err)

	for _, ct := range []*CTensor{weights, bias, cursor} {
		b := ct.Tensor().Bytes()
		for i := range b {
			b[i] = 0
		}
	}
	info, meta, err := e.Restore("", CkptAllKinds)
	must(t, err)
	if info.Name != saved.Name || info.Step != 7 || info.TensorCount != 3 || info.WorldSize != 1 ||
		len(info.NotRestored) != 0 || string(meta) != "sharded" {
		t.Fatalf("restored %+v with metadata %q; want %s at step 7, 3 tensors, world size 1", info, meta, saved.Name)
	}
	if !bytes.Equal(weights.Tensor().Bytes(), wantWeights) || !bytes.Equal(bias.Tensor().Bytes(), wantBias) {
		t.Fatalf("slices not restored: weights %v, bias %v", weights.Tensor().Float32s(), bias.Tensor().Float64s())
	}
	if got := cursor.Tensor().Int64s(); got[0] != 7 || got[1] != 8 || got[2] != 9 {
		t.Fatalf("rank-local tensor %v, want [7 8 9]", got)
	}

	latest, err := e.Latest(CkptAllKinds)
	must(t, err)
	list, err := e.List(ListVerifyShards)
	must(t, err)
	if latest.WorldSize != 1 || len(list) != 1 || list[0].Name != saved.Name || list[0].WorldSize != 1 {
		t.Errorf("latest %+v, list %+v: want %s with world size 1", latest, list, saved.Name)
	}
	text, err := e.InspectJSON(saved.Name)
	must(t, err)
	var manifest struct {
		FormatVersion int `json:"format_version"`
		WorldSize     int `json:"world_size"`
		Tensors       []struct {
			Name        string  `json:"name"`
			GlobalShape []int64 `json:"global_shape"`
			Offsets     []int64 `json:"offsets"`
		} `json:"tensors"`
	}
	must(t, json.Unmarshal([]byte(text), &manifest))
	if manifest.FormatVersion != 3 || manifest.WorldSize != 1 || len(manifest.Tensors) != 3 {
		t.Fatalf("manifest format %d, world size %d, %d tensors; want 3, 1, 3:\n%s",
			manifest.FormatVersion, manifest.WorldSize, len(manifest.Tensors), text)
	}

	// An engine without a comm restores the job's checkpoint whole.
	opts := newTestOptions(t)
	must(t, opts.SetString("prefix", "job/"))
	whole, err := NewCkptEngine(store, opts)
	must(t, err)
	defer whole.Close()
	wholeWeights := newTestCTensor(t, DTypeFloat32, 6, 4)
	must(t, whole.Register("model/weights", wholeWeights, 0))
	must(t, whole.Register("model/bias", newTestCTensor(t, DTypeFloat64, 4), 0))
	must(t, whole.Register("data/cursor", newTestCTensor(t, DTypeInt64, 3), 0))
	info, _, err = whole.Restore("", CkptAllKinds)
	must(t, err)
	if info.Name != saved.Name || info.WorldSize != 1 || !bytes.Equal(wholeWeights.Tensor().Bytes(), wantWeights) {
		t.Fatalf("whole restore %+v, weights %v", info, wholeWeights.Tensor().Float32s())
	}
}

func TestTheAgreementAndTheRestoredMetadataOverAGroupOfOne(t *testing.T) {
	e := newShardedEngine(t, newTestStore(t), "job/")
	PreemptionClear()
	defer PreemptionClear()
	pending, err := e.PreemptionAgree()
	must(t, err)
	if pending {
		t.Fatalf("agreed on a notice before any")
	}
	PreemptionNotify()
	pending, err = e.PreemptionAgree()
	must(t, err)
	if !pending || !PreemptionPending() {
		t.Fatalf("agreed %v, pending %v after PreemptionNotify; want both true", pending, PreemptionPending())
	}
	PreemptionClear()

	must(t, e.RegisterSlice("w", newTestCTensor(t, DTypeFloat32, 8), CkptSlice{GlobalShape: []int64{8}}, 0))
	_, err = e.RestoredMetadata(0)
	wantError(t, err, CodeFailedPrecondition)
	_, err = e.Save(CkptFull, 3, []byte("rank 0 of 1"), SaveWait)
	must(t, err)
	info, meta, err := e.Restore("", CkptAllKinds)
	must(t, err)
	got, err := e.RestoredMetadata(0)
	must(t, err)
	if info.WorldSize != 1 || string(meta) != "rank 0 of 1" || string(got) != "rank 0 of 1" {
		t.Fatalf("world size %d, metadata %q, rank 0's %q; want 1 and \"rank 0 of 1\" twice", info.WorldSize, meta, got)
	}
	_, err = e.RestoredMetadata(1)
	wantError(t, err, CodeOutOfRange)
}

func TestAnEngineWithoutACommIsOneRankAndRefusesSlices(t *testing.T) {
	e, err := NewCkptEngine(newTestStore(t), nil)
	must(t, err)
	defer e.Close()
	state := newTestCTensor(t, DTypeInt32, 5)
	copy(state.Tensor().Int32s(), []int32{0, 1, 2, 3, 4})
	must(t, e.Register("state", state, 0))
	saved, err := e.Save(CkptFull, 1, nil, SaveWait)
	must(t, err)
	latest, err := e.Latest(CkptAllKinds)
	must(t, err)
	copy(state.Tensor().Int32s(), []int32{0, 0, 0, 0, 0})
	info, _, err := e.Restore("", CkptAllKinds)
	must(t, err)
	if latest.WorldSize != 1 || info.Name != saved.Name || info.WorldSize != 1 || state.Tensor().Int32s()[4] != 4 {
		t.Fatalf("latest %+v, restored %+v, state %v; want world size 1 and [0 1 2 3 4]",
			latest, info, state.Tensor().Int32s())
	}

	w := newTestCTensor(t, DTypeFloat32, 6, 4)
	err = e.RegisterSlice("w", w, CkptSlice{GlobalShape: []int64{6, 4}}, 0)
	wantError(t, err, CodeFailedPrecondition, "'w'", "without a 'comm' option")
	must(t, w.Close()) // nothing holds it
}

func TestRegisterSliceChecksLengthsAndTheCoreTheRest(t *testing.T) {
	e := newShardedEngine(t, newTestStore(t), "job/")
	w := newTestCTensor(t, DTypeFloat32, 6, 4)
	wantError(t, e.RegisterSlice("w", w, CkptSlice{GlobalShape: []int64{24}}, 0), CodeInvalidArgument,
		"checkpoint slice 'w': GlobalShape has 1 values but the tensor has 2 dimensions")
	wantError(t, e.RegisterSlice("w", w, CkptSlice{GlobalShape: []int64{6, 4}, Offsets: []int64{0, 0, 0}}, 0),
		CodeInvalidArgument, "checkpoint slice 'w': Offsets has 3 values but the tensor has 2 dimensions")
	wantError(t, e.RegisterSlice("w", w, CkptSlice{GlobalShape: []int64{6, 4}, Offsets: []int64{1, 0}}, 0),
		CodeOutOfRange, "'w'", "past the tensor's extent 6")
	wantError(t, e.RegisterSlice("w", w, CkptSlice{GlobalShape: []int64{12, 4}, Replicated: true}, 0),
		CodeInvalidArgument, "'w'", "replicated")
	wantError(t, e.RegisterSlice("w", nil, CkptSlice{GlobalShape: []int64{6, 4}}, 0), CodeInvalidArgument, "closed or nil")
	must(t, w.Close()) // the refusals registered nothing

	// Rows 0..3 of 6 leave half the tensor uncovered: the save finds it and
	// commits on no rank.
	half := newTestCTensor(t, DTypeFloat32, 3, 4)
	must(t, e.RegisterSlice("w", half, CkptSlice{GlobalShape: []int64{6, 4}}, 0))
	wantError(t, half.Close(), CodeFailedPrecondition, "registered")
	_, err := e.Save(CkptFull, 1, nil, SaveWait)
	wantError(t, err, CodeFailedPrecondition, "covers 12 of the 24 elements of tensor 'w'")
	list, err := e.List(0)
	must(t, err)
	if len(list) != 0 {
		t.Fatalf("List after a refused save = %+v, want none", list)
	}
}
