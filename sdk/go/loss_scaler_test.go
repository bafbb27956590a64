package frugal

import "testing"

// newTestScaler: init 1024, x2 after 3 clean steps, x0.5 on overflow,
// within [1, 4096].
func newTestScaler(t *testing.T) *LossScaler {
	t.Helper()
	opts := newTestOptions(t)
	must(t, opts.SetDouble("init_scale", 1024))
	must(t, opts.SetInt("growth_interval", 3))
	must(t, opts.SetDouble("growth_factor", 2))
	must(t, opts.SetDouble("backoff_factor", 0.5))
	must(t, opts.SetDouble("min_scale", 1))
	must(t, opts.SetDouble("max_scale", 4096))
	s, err := NewLossScaler(opts)
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func wantScalerStatus(t *testing.T, s *LossScaler, want LossScalerStatus) {
	t.Helper()
	got, err := s.Status()
	must(t, err)
	if got != want {
		t.Fatalf("state %+v, want %+v", got, want)
	}
	scale, err := s.Scale()
	must(t, err)
	if scale != want.Scale {
		t.Fatalf("Scale() = %v, state says %v", scale, want.Scale)
	}
}

func TestLossScalerGrowsAfterTheIntervalAndBacksOffOnOverflow(t *testing.T) {
	s := newTestScaler(t)
	wantScalerStatus(t, s, LossScalerStatus{Scale: 1024})
	for i := 1; i <= 2; i++ {
		apply, err := s.Update(false)
		must(t, err)
		if !apply {
			t.Fatalf("clean step %d skipped", i)
		}
		wantScalerStatus(t, s, LossScalerStatus{Scale: 1024, CleanSteps: int64(i)})
	}
	apply, err := s.Update(false) // the third clean step grows the scale
	must(t, err)
	if !apply {
		t.Fatalf("clean step 3 skipped")
	}
	wantScalerStatus(t, s, LossScalerStatus{Scale: 2048})

	apply, err = s.Update(true)
	must(t, err)
	if apply {
		t.Fatalf("an overflow step must be skipped")
	}
	wantScalerStatus(t, s, LossScalerStatus{Scale: 1024, SkippedSteps: 1})

	// The floor: 1024 halves ten times to 1 and stays there.
	for i := 0; i < 12; i++ {
		_, err := s.Update(true)
		must(t, err)
	}
	wantScalerStatus(t, s, LossScalerStatus{Scale: 1, SkippedSteps: 13})
	// The ceiling: 1 doubles every 3 clean steps up to 4096 and stays.
	for i := 0; i < 3*14; i++ {
		_, err := s.Update(false)
		must(t, err)
	}
	wantScalerStatus(t, s, LossScalerStatus{Scale: 4096, SkippedSteps: 13})
}

func TestLossScalerStatusRoundTrips(t *testing.T) {
	a := newTestScaler(t)
	for _, inf := range []bool{false, true, false, false, false, false} {
		_, err := a.Update(inf)
		must(t, err)
	}
	st, err := a.Status()
	must(t, err)
	if st != (LossScalerStatus{Scale: 1024, CleanSteps: 1, SkippedSteps: 1}) {
		t.Fatalf("state after the sequence: %+v", st)
	}
	b := newTestScaler(t)
	must(t, b.SetStatus(st))
	wantScalerStatus(t, b, st)
	for i := 0; i < 2; i++ { // both grow on the same step
		_, err := a.Update(false)
		must(t, err)
		_, err = b.Update(false)
		must(t, err)
	}
	wantScalerStatus(t, b, LossScalerStatus{Scale: 2048, SkippedSteps: 1})
	wantScalerStatus(t, a, LossScalerStatus{Scale: 2048, SkippedSteps: 1})

	// Outside the configuration: refused, state unchanged.
	wantError(t, b.SetStatus(LossScalerStatus{Scale: 1 << 20}), CodeInvalidArgument)
	wantScalerStatus(t, b, LossScalerStatus{Scale: 2048, SkippedSteps: 1})
}

func TestLossScalerBadOptionsAndClose(t *testing.T) {
	opts := newTestOptions(t)
	must(t, opts.SetDouble("growth_factor", 0.5))
	_, err := NewLossScaler(opts)
	wantError(t, err, CodeInvalidArgument, "growth_factor")

	unknown := newTestOptions(t)
	must(t, unknown.SetInt("bogus_knob", 1))
	_, err = NewLossScaler(unknown)
	wantError(t, err, CodeInvalidArgument, "bogus_knob")

	s, err := NewLossScaler(nil) // defaults
	must(t, err)
	scale, err := s.Scale()
	must(t, err)
	if scale != 65536 {
		t.Errorf("default scale %v, want 65536", scale)
	}
	must(t, s.Close())
	must(t, s.Close())
	_, err = s.Update(false)
	wantError(t, err, CodeFailedPrecondition, "loss scaler is closed")
}
