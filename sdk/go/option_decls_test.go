package frugal

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// declared is an OptionDecl as schedule_lr makes it, Doc left empty
// (checked apart); an empty def means no default.
func declared(name string, typ OptionType, def string) OptionDecl {
	return OptionDecl{Name: name, Type: typ, Default: def, HasDefault: def != ""}
}

func requiredInt(name string, min float64) OptionDecl {
	d := declared(name, OptionInt, "")
	d.Required, d.Min, d.HasMin = true, min, true
	return d
}

func withMin(d OptionDecl, min float64) OptionDecl {
	d.Min, d.HasMin = min, true
	return d
}

func withMax(d OptionDecl, max float64) OptionDecl {
	d.Max, d.HasMax = max, true
	return d
}

var (
	declLr     = declared("lr", OptionDouble, "0.001")
	declMinLr  = withMin(declared("min_lr", OptionDouble, "0"), 0)
	declWarmup = withMin(declared("warmup_steps", OptionInt, "0"), 0)
)

// wantDeclares fails unless options equal want but for their docs, which
// must not be empty.
func wantDeclares(t *testing.T, options []OptionDecl, want []OptionDecl) {
	t.Helper()
	undocumented := make([]OptionDecl, len(options))
	for i, o := range options {
		if strings.TrimSpace(o.Doc) == "" {
			t.Errorf("option %q has no doc", o.Name)
		}
		o.Doc = ""
		undocumented[i] = o
	}
	if !reflect.DeepEqual(undocumented, want) {
		t.Fatalf("declared options\n got %+v\nwant %+v", undocumented, want)
	}
}

func TestCosineDeclaresItsFourOptions(t *testing.T) {
	options, err := newTestContext(t).StrategyOptions(KindSchedule, "cosine")
	must(t, err)
	wantDeclares(t, options, []OptionDecl{declLr, declMinLr, declWarmup, requiredInt("total_steps", 1)})
}

func TestSgdrDeclaresBoundsAndChoices(t *testing.T) {
	options, err := newTestContext(t).StrategyOptions(KindSchedule, "sgdr")
	must(t, err)
	shape := declared("shape", OptionString, "cosine")
	shape.Choices = []string{"cosine", "linear"}
	wantDeclares(t, options, []OptionDecl{
		declLr, declMinLr, declWarmup,
		requiredInt("cycle_steps", 1),
		withMax(withMin(declared("cycle_mult", OptionInt, "1"), 1), 1024),
		withMax(declared("restart_decay", OptionDouble, "1"), 1),
		shape,
	})
}

func TestListingAndLookupAgreeOnOptions(t *testing.T) {
	ctx := newTestContext(t)
	plugins, err := ctx.Plugins()
	must(t, err)
	for _, name := range []string{"constant", "cosine", "sgdr", "wsd"} {
		_, listed, ok := findStrategy(plugins, KindSchedule, name)
		if !ok || len(listed.Options) == 0 {
			t.Fatalf("schedule %q: listed %v with %d options", name, ok, len(listed.Options))
		}
		found, err := ctx.FindStrategy(KindSchedule, name)
		must(t, err)
		qualified, err := ctx.StrategyOptions(KindSchedule, "schedule_lr/"+name)
		must(t, err)
		if !reflect.DeepEqual(found.Options, listed.Options) || !reflect.DeepEqual(qualified, listed.Options) {
			t.Errorf("schedule %q: listed %+v, found %+v, qualified %+v", name, listed.Options, found.Options, qualified)
		}
	}
}

// builtTestPlugin returns <build>/tests/plugins/<name>.so of the build
// whose schedule_lr.so (<build>/lib/frugal/v2/plugins) ctx loaded.
func builtTestPlugin(t *testing.T, ctx *Context, name string) string {
	t.Helper()
	plugins, err := ctx.Plugins()
	must(t, err)
	for _, p := range plugins {
		if p.Name == "schedule_lr" {
			build := p.Path
			for i := 0; i < 5; i++ {
				build = filepath.Dir(build)
			}
			return filepath.Join(build, "tests", "plugins", name+".so")
		}
	}
	t.Fatalf("schedule_lr is not loaded")
	return ""
}

func TestStrategyDeclaringNothingListsNoOptions(t *testing.T) {
	path := builtTestPlugin(t, newTestContext(t), "alpha")
	if _, err := os.Stat(path); err != nil {
		// A checkout holds the test plugins' source; a copy of the module
		// tested against an install does not.
		if _, inTree := os.Stat(filepath.Join("..", "..", "tests", "plugins", "test_plugin.cpp")); inTree == nil {
			t.Fatalf("%s is missing: build the target test_plugin_alpha", path)
		}
		t.Skipf("no test plugin %s (the module is tested outside the source tree)", path)
	}
	ctx, err := NewContext()
	must(t, err)
	t.Cleanup(func() { ctx.Close() })
	must(t, ctx.SetLogCallback(nil, LogOff)) // alpha's strategy of an unknown kind is skipped with a warning
	must(t, ctx.LoadPlugin(path))
	plugins, err := ctx.Plugins()
	must(t, err)
	if _, _, ok := findStrategy(plugins, KindSchedule, "linear"); !ok || len(plugins) != 1 {
		t.Fatalf("alpha: %d plugins, schedule \"linear\" listed %v", len(plugins), ok)
	}
	for _, s := range plugins[0].Strategies {
		if s.Options == nil || len(s.Options) != 0 {
			t.Errorf("alpha's %q lists options %#v, want an empty list", s.Name, s.Options)
		}
	}
	options, err := ctx.StrategyOptions(KindSchedule, "linear")
	must(t, err)
	if options == nil || len(options) != 0 {
		t.Errorf("StrategyOptions(linear) = %#v, want an empty list", options)
	}
}

func TestStrategyOptionsOfAnUnknownStrategyIsNotFound(t *testing.T) {
	_, err := newTestContext(t).StrategyOptions(KindSchedule, "no_such_schedule")
	wantError(t, err, CodeNotFound, "no_such_schedule")
}
