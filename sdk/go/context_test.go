package frugal

import "testing"

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
	if p.Version == "" || p.ABIMajor != 1 || s.Shadowed {
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
