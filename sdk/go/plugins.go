package frugal

/*
#include <stdlib.h>
#include "frugal/context.h"
*/
import "C"

import "unsafe"

// Kind is the family of a strategy (frugal_strategy_kind_values).
type Kind int32

// Strategy kinds, as numbered in frugal/types.h.
const (
	KindRouter    Kind = 1
	KindQuantizer Kind = 2
	KindPacker    Kind = 3
	KindPolicy    Kind = 4
	KindSchedule  Kind = 5
	KindStore     Kind = 6
)

// Strategy flags (FRUGAL_STRATEGY_* in frugal/types.h).
const (
	// StrategyThreadSafe: calls on one instance may run concurrently.
	StrategyThreadSafe uint32 = 1 << 0
	// StrategyDeterministic: equal inputs, options and seed give
	// bit-identical outputs.
	StrategyDeterministic uint32 = 1 << 1
)

// StrategyInfo describes one strategy of a loaded plugin. A plain Go value:
// its strings are copies, valid after the context is closed.
type StrategyInfo struct {
	Kind       Kind
	Flags      uint32
	Name       string
	Summary    string
	PluginName string
	// Shadowed is true when another plugin owns the short name; reach this
	// strategy as "PluginName/Name".
	Shadowed bool
}

// PluginInfo describes one loaded plugin, copied out of the context.
type PluginInfo struct {
	Name        string
	Version     string
	Vendor      string
	License     string
	Description string
	Path        string
	ABIMajor    uint32
	ABIMinor    uint32
	Strategies  []StrategyInfo
}

// Plugins lists the loaded plugins in load order with their strategies.
// Every string is copied into Go memory before returning, because the C
// strings belong to the context and die with it.
func (c *Context) Plugins() ([]PluginInfo, error) {
	if c.ptr == nil {
		return nil, closedError("context")
	}
	count := int(C.frugal_context_plugin_count(c.ptr))
	plugins := make([]PluginInfo, 0, count)
	for i := 0; i < count; i++ {
		// The info struct lives in Go memory and C only writes C pointers
		// into it during the call, which the cgo rules allow.
		var info C.frugal_plugin_info
		info.struct_size = C.sizeof_frugal_plugin_info
		if err := takeError(C.frugal_context_plugin_info(c.ptr, C.size_t(i), &info)); err != nil {
			return nil, err
		}
		p := PluginInfo{
			Name:        C.GoString(info.name),
			Version:     C.GoString(info.version),
			Vendor:      C.GoString(info.vendor),
			License:     C.GoString(info.license),
			Description: C.GoString(info.description),
			Path:        C.GoString(info.path),
			ABIMajor:    uint32(info.abi_major),
			ABIMinor:    uint32(info.abi_minor),
		}
		strategies, err := c.strategies(i, int(info.strategy_count))
		if err != nil {
			return nil, err
		}
		p.Strategies = strategies
		plugins = append(plugins, p)
	}
	return plugins, nil
}

// strategies copies the strategy descriptions of plugin `plugin`.
func (c *Context) strategies(plugin, count int) ([]StrategyInfo, error) {
	out := make([]StrategyInfo, 0, count)
	for s := 0; s < count; s++ {
		var info C.frugal_strategy_info
		info.struct_size = C.sizeof_frugal_strategy_info
		if err := takeError(C.frugal_context_strategy_info(c.ptr, C.size_t(plugin), C.size_t(s), &info)); err != nil {
			return nil, err
		}
		out = append(out, strategyInfoFromC(&info))
	}
	return out, nil
}

// String returns libfrugal's stable lower-case name of the kind
// ("schedule", ...), or "unknown".
func (k Kind) String() string { return C.GoString(C.frugal_strategy_kind_name(C.int32_t(k))) }

func strategyInfoFromC(info *C.frugal_strategy_info) StrategyInfo {
	return StrategyInfo{
		Kind:       Kind(info.kind),
		Flags:      uint32(info.flags),
		Name:       C.GoString(info.name),
		Summary:    C.GoString(info.summary),
		PluginName: C.GoString(info.plugin_name),
		Shadowed:   info.shadowed != 0,
	}
}

// FindStrategy looks strategy name ("name" or "plugin/name") of kind up
// among the loaded plugins. CodeNotFound names the kind and the name (and,
// for a short name, lists the available ones).
func (c *Context) FindStrategy(kind Kind, name string) (StrategyInfo, error) {
	if c.ptr == nil {
		return StrategyInfo{}, closedError("context")
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var info C.frugal_strategy_info
	info.struct_size = C.sizeof_frugal_strategy_info
	if err := takeError(C.frugal_context_find_strategy(c.ptr, C.int32_t(kind), cname, &info)); err != nil {
		return StrategyInfo{}, err
	}
	return strategyInfoFromC(&info), nil
}

// LoadFailure is a plugin file (or directory) that failed to load,
// copied out of the context.
type LoadFailure struct {
	// Path as given or found (not canonical).
	Path string
	// Message says why, in one line.
	Message string
	// Code is the error the load failed with.
	Code Code
}

// LoadFailures lists the recorded load failures, oldest first. They
// accumulate over discoveries and LoadPlugin calls and are never cleared.
func (c *Context) LoadFailures() ([]LoadFailure, error) {
	if c.ptr == nil {
		return nil, closedError("context")
	}
	count := int(C.frugal_context_load_failure_count(c.ptr))
	out := make([]LoadFailure, 0, count)
	for i := 0; i < count; i++ {
		var info C.frugal_load_failure_info
		info.struct_size = C.sizeof_frugal_load_failure_info
		if err := takeError(C.frugal_context_load_failure(c.ptr, C.size_t(i), &info)); err != nil {
			return nil, err
		}
		out = append(out, LoadFailure{Path: C.GoString(info.path), Message: C.GoString(info.message), Code: Code(info.code)})
	}
	return out, nil
}
