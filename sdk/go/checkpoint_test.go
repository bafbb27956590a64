package frugal

import (
	"bytes"
	"testing"
)

// newTestStore opens the "fs" store on a fresh directory removed when the
// test ends.
func newTestStore(t *testing.T) *Store {
	t.Helper()
	opts := newTestOptions(t)
	must(t, opts.SetString("root", t.TempDir()))
	must(t, opts.SetBool("fsync", false))
	s, err := NewStore(newTestContext(t), "fs", opts)
	if err != nil {
		t.Fatalf("NewStore: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newTestCTensor allocates a C tensor closed when the test ends.
func newTestCTensor(t *testing.T, dtype DType, shape ...int64) *CTensor {
	t.Helper()
	ct, err := NewCTensor(dtype, shape...)
	must(t, err)
	t.Cleanup(func() { ct.Close() })
	return ct
}

func TestStorePutReadListRemove(t *testing.T) {
	s := newTestStore(t)
	must(t, s.Put("a/one", []byte("hello")))
	must(t, s.Put("a/two", []byte{}))
	must(t, s.Put("b", []byte("xyz")))
	size, err := s.Size("a/one")
	must(t, err)
	buf := make([]byte, 3)
	must(t, s.ReadAt("a/one", 1, buf))
	if size != 5 || string(buf) != "ell" {
		t.Errorf("size %d, bytes %q; want 5, \"ell\"", size, buf)
	}
	objs, err := s.List("a/")
	must(t, err)
	if len(objs) != 2 || objs[0] != (StoreObject{"a/one", 5}) || objs[1] != (StoreObject{"a/two", 0}) {
		t.Errorf("List(a/) = %+v", objs)
	}
	must(t, s.Remove("a/one"))
	_, err = s.Size("a/one")
	wantError(t, err, CodeNotFound)
	wantError(t, s.Put("../escape", []byte("x")), CodeInvalidArgument)
}

func TestCheckpointSaveRestoresBytesAndMetadata(t *testing.T) {
	store := newTestStore(t)
	e, err := NewCkptEngine(store, nil)
	must(t, err)
	defer e.Close()
	weights := newTestCTensor(t, DTypeFloat32, 64, 4)
	cursor := newTestCTensor(t, DTypeInt64, 3)
	copy(weights.Tensor().Float32s(), uniformFloats(17, 256, 1))
	copy(cursor.Tensor().Int64s(), []int64{7, 8, 9})
	want := append([]byte(nil), weights.Tensor().Bytes()...)
	must(t, e.Register("model/weights", weights, CkptFull))
	must(t, e.Register("cursor", cursor, 0))

	full, err := e.Save(CkptFull, 100, []byte("step=100"), 0)
	must(t, err)
	persisted, err := e.Wait()
	must(t, err)
	if full.Name == "" || full.Skipped || persisted.Name != full.Name || full.Bytes < 256*4+3*8+8 {
		t.Fatalf("save %+v, persist %+v", full, persisted)
	}
	beat, err := e.Save(CkptHeartbeat, 110, []byte("step=110"), SaveWait)
	must(t, err)

	for i := range weights.Tensor().Float32s() {
		weights.Tensor().Float32s()[i] = 0
	}
	copy(cursor.Tensor().Int64s(), []int64{0, 0, 0})
	info, meta, err := e.Restore("", CkptFull)
	must(t, err)
	if info.Name != full.Name || info.Step != 100 || info.Kind != CkptFull || info.TensorCount != 2 || string(meta) != "step=100" {
		t.Fatalf("restored %+v with metadata %q", info, meta)
	}
	if !bytes.Equal(weights.Tensor().Bytes(), want) || cursor.Tensor().Int64s()[2] != 9 {
		t.Fatalf("tensors not restored: cursor %v", cursor.Tensor().Int64s())
	}
	// The newest of any kind is the heartbeat, which holds the cursor only.
	latest, err := e.Latest(CkptAllKinds)
	must(t, err)
	if latest.Name != beat.Name || latest.Step != 110 || latest.Kind != CkptHeartbeat || latest.Status != CkptValid {
		t.Errorf("latest %+v, want heartbeat %q", latest, beat.Name)
	}
	list, err := e.List(ListVerifyShards)
	must(t, err)
	if len(list) != 2 || list[0].Name != beat.Name || list[1].Name != full.Name || list[1].Sequence >= list[0].Sequence {
		t.Errorf("List = %+v", list)
	}
}

func TestHeartbeatRestoreTakesFullOnlyStateFromTheFullBeforeIt(t *testing.T) {
	store := newTestStore(t)
	e, err := NewCkptEngine(store, nil)
	must(t, err)
	defer e.Close()
	weights := newTestCTensor(t, DTypeFloat32, 16)
	moments := newTestCTensor(t, DTypeInt64, 4)
	must(t, e.Register("weights", weights, 0))
	must(t, e.Register("optim/moments", moments, CkptFull))
	early, err := e.Save(CkptHeartbeat, 1, nil, SaveWait) // no full checkpoint before it
	must(t, err)
	copy(moments.Tensor().Int64s(), []int64{1, 2, 3, 4})
	full, err := e.Save(CkptFull, 2, nil, SaveWait)
	must(t, err)
	copy(moments.Tensor().Int64s(), []int64{5, 6, 7, 8}) // heartbeats leave it out
	beat, err := e.Save(CkptHeartbeat, 3, nil, SaveWait)
	must(t, err)

	copy(moments.Tensor().Int64s(), []int64{0, 0, 0, 0})
	info, _, err := e.Restore("", CkptAllKinds)
	must(t, err)
	if info.Name != beat.Name || info.FullSource != full.Name || len(info.NotRestored) != 0 {
		t.Fatalf("restored %+v; want %s with full-only state from %s", info, beat.Name, full.Name)
	}
	if got := moments.Tensor().Int64s(); got[0] != 1 || got[3] != 4 {
		t.Fatalf("full-only tensor %v, want the full checkpoint's [1 2 3 4]", got)
	}

	copy(moments.Tensor().Int64s(), []int64{0, 0, 0, 0})
	info, _, err = e.Restore(early.Name, 0)
	must(t, err)
	if info.FullSource != "" || len(info.NotRestored) != 1 || info.NotRestored[0] != "optim/moments" {
		t.Fatalf("restored %+v; want optim/moments reported as not restored", info)
	}
	if got := moments.Tensor().Int64s(); got[0] != 0 {
		t.Fatalf("full-only tensor %v was written", got)
	}
}

func TestRestoreLargeMetadataGrowsItsBuffer(t *testing.T) {
	e, err := NewCkptEngine(newTestStore(t), nil)
	must(t, err)
	defer e.Close()
	must(t, e.Register("x", newTestCTensor(t, DTypeUint8, 16), 0))
	meta := bytes.Repeat([]byte("0123456789"), 1000)
	_, err = e.Save(CkptFull, 1, meta, SaveWait)
	must(t, err)
	_, got, err := e.Restore("", CkptAllKinds)
	must(t, err)
	if !bytes.Equal(got, meta) {
		t.Fatalf("metadata of %d bytes came back as %d bytes", len(meta), len(got))
	}
}

// The preemption agreement (ABI 2.3) of an engine without a comm reports
// this process's notice and leaves it pending.
func TestPreemptionAgreeReportsThisProcessNotice(t *testing.T) {
	e, err := NewCkptEngine(newTestStore(t), nil)
	must(t, err)
	defer e.Close()
	PreemptionClear()
	defer PreemptionClear()
	agree := func() bool {
		t.Helper()
		pending, err := e.PreemptionAgree()
		must(t, err)
		return pending
	}
	if agree() {
		t.Fatalf("agreed on a notice before any")
	}
	PreemptionNotify()
	if !agree() {
		t.Fatalf("no notice agreed on after PreemptionNotify")
	}
	if !PreemptionPending() {
		t.Fatalf("agreeing consumed the notice")
	}
	if !agree() {
		t.Fatalf("no notice agreed on the second time")
	}
	PreemptionClear()
	if agree() {
		t.Fatalf("agreed on a cleared notice")
	}
	must(t, e.Close())
	_, err = e.PreemptionAgree()
	wantError(t, err, CodeFailedPrecondition, "checkpoint engine is closed")
}

// RestoredMetadata (ABI 2.3) of an engine without a comm: rank 0's, after
// a restore only, until the next restore.
func TestRestoredMetadataIsRank0sAfterARestoreOnly(t *testing.T) {
	e, err := NewCkptEngine(newTestStore(t), nil)
	must(t, err)
	defer e.Close()
	must(t, e.Register("x", newTestCTensor(t, DTypeInt32, 4), 0))
	_, err = e.RestoredMetadata(0)
	wantError(t, err, CodeFailedPrecondition)
	_, err = e.Save(CkptFull, 1, []byte("cursor=17"), SaveWait)
	must(t, err)
	_, err = e.RestoredMetadata(0)
	wantError(t, err, CodeFailedPrecondition) // a save is not a restore

	info, meta, err := e.Restore("", CkptAllKinds)
	must(t, err)
	if info.WorldSize != 1 || string(meta) != "cursor=17" {
		t.Fatalf("restored world size %d, metadata %q; want 1, \"cursor=17\"", info.WorldSize, meta)
	}
	for i := 0; i < 2; i++ { // it stays until the next restore
		got, err := e.RestoredMetadata(0)
		must(t, err)
		if string(got) != "cursor=17" {
			t.Fatalf("RestoredMetadata(0) = %q, want \"cursor=17\"", got)
		}
	}
	_, err = e.RestoredMetadata(1) // one rank wrote it
	wantError(t, err, CodeOutOfRange)

	// The next restore replaces it; empty metadata comes back empty.
	_, err = e.Save(CkptFull, 2, nil, SaveWait)
	must(t, err)
	_, _, err = e.Restore("", CkptAllKinds)
	must(t, err)
	got, err := e.RestoredMetadata(0)
	must(t, err)
	if len(got) != 0 {
		t.Fatalf("RestoredMetadata(0) = %q after restoring empty metadata", got)
	}
	must(t, e.Close())
	_, err = e.RestoredMetadata(0)
	wantError(t, err, CodeFailedPrecondition, "checkpoint engine is closed")
}

func TestRestoredMetadataLargeGrowsItsBuffer(t *testing.T) {
	e, err := NewCkptEngine(newTestStore(t), nil)
	must(t, err)
	defer e.Close()
	must(t, e.Register("x", newTestCTensor(t, DTypeUint8, 16), 0))
	meta := bytes.Repeat([]byte("0123456789"), 10*1024) // 100 KiB: past the first buffer
	_, err = e.Save(CkptFull, 1, meta, SaveWait)
	must(t, err)
	_, _, err = e.Restore("", CkptAllKinds)
	must(t, err)
	got, err := e.RestoredMetadata(0)
	must(t, err)
	if !bytes.Equal(got, meta) {
		t.Fatalf("metadata of %d bytes came back as %d bytes", len(meta), len(got))
	}
}

func TestCheckpointErrorsCarryCodeAndMessage(t *testing.T) {
	_, err := NewStore(newTestContext(t), "fs", nil)
	wantError(t, err, CodeInvalidArgument, "store 'fs'", "root")

	e, err := NewCkptEngine(newTestStore(t), nil)
	must(t, err)
	_, _, err = e.Restore("", CkptAllKinds)
	wantError(t, err, CodeNotFound)
	ct := newTestCTensor(t, DTypeFloat32, 4)
	wantError(t, e.Register("bad name!", ct, 0), CodeInvalidArgument, "bad name!")
	must(t, e.Register("w", ct, 0))
	wantError(t, e.Register("w", ct, 0), CodeAlreadyExists, "w")
	// Registered memory cannot be freed under the engine.
	wantError(t, ct.Close(), CodeFailedPrecondition, "registered")
	wantError(t, e.Unregister("nope"), CodeNotFound, "nope")
	must(t, e.Close())
	must(t, e.Close())
	must(t, ct.Close())
	_, err = e.Save(CkptFull, 1, nil, 0)
	wantError(t, err, CodeFailedPrecondition, "checkpoint engine is closed")
}
