// Command frugal_tour is the Go tour of samples/README.md: through the
// frugal package (sdk/go) it loads the built-in plugins, evaluates an LR
// schedule, packs a batch, routes tokens, quantizes a tensor, runs the
// scheduler and round-trips a checkpoint, checking every result. It prints
// one line per step and exits 1 at the first mismatch.
//
// Run it from this directory after building the repository, with
// PKG_CONFIG_PATH=<repo>/build/pkgconfig and LD_LIBRARY_PATH=<repo>/build/lib
// (sdk/go/README.md):
//
//	go run .
package main

import (
	"errors"
	"fmt"
	"os"

	frugal "frugal.invalid/sdk/go"
)

// mismatch is a check that failed: what was computed against what was
// expected.
func mismatch(format string, args ...interface{}) error {
	return fmt.Errorf("mismatch: "+format, args...)
}

// requiredPlugins are the built-in plugins, one per strategy family.
var requiredPlugins = []string{"packer_seq", "policy_cost", "quant_fp8", "router_moe", "schedule_lr", "store_fs"}

// tourPlugins is step 1: the loaded library speaks the ABI major the
// package was built against, and discovery (no directory, no environment
// variable) finds every built-in plugin next to libfrugal.
func tourPlugins(ctx *frugal.Context) (string, error) {
	major, minor := frugal.ABIVersion()
	if major != frugal.ABIMajor {
		return "", mismatch("plugins: libfrugal speaks ABI major %d; this tour is written for major %d", major,
			frugal.ABIMajor)
	}
	loaded, err := ctx.DiscoverPlugins(0)
	if err != nil {
		return "", err
	}
	plugins, err := ctx.Plugins()
	if err != nil {
		return "", err
	}
	present := map[string]bool{}
	for _, p := range plugins {
		present[p.Name] = true
	}
	for _, name := range requiredPlugins {
		if !present[name] {
			return "", mismatch("plugins: '%s' is not loaded (%d plugins found)", name, len(plugins))
		}
	}
	return fmt.Sprintf("plugins: frugal %s, ABI %d.%d, %d loaded, all of packer_seq policy_cost quant_fp8 "+
		"router_moe schedule_lr store_fs present", frugal.Version(), major, minor, loaded), nil
}

// steps are the tour in order; each returns its line or the first problem.
var steps = []func(*frugal.Context) (string, error){
	tourPlugins, tourSchedule, tourPack, tourRoute, tourQuantize, tourScheduler, tourCheckpoint,
}

func run() (int, error) {
	// Creating the context is part of step 1.
	ctx, err := frugal.NewContext()
	if err != nil {
		return 1, err
	}
	defer ctx.Close()
	for i, step := range steps {
		line, err := step(ctx)
		if err != nil {
			return i + 1, err
		}
		fmt.Println(line)
	}
	return len(steps), nil
}

func main() {
	step, err := run()
	if err != nil {
		var fe *frugal.Error
		if errors.As(err, &fe) {
			fmt.Fprintf(os.Stderr, "frugal error %s (code %d): %s\n", fe.Code, int32(fe.Code), fe.Message)
		} else {
			fmt.Fprintln(os.Stderr, err)
		}
		fmt.Fprintf(os.Stderr, "tour failed at step %d of %d\n", step, len(steps))
		os.Exit(1)
	}
	fmt.Printf("tour: all %d steps passed\n", len(steps))
}
