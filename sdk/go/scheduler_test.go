package frugal

import (
	"math"
	"testing"
)

// newTestScheduler makes a scheduler with the cosine schedule of
// cosineOptions and checkpoint_cadence (heartbeat every 60 s).
func newTestScheduler(t *testing.T) *Scheduler {
	t.Helper()
	cadence := newTestOptions(t)
	must(t, cadence.SetDouble("heartbeat_interval_s", 60))
	s, err := NewScheduler(newTestContext(t), SchedulerConfig{
		Schedule:        "cosine",
		ScheduleOptions: cosineOptions(t),
		Policies:        []PolicyConfig{{Name: "checkpoint_cadence", Options: cadence}},
	})
	if err != nil {
		t.Fatalf("NewScheduler: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// record i: clock 30*i s, step 10*i, 2 spot nodes at $1.10 per node-hour.
func record(i int) Telemetry {
	return Telemetry{Nodes: 2, Step: int64(10 * i), Tokens: int64(10 * i * 2048), Loss: 4 - 0.05*float64(i),
		WallTimeS: float64(30 * i), PricePerNodeHour: 1.10, Resource: ResourceSpot}
}

func TestSchedulerLRFollowsScheduleAndLedgerConserves(t *testing.T) {
	s := newTestScheduler(t)
	heartbeats := 0
	for i := 1; i <= 10; i++ {
		d, err := s.Step(record(i))
		if err != nil {
			t.Fatalf("Step(%d): %v", i, err)
		}
		if want := cosineClosedForm(int64(10 * i)); math.Abs(d.LR-want) > 1e-12 {
			t.Errorf("record %d: lr %.17g, want %.17g", i, d.LR, want)
		}
		if d.Checkpoint == CkptHeartbeat {
			heartbeats++
			if d.Reason == "" {
				t.Errorf("record %d: heartbeat without a reason", i)
			}
		}
		if d.TargetNodes != 2 || d.Resource != ResourceSpot || d.Stop != StopNone {
			t.Errorf("record %d: decision %+v", i, d)
		}
	}
	if heartbeats == 0 {
		t.Errorf("no heartbeat in 300 s with a 60 s interval")
	}
	l, err := s.Ledger()
	must(t, err)
	want := 300.0 * 2 * 1.10 / 3600
	if math.Abs(l.Dollars-want) > 1e-9 || math.Abs(l.SpotDollars-want) > 1e-9 || l.ReservedDollars != 0 {
		t.Errorf("dollars %.12f spot %.12f reserved %.12f, want %.12f all spot", l.Dollars, l.SpotDollars, l.ReservedDollars, want)
	}
	if sum := l.ProductiveDollars + l.StallDollars + l.LostDollars; math.Abs(sum-l.Dollars) > 1e-9 {
		t.Errorf("productive+stall+lost %.12f != dollars %.12f", sum, l.Dollars)
	}
	if l.WallS != 300 || l.LossFirst != 3.95 {
		t.Errorf("wall %v s, first loss %v; want 300, 3.95", l.WallS, l.LossFirst)
	}
}

func TestSchedulerStateRestoresLedgerAndDecisions(t *testing.T) {
	a := newTestScheduler(t)
	b := newTestScheduler(t)
	for i := 1; i <= 5; i++ {
		_, err := a.Step(record(i))
		must(t, err)
	}
	state, err := a.ExportState()
	must(t, err)
	must(t, b.ImportState(state))
	for i := 6; i <= 9; i++ {
		da, err := a.Step(record(i))
		must(t, err)
		db, err := b.Step(record(i))
		must(t, err)
		if da != db {
			t.Fatalf("record %d: restored decides %+v, original %+v", i, db, da)
		}
	}
	la, _ := a.Ledger()
	lb, _ := b.Ledger()
	if la != lb {
		t.Errorf("ledgers differ after restore:\n%+v\n%+v", la, lb)
	}
	wantError(t, b.ImportState(state[:8]), CodeDataCorrupted)
}

func TestSchedulerErrorsCarryCodeAndMessage(t *testing.T) {
	s := newTestScheduler(t)
	bad := record(1)
	bad.Nodes = 0
	_, err := s.Step(bad)
	wantError(t, err, CodeInvalidArgument, "nodes")
	// The refused record changed nothing: the clock may still start at 30 s.
	_, err = s.Step(record(1))
	must(t, err)

	ctx := newTestContext(t)
	_, err = NewScheduler(ctx, SchedulerConfig{Policies: []PolicyConfig{{Name: "no_such_policy"}}})
	wantError(t, err, CodeNotFound, "no_such_policy")
	opts := newTestOptions(t)
	must(t, opts.SetDouble("heartbeat_interval_s", -5))
	_, err = NewScheduler(ctx, SchedulerConfig{Policies: []PolicyConfig{{Name: "checkpoint_cadence", Options: opts}}})
	// A value outside the declared range: refused by the core before create.
	wantError(t, err, CodeOutOfRange, "policy 'checkpoint_cadence': option 'heartbeat_interval_s' = -5 is out of range")
	must(t, s.Close())
	must(t, s.Close())
	_, err = s.Ledger()
	wantError(t, err, CodeFailedPrecondition, "scheduler is closed")
}
