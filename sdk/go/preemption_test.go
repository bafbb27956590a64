package frugal

import (
	"syscall"
	"testing"
	"time"
)

func TestPreemptionNotifyPendingClear(t *testing.T) {
	PreemptionClear()
	defer PreemptionClear()
	if PreemptionPending() {
		t.Fatalf("pending after clear")
	}
	PreemptionNotify()
	PreemptionNotify() // idempotent
	if !PreemptionPending() {
		t.Fatalf("not pending after notify")
	}
	PreemptionClear()
	if PreemptionPending() {
		t.Fatalf("still pending after clear")
	}
}

func TestWatchPreemptionSignalsRecordsASignal(t *testing.T) {
	PreemptionClear()
	defer PreemptionClear()
	// SIGUSR2 rather than SIGTERM: should the watch fail, the test binary
	// is not the one that dies quietly.
	stop := WatchPreemptionSignals(syscall.SIGUSR2)
	defer stop()
	must(t, syscall.Kill(syscall.Getpid(), syscall.SIGUSR2))
	deadline := time.Now().Add(5 * time.Second)
	for !PreemptionPending() {
		if time.Now().After(deadline) {
			t.Fatalf("no notice recorded 5s after the signal")
		}
		time.Sleep(time.Millisecond)
	}
	stop()
	stop() // idempotent
	PreemptionClear()
	if PreemptionPending() {
		t.Fatalf("pending after clear")
	}
}
