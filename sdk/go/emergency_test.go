package frugal

import (
	"bytes"
	"testing"
	"time"
)

func TestEmergencySaveThenRestoreReproducesBytes(t *testing.T) {
	e, err := NewCkptEngine(newTestStore(t), nil)
	must(t, err)
	defer e.Close()
	weights := newTestCTensor(t, DTypeFloat32, 32, 8)
	copy(weights.Tensor().Float32s(), uniformFloats(23, 256, 4))
	want := append([]byte(nil), weights.Tensor().Bytes()...)
	must(t, e.Register("weights", weights, 0))

	r, err := e.EmergencySave(42, []byte("preempted at 42"), 30*time.Second)
	must(t, err)
	if r.Name == "" || !r.Committed || r.Elapsed <= 0 || r.Elapsed > 30*time.Second {
		t.Fatalf("emergency save %+v", r)
	}
	for i := range weights.Tensor().Float32s() {
		weights.Tensor().Float32s()[i] = -1
	}
	info, meta, err := e.Restore(r.Name, CkptAllKinds)
	must(t, err)
	if !bytes.Equal(weights.Tensor().Bytes(), want) {
		t.Fatalf("restored weights differ from the saved ones")
	}
	if string(meta) != "preempted at 42" || info.Name != r.Name || !info.Emergency || info.Kind != CkptHeartbeat ||
		info.Step != 42 || info.Status != CkptValid {
		t.Fatalf("restored %+v, metadata %q", info, meta)
	}
	// The newest heartbeat is the emergency one.
	latest, err := e.Latest(CkptHeartbeat)
	must(t, err)
	if latest.Name != r.Name || !latest.Emergency {
		t.Fatalf("latest %+v", latest)
	}

	_, err = e.EmergencySave(43, nil, 0)
	wantError(t, err, CodeInvalidArgument, "deadline_seconds")
	must(t, e.Close())
	_, err = e.EmergencySave(44, nil, time.Second)
	wantError(t, err, CodeFailedPrecondition, "checkpoint engine is closed")
}
