package frugal

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// findStrategy returns the strategy `name` of kind `kind` among plugins.
func findStrategy(plugins []PluginInfo, kind Kind, name string) (PluginInfo, StrategyInfo, bool) {
	for _, p := range plugins {
		for _, s := range p.Strategies {
			if s.Kind == kind && s.Name == name {
				return p, s, true
			}
		}
	}
	return PluginInfo{}, StrategyInfo{}, false
}

func TestPluginsListsBuiltinStrategies(t *testing.T) {
	ctx := newTestContext(t)
	plugins, err := ctx.Plugins()
	if err != nil {
		t.Fatalf("Plugins: %v", err)
	}
	p, s, ok := findStrategy(plugins, KindSchedule, "cosine")
	if !ok {
		t.Fatalf("no schedule strategy \"cosine\" among %d plugins", len(plugins))
	}
	if p.Name != "schedule_lr" || s.PluginName != "schedule_lr" {
		t.Errorf("cosine comes from plugin %q (strategy says %q), want schedule_lr", p.Name, s.PluginName)
	}
	if p.Version == "" || p.ABIMajor != ABIMajor || s.Shadowed {
		t.Errorf("schedule_lr: version %q, abi major %d, shadowed %v", p.Version, p.ABIMajor, s.Shadowed)
	}
	if _, _, ok := findStrategy(plugins, KindPacker, "packer_seq"); !ok {
		t.Errorf("no packer strategy \"packer_seq\"")
	}
}

func TestDiscoverTwiceLoadsNothingNew(t *testing.T) {
	ctx := newTestContext(t)
	loaded, err := ctx.DiscoverPlugins(DiscoverNoEnv)
	if err != nil || loaded != 0 {
		t.Fatalf("second discovery loaded %d (err %v), want 0", loaded, err)
	}
}

func TestCloseTwiceAndUseAfterClose(t *testing.T) {
	ctx, err := NewContext()
	must(t, err)
	opts, err := NewOptions()
	must(t, err)
	for i := 0; i < 2; i++ {
		if err := ctx.Close(); err != nil {
			t.Fatalf("context Close #%d: %v", i+1, err)
		}
		if err := opts.Close(); err != nil {
			t.Fatalf("options Close #%d: %v", i+1, err)
		}
	}
	_, err = ctx.Plugins()
	wantError(t, err, CodeFailedPrecondition, "context is closed")
	wantError(t, opts.SetInt("x", 1), CodeFailedPrecondition, "options is closed")
	_, err = NewSchedule(ctx, "cosine", nil)
	wantError(t, err, CodeFailedPrecondition, "context is closed")
}

func TestLoadedLibraryMatchesTheHeadersABI(t *testing.T) {
	major, minor := ABIVersion()
	if major != ABIMajor || minor < ABIMinor {
		t.Errorf("loaded ABI %d.%d, compiled against %d.%d", major, minor, ABIMajor, ABIMinor)
	}
	if v := Version(); v == "" || v[0] < '0' || v[0] > '9' {
		t.Errorf("Version() = %q", v)
	}
}

func TestFindStrategyFindsEachBuiltinPlugin(t *testing.T) {
	ctx := newTestContext(t)
	cases := []struct {
		kind   Kind
		name   string
		plugin string
	}{{KindPacker, "packer_seq", "packer_seq"}, {KindPolicy, "checkpoint_cadence", "policy_cost"},
		{KindQuantizer, "quant_fp8", "quant_fp8"}, {KindRouter, "topk_softmax", "router_moe"},
		{KindSchedule, "cosine", "schedule_lr"}, {KindStore, "fs", "store_fs"},
		{KindSchedule, "schedule_lr/constant", "schedule_lr"}}
	for _, c := range cases {
		info, err := ctx.FindStrategy(c.kind, c.name)
		if err != nil {
			t.Fatalf("FindStrategy(%v, %q): %v", c.kind, c.name, err)
		}
		if info.Kind != c.kind || info.PluginName != c.plugin || info.Summary == "" || info.Shadowed {
			t.Errorf("FindStrategy(%v, %q) = %+v, want plugin %q", c.kind, c.name, info, c.plugin)
		}
	}
	_, err := ctx.FindStrategy(KindSchedule, "no_such_schedule")
	wantError(t, err, CodeNotFound, "no_such_schedule", "schedule")
	// The kind matters: "cosine" is no packer.
	_, err = ctx.FindStrategy(KindPacker, "cosine")
	wantError(t, err, CodeNotFound, "cosine")
}

func TestKindNamesAndCUDAQueries(t *testing.T) {
	names := map[Kind]string{KindRouter: "router", KindQuantizer: "quantizer", KindPacker: "packer",
		KindPolicy: "policy", KindSchedule: "schedule", KindStore: "store", KindComm: "comm", Kind(99): "unknown"}
	for k, want := range names {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int32(k), got, want)
		}
	}
	n := CUDADeviceCount()
	if n < 0 || (!BuiltWithCUDA() && n != 0) {
		t.Errorf("CUDADeviceCount() = %d with BuiltWithCUDA() = %v", n, BuiltWithCUDA())
	}
}

func TestCheckStoreKey(t *testing.T) {
	must(t, CheckStoreKey("ckpt/000042/manifest.json"))
	wantError(t, CheckStoreKey("../escape"), CodeInvalidArgument, "..")
	wantError(t, CheckStoreKey(""), CodeInvalidArgument)
}

func TestLogCallbackReceivesTheLoadFailureWarning(t *testing.T) {
	ctx, err := NewContext()
	must(t, err)
	defer ctx.Close()
	type entry struct {
		level           LogLevel
		source, message string
	}
	var mu sync.Mutex
	var got []entry
	must(t, ctx.SetLogCallback(func(level LogLevel, source, message string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, entry{level, source, message})
	}, LogTrace))
	missing := filepath.Join(t.TempDir(), "no_such_plugin_dir")
	must(t, ctx.AddPluginDir(missing))
	loaded, err := ctx.DiscoverPlugins(DiscoverNoEnv | DiscoverNoBuiltin)
	must(t, err)
	if loaded != 0 {
		t.Fatalf("loaded %d plugins from nowhere", loaded)
	}
	mu.Lock()
	var warned bool
	for _, e := range got {
		if e.level == LogWarn && e.source == "core" && strings.Contains(e.message, missing) {
			warned = true
		}
	}
	count := len(got)
	mu.Unlock()
	if !warned {
		t.Fatalf("no core warning naming %s among %+v", missing, got)
	}
	failures, err := ctx.LoadFailures()
	must(t, err)
	if len(failures) != 1 || failures[0].Path != missing || failures[0].Message == "" || failures[0].Code == CodeOK {
		t.Fatalf("load failures %+v", failures)
	}

	// Silenced: a second failing discovery logs nothing, and is recorded.
	must(t, ctx.SetLogCallback(nil, LogTrace))
	_, err = ctx.DiscoverPlugins(DiscoverNoEnv | DiscoverNoBuiltin)
	must(t, err)
	mu.Lock()
	if len(got) != count {
		t.Errorf("silenced logging still delivered %d messages", len(got)-count)
	}
	mu.Unlock()
	failures, err = ctx.LoadFailures()
	must(t, err)
	if len(failures) != 2 {
		t.Errorf("%d load failures after two discoveries, want 2", len(failures))
	}
	must(t, ctx.Close())
	wantError(t, ctx.SetLogCallback(nil, LogTrace), CodeFailedPrecondition, "context is closed")
}
