package frugal

import (
	"math"
	"testing"
)

// cosineOptions configures the "cosine" schedule: linear warm-up over 10
// steps to lr 0.1, then cosine decay to 0.01 at step 110.
func cosineOptions(t *testing.T) *Options {
	opts := newTestOptions(t)
	must(t, opts.SetDouble("lr", 0.1))
	must(t, opts.SetDouble("min_lr", 0.01))
	must(t, opts.SetInt("warmup_steps", 10))
	must(t, opts.SetInt("total_steps", 110))
	return opts
}

// cosineClosedForm is the documented schedule, computed independently.
func cosineClosedForm(step int64) float64 {
	const lr, minLR, warmup, total = 0.1, 0.01, 10, 110
	switch {
	case step < warmup:
		return lr * float64(step+1) / warmup
	case step >= total:
		return minLR
	}
	progress := float64(step-warmup) / float64(total-warmup)
	return minLR + (lr-minLR)*0.5*(1+math.Cos(math.Pi*progress))
}

func TestCosineScheduleMatchesClosedForm(t *testing.T) {
	ctx := newTestContext(t)
	s, err := NewSchedule(ctx, "cosine", cosineOptions(t))
	if err != nil {
		t.Fatalf("NewSchedule: %v", err)
	}
	defer s.Close()
	// Anchors known by hand, then the closed form at more steps.
	anchors := map[int64]float64{0: 0.01, 9: 0.1, 10: 0.1, 60: 0.055, 110: 0.01, 500: 0.01}
	for step, want := range anchors {
		got, err := s.LR(step)
		if err != nil {
			t.Fatalf("LR(%d): %v", step, err)
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("LR(%d) = %.17g, want %.17g", step, got, want)
		}
	}
	for _, step := range []int64{1, 5, 11, 35, 85, 109} {
		got, err := s.LR(step)
		if err != nil {
			t.Fatalf("LR(%d): %v", step, err)
		}
		if want := cosineClosedForm(step); math.Abs(got-want) > 1e-12 {
			t.Errorf("LR(%d) = %.17g, want %.17g", step, got, want)
		}
	}
}

func TestScheduleOutlivesContext(t *testing.T) {
	ctx := newTestContext(t)
	s, err := NewSchedule(ctx, "cosine", cosineOptions(t))
	must(t, err)
	defer s.Close()
	ctx.Close()
	got, err := s.LR(60)
	if err != nil || math.Abs(got-0.055) > 1e-12 {
		t.Fatalf("LR(60) after closing the context = %v, %v; want 0.055", got, err)
	}
}

func TestNegativeStepIsOutOfRange(t *testing.T) {
	ctx := newTestContext(t)
	s, err := NewSchedule(ctx, "cosine", cosineOptions(t))
	must(t, err)
	defer s.Close()
	_, err = s.LR(-1)
	wantError(t, err, CodeOutOfRange, "-1")
}

func TestUnknownScheduleIsNotFound(t *testing.T) {
	ctx := newTestContext(t)
	_, err := NewSchedule(ctx, "no_such_schedule", nil)
	wantError(t, err, CodeNotFound, "no_such_schedule")
}

func TestBadScheduleOptionIsInvalidArgument(t *testing.T) {
	ctx := newTestContext(t)
	opts := cosineOptions(t)
	must(t, opts.SetDouble("lr", -1))
	_, err := NewSchedule(ctx, "cosine", opts)
	wantError(t, err, CodeInvalidArgument, "'lr'")

	unknown := cosineOptions(t)
	must(t, unknown.SetInt("warmup_stepz", 3))
	_, err = NewSchedule(ctx, "cosine", unknown)
	wantError(t, err, CodeInvalidArgument, "warmup_stepz")
}

func TestScheduleCloseTwice(t *testing.T) {
	ctx := newTestContext(t)
	s, err := NewSchedule(ctx, "cosine", cosineOptions(t))
	must(t, err)
	must(t, s.Close())
	must(t, s.Close())
	_, err = s.LR(0)
	wantError(t, err, CodeFailedPrecondition, "schedule is closed")
}
