package frugal

import (
	"reflect"
	"sync/atomic"
	"testing"
)

// wrapCounted wraps a CTensor's C memory (2 x 3 float32) with a release
// function counting its calls.
func wrapCounted(t *testing.T) (*CTensor, *ManagedTensor, *int32) {
	t.Helper()
	ct := newTestCTensor(t, DTypeFloat32, 2, 3)
	copy(ct.Tensor().Float32s(), []float32{1, 2, 3, 4, 5, 6})
	released := new(int32)
	m, err := WrapCMemory(ct.Data(), DTypeFloat32, []int64{2, 3}, func() { atomic.AddInt32(released, 1) })
	must(t, err)
	t.Cleanup(func() { m.Close() })
	return ct, m, released
}

func TestDLPackVersionedRoundTripSharesMemoryAndReleasesOnce(t *testing.T) {
	ct, m, released := wrapCounted(t)
	if m.Data() != ct.Data() || m.DType() != DTypeFloat32 || !reflect.DeepEqual(m.Shape(), []int64{2, 3}) ||
		!reflect.DeepEqual(m.Strides(), []int64{3, 1}) || m.IsReadOnly() {
		t.Fatalf("wrapped: data %p (want %p) dtype %v shape %v strides %v", m.Data(), ct.Data(), m.DType(), m.Shape(), m.Strides())
	}
	if dev, id := m.Device(); dev != DeviceCPU || id != 0 {
		t.Fatalf("device %d:%d", dev, id)
	}
	capsule, err := m.ToDLPackVersioned()
	must(t, err)
	if capsule == nil {
		t.Fatalf("nil capsule")
	}
	// m is consumed: it behaves as closed and its Close does not release.
	_, err = m.ToDLPackVersioned()
	wantError(t, err, CodeFailedPrecondition, "managed tensor is closed")
	must(t, m.Close())
	if n := atomic.LoadInt32(released); n != 0 {
		t.Fatalf("released %d times while the capsule lives", n)
	}

	back, err := FromDLPackVersioned(capsule)
	must(t, err)
	if back.Data() != ct.Data() {
		t.Fatalf("imported data %p, exported %p: not the same memory", back.Data(), ct.Data())
	}
	view, err := back.Tensor()
	must(t, err)
	if !reflect.DeepEqual(view.Float32s(), []float32{1, 2, 3, 4, 5, 6}) || !reflect.DeepEqual(view.Shape(), []int64{2, 3}) {
		t.Fatalf("imported values %v shape %v", view.Float32s(), view.Shape())
	}
	view.Float32s()[0] = 42 // one memory: the write shows through the CTensor
	if ct.Tensor().Float32s()[0] != 42 {
		t.Fatalf("a write through the import did not reach the original memory")
	}
	if n := atomic.LoadInt32(released); n != 0 {
		t.Fatalf("released %d times before the import is closed", n)
	}
	must(t, back.Close())
	must(t, back.Close())
	if n := atomic.LoadInt32(released); n != 1 {
		t.Fatalf("released %d times after close, want exactly 1", n)
	}
}

func TestDLPackCapsuleDeleterReleasesOnce(t *testing.T) {
	_, m, released := wrapCounted(t)
	capsule, err := m.ToDLPack()
	must(t, err)
	if n := atomic.LoadInt32(released); n != 0 {
		t.Fatalf("released on export")
	}
	DeleteDLPack(capsule) // what a consumer does when it is done
	if n := atomic.LoadInt32(released); n != 1 {
		t.Fatalf("released %d times by the deleter, want 1", n)
	}

	_, m2, released2 := wrapCounted(t)
	capsule, err = m2.ToDLPackVersioned()
	must(t, err)
	DeleteDLPackVersioned(capsule)
	if n := atomic.LoadInt32(released2); n != 1 {
		t.Fatalf("versioned deleter released %d times, want 1", n)
	}
}

func TestLegacyDLPackRoundTripOfFrugalMemory(t *testing.T) {
	m, err := NewManagedTensor(DTypeInt64, 4)
	must(t, err)
	defer m.Close()
	view, err := m.Tensor()
	must(t, err)
	copy(view.Int64s(), []int64{5, 6, 7, 8})
	data := m.Data()
	capsule, err := m.ToDLPack()
	must(t, err)
	back, err := FromDLPack(capsule)
	must(t, err)
	defer back.Close()
	got, err := back.Tensor()
	must(t, err)
	if back.Data() != data || !reflect.DeepEqual(got.Int64s(), []int64{5, 6, 7, 8}) || back.IsReadOnly() {
		t.Fatalf("legacy import: data %p (want %p) values %v", back.Data(), data, got.Int64s())
	}
}

func TestCTensorIntoManagedMovesTheMemory(t *testing.T) {
	ct, err := NewCTensor(DTypeFloat32, 3)
	must(t, err)
	copy(ct.Tensor().Float32s(), []float32{1.5, 2.5, 3.5})
	data := ct.Data()
	m, err := ct.IntoManaged()
	must(t, err)
	defer m.Close()
	if ct.Data() != nil || ct.Tensor().given() {
		t.Fatalf("the CTensor still holds the memory")
	}
	must(t, ct.Close()) // nothing left to free
	view, err := m.Tensor()
	must(t, err)
	if m.Data() != data || !reflect.DeepEqual(view.Float32s(), []float32{1.5, 2.5, 3.5}) {
		t.Fatalf("moved: data %p (want %p) values %v", m.Data(), data, view.Float32s())
	}
	_, err = ct.IntoManaged()
	wantError(t, err, CodeFailedPrecondition, "tensor is closed")
}

func TestManagedTensorErrors(t *testing.T) {
	_, err := NewManagedTensor(DType(99), 2)
	wantError(t, err, CodeInvalidArgument)
	released := int32(0)
	_, err = WrapCMemory(nil, DType(99), []int64{2}, func() { atomic.AddInt32(&released, 1) })
	wantError(t, err, CodeInvalidArgument)
	if released != 0 {
		t.Fatalf("a failed wrap ran the release function")
	}
	_, err = FromDLPackVersioned(nil)
	wantError(t, err, CodeInvalidArgument)

	// A registered CTensor cannot move out from under its engine.
	e, err := NewCkptEngine(newTestStore(t), nil)
	must(t, err)
	defer e.Close()
	ct := newTestCTensor(t, DTypeFloat32, 2)
	must(t, e.Register("x", ct, 0))
	_, err = ct.IntoManaged()
	wantError(t, err, CodeFailedPrecondition, "registered")
}
