package frugal

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

// cursor is Go host state: where the data loader is, as 16 bytes.
type cursor struct{ epoch, offset uint64 }

func (c *cursor) export() ([]byte, error) {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, c.epoch), c.offset), nil
}

func (c *cursor) restore(data []byte) error {
	if len(data) != 16 {
		return &Error{Code: CodeDataCorrupted, Message: "cursor: not 16 bytes"}
	}
	c.epoch, c.offset = binary.LittleEndian.Uint64(data), binary.LittleEndian.Uint64(data[8:])
	return nil
}

func newTestEngine(t *testing.T, store *Store) *CkptEngine {
	t.Helper()
	engine, err := NewCkptEngine(store, nil)
	must(t, err)
	t.Cleanup(func() { engine.Close() })
	return engine
}

func TestCkptStatesComeBackExactly(t *testing.T) {
	store := newTestStore(t)
	scheduler, scaler, reference := newTestScheduler(t), newTestScaler(t), newTestScheduler(t)
	engine := newTestEngine(t, store)
	pos := &cursor{}
	must(t, engine.RegisterScheduler("scheduler", scheduler, 0))
	must(t, engine.RegisterLossScaler("scaler", scaler, 0))
	must(t, engine.RegisterState("cursor", pos.export, pos.restore, 0))
	for i := 1; i <= 7; i++ {
		_, err := scheduler.Step(record(i))
		must(t, err)
		_, err = scaler.Update(i%4 == 2)
		must(t, err)
	}
	*pos = cursor{epoch: 2, offset: 4096}
	saved, err := scaler.Status()
	must(t, err)
	_, err = engine.Save(CkptFull, 7, nil, SaveWait)
	must(t, err)
	// The reference is the scheduler as the save left it (the save counted as a checkpoint).
	blob, err := scheduler.ExportState()
	must(t, err)
	must(t, reference.ImportState(blob))
	for i := 8; i <= 15; i++ {
		_, err := scheduler.Step(record(i))
		must(t, err)
		_, err = scaler.Update(true)
		must(t, err)
	}
	*pos = cursor{epoch: 9, offset: 1}
	info, _, err := engine.Restore("", CkptAllKinds)
	must(t, err)
	if len(info.NotRestored) != 0 {
		t.Fatalf("not restored: %v", info.NotRestored)
	}
	if info.TensorCount != 0 || info.StateCount != 3 { // no tensor; the scheduler, the scaler, the cursor
		t.Fatalf("restored %d tensors and %d states; want 0 and 3", info.TensorCount, info.StateCount)
	}
	wantScalerStatus(t, scaler, saved)
	if *pos != (cursor{epoch: 2, offset: 4096}) {
		t.Fatalf("cursor %+v after restore", *pos)
	}
	for i := 8; i <= 40; i++ {
		got, err := scheduler.Step(record(i))
		must(t, err)
		want, err := reference.Step(record(i))
		must(t, err)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d: decision %+v, reference %+v", i, got, want)
		}
	}
	got, err := scheduler.Ledger()
	must(t, err)
	want, err := reference.Ledger()
	must(t, err)
	if got != want {
		t.Fatalf("ledger %+v, reference %+v", got, want)
	}
}

func TestCkptStateMissingFromTheCheckpointIsReported(t *testing.T) {
	store := newTestStore(t)
	first := newTestEngine(t, store)
	must(t, first.RegisterLossScaler("scaler", newTestScaler(t), 0))
	_, err := first.Save(CkptFull, 1, nil, SaveWait)
	must(t, err)
	must(t, first.Close())

	engine := newTestEngine(t, store)
	defer engine.Close() // before the scalers' cleanups, which it lets close
	late := newTestScaler(t)
	must(t, engine.RegisterLossScaler("scaler", newTestScaler(t), 0))
	must(t, engine.RegisterLossScaler("scaler/late", late, 0))
	_, err = late.Update(true)
	must(t, err)
	kept, err := late.Status()
	must(t, err)
	info, _, err := engine.Restore("", CkptAllKinds)
	must(t, err)
	if !reflect.DeepEqual(info.NotRestored, []string{"scaler/late"}) {
		t.Fatalf("not restored: %v", info.NotRestored)
	}
	wantScalerStatus(t, late, kept)
}

func TestCkptStateErrorsPanicsAndBorrows(t *testing.T) {
	engine := newTestEngine(t, newTestStore(t))
	defer engine.Close() // before the scalers' cleanups, which it lets close
	must(t, engine.RegisterState("faulty", func() ([]byte, error) { panic("the cursor is gone") },
		func([]byte) error { return nil }, 0))
	_, err := engine.Save(CkptFull, 1, nil, SaveWait)
	wantError(t, err, CodeInternal, "state 'faulty'", "panicked: the cursor is gone")
	list, err := engine.List(0)
	must(t, err)
	if len(list) != 0 {
		t.Fatalf("the failed save persisted %v", list)
	}
	must(t, engine.Unregister("faulty"))
	must(t, engine.RegisterState("faulty", func() ([]byte, error) { return []byte{1, 2, 3}, nil },
		func([]byte) error { return &Error{Code: CodeDataCorrupted, Message: "cursor blob is garbage"} }, 0))
	_, err = engine.Save(CkptFull, 2, nil, SaveWait)
	must(t, err)
	_, _, err = engine.Restore("", CkptAllKinds)
	wantError(t, err, CodeDataCorrupted, "state 'faulty'", "cursor blob is garbage")

	// A registered object cannot be closed; once unregistered it can.
	scaler := newTestScaler(t)
	must(t, engine.RegisterLossScaler("scaler", scaler, 0))
	wantError(t, engine.RegisterRouter("scaler", nil, 0), CodeInvalidArgument, "router for state 'scaler' is closed or nil")
	wantError(t, engine.RegisterLossScaler("faulty", newTestScaler(t), 0), CodeAlreadyExists)
	wantError(t, scaler.Close(), CodeFailedPrecondition, "registered with 1 checkpoint engine")
	must(t, engine.Unregister("scaler"))
	must(t, scaler.Close())
	var fe *Error
	if err := engine.Unregister("scaler"); !errors.As(err, &fe) || fe.Code != CodeNotFound {
		t.Fatalf("second Unregister: %v", err)
	}
	if CkptStateMaxSize != 256<<20 {
		t.Fatalf("CkptStateMaxSize = %d", CkptStateMaxSize)
	}
}

func TestLossScalerBlobRoundTripsAndIsChecked(t *testing.T) {
	first, second := newTestScaler(t), newTestScaler(t)
	for _, inf := range []bool{false, true, false, false} {
		_, err := first.Update(inf)
		must(t, err)
	}
	blob, err := first.ExportState()
	must(t, err)
	if string(blob[:4]) != "FRLS" {
		t.Fatalf("blob starts %q", blob[:4])
	}
	must(t, second.ImportState(blob))
	want, err := first.Status()
	must(t, err)
	wantScalerStatus(t, second, want)
	wantError(t, second.ImportState(blob[:len(blob)-1]), CodeDataCorrupted)
	wantScalerStatus(t, second, want)
}
