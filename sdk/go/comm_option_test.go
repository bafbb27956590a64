package frugal

import (
	"os"
	"path/filepath"
	"testing"
)

// A comm handed to strategies as an option: the options, and what is
// created with them, hold it after the Go handle is closed.

func TestACommOptionOutlivesItsHandle(t *testing.T) {
	c := newLocalComm(t)
	opts := newTestOptions(t)
	must(t, opts.SetComm("group", c))
	if typ := opts.Type("group"); typ != OptionComm || typ.String() != "comm" {
		t.Fatalf("Type(group) = %v (%d), want comm", typ, int32(typ))
	}
	must(t, c.Close())
	if typ := opts.Type("group"); typ != OptionComm {
		t.Fatalf("after the comm's Close, Type(group) = %v, want comm", typ)
	}
	_, err := opts.GetInt("group", 0)
	wantError(t, err, CodeInvalidArgument, "option 'group' has type comm; expected int")
	wantError(t, opts.SetComm("bad name!", newLocalComm(t)), CodeInvalidArgument, "bad name!")
	wantError(t, opts.SetComm("x", nil), CodeFailedPrecondition, "comm is closed")
}

// The test plugin comm_user's schedule "rank_sum" all-reduces step + rank
// over the comm given as option "comm", through the host table: over a
// group of one, LR(step) is step.
func TestAStrategyRunsCollectivesOnTheCommItWasHanded(t *testing.T) {
	ctx := newTestContext(t)
	path := builtTestPlugin(t, ctx, "comm_user")
	if _, err := os.Stat(path); err != nil {
		if _, inTree := os.Stat(filepath.Join("..", "..", "tests", "core", "comm", "comm_user_plugin.cpp")); inTree == nil {
			t.Fatalf("%s is missing: build the target comm_user", path)
		}
		t.Skipf("no test plugin %s (the module is tested outside the source tree)", path)
	}
	must(t, ctx.LoadPlugin(path))
	c, err := NewComm(ctx, "local", nil)
	must(t, err)
	opts := newTestOptions(t)
	must(t, opts.SetComm("comm", c))
	s, err := NewSchedule(ctx, "rank_sum", opts)
	must(t, err)
	defer s.Close()
	// The instance holds the comm itself now.
	must(t, c.Close())
	must(t, opts.Close())
	lr, err := s.LR(41)
	must(t, err)
	if lr != 41 {
		t.Fatalf("rank_sum LR(41) over a group of one = %v, want 41", lr)
	}
	_, err = NewSchedule(ctx, "rank_sum", nil)
	wantError(t, err, CodeInvalidArgument, "comm")
	declared, err := ctx.StrategyOptions(KindSchedule, "rank_sum")
	must(t, err)
	if len(declared) != 1 || declared[0].Name != "comm" || declared[0].Type != OptionComm || !declared[0].Required {
		t.Errorf("rank_sum declares %+v, want one required comm option", declared)
	}
}
