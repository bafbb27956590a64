package frugal

/*
#include <stdlib.h>
#include "frugal/context.h"
#include "frugal/plugin.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

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
	KindComm      Kind = 7 // communicators (NewComm); ABI 2.1
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
	// Options are the options it declares, in declaration
	// order; empty when it declares none.
	Options []OptionDecl
}

// OptionDecl is one option a strategy declares, copied out of
// the context. It describes what the strategy's create accepts on its own;
// constraints between options (min_lr <= lr) are not declared.
type OptionDecl struct {
	Name string
	// Type is the type a value must have (an OptionDouble option also
	// accepts an int).
	Type OptionType
	// Required: the option must be given; then it has no default.
	Required bool
	// Default is the value used when the option is absent, spelt as
	// SetParsed reads it ("0.001"); meaningful when HasDefault.
	Default    string
	HasDefault bool
	// Min and Max are inclusive bounds of an int or float option,
	// meaningful when HasMin and HasMax.
	Min, Max       float64
	HasMin, HasMax bool
	// Choices are the values a string option allows; nil for any.
	Choices []string
	// Directory: a string naming a directory the strategy may create and
	// write (a store's root, say).
	Directory bool
	// Doc is one line of documentation.
	Doc string
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
		strategy := strategyInfoFromC(&info)
		options, err := c.declaredOptions(plugin, s, int(info.option_count))
		if err != nil {
			return nil, err
		}
		strategy.Options = options
		out = append(out, strategy)
	}
	return out, nil
}

// declaredOptions copies the `count` declarations of strategy `strategy`
// of plugin `plugin` at once: their strings die with the context.
func (c *Context) declaredOptions(plugin, strategy, count int) ([]OptionDecl, error) {
	out := make([]OptionDecl, 0, count)
	for o := 0; o < count; o++ {
		var info C.frugal_option_info
		info.struct_size = C.sizeof_frugal_option_info
		err := takeError(C.frugal_context_strategy_option(c.ptr, C.size_t(plugin), C.size_t(strategy), C.size_t(o), &info))
		if err != nil {
			return nil, err
		}
		out = append(out, optionDeclFromC(&info))
	}
	return out, nil
}

func optionDeclFromC(info *C.frugal_option_info) OptionDecl {
	has := func(flag C.uint32_t) bool { return info.flags&flag != 0 }
	d := OptionDecl{
		Name:       C.GoString(info.name),
		Type:       OptionType(info._type),
		Required:   has(C.FRUGAL_OPTION_DECL_REQUIRED),
		HasDefault: info.default_value != nil,
		HasMin:     has(C.FRUGAL_OPTION_DECL_HAS_MIN),
		HasMax:     has(C.FRUGAL_OPTION_DECL_HAS_MAX),
		Directory:  has(C.FRUGAL_OPTION_DECL_DIRECTORY),
		Doc:        C.GoString(info.doc),
	}
	if d.HasDefault {
		d.Default = C.GoString(info.default_value)
	}
	if d.HasMin {
		d.Min = float64(info.min)
	}
	if d.HasMax {
		d.Max = float64(info.max)
	}
	if info.choices != nil {
		d.Choices = strings.Split(C.GoString(info.choices), "|")
	}
	return d
}

// optionsOfFound copies the declarations of the strategy FindStrategy
// described. The core reports no indices for it, so its plugin is found by
// name (unique in a context) and the strategy by kind and name within it.
func (c *Context) optionsOfFound(found *C.frugal_strategy_info) ([]OptionDecl, error) {
	if found.option_count == 0 {
		return []OptionDecl{}, nil
	}
	pluginName, name := C.GoString(found.plugin_name), C.GoString(found.name)
	count := int(C.frugal_context_plugin_count(c.ptr))
	for p := 0; p < count; p++ {
		var info C.frugal_plugin_info
		info.struct_size = C.sizeof_frugal_plugin_info
		if err := takeError(C.frugal_context_plugin_info(c.ptr, C.size_t(p), &info)); err != nil {
			return nil, err
		}
		if C.GoString(info.name) != pluginName {
			continue
		}
		for s := 0; s < int(info.strategy_count); s++ {
			var strategy C.frugal_strategy_info
			strategy.struct_size = C.sizeof_frugal_strategy_info
			if err := takeError(C.frugal_context_strategy_info(c.ptr, C.size_t(p), C.size_t(s), &strategy)); err != nil {
				return nil, err
			}
			if strategy.kind == found.kind && C.GoString(strategy.name) == name {
				return c.declaredOptions(p, s, int(strategy.option_count))
			}
		}
	}
	// Plugins never leave a context, so what FindStrategy found is listed.
	return nil, &Error{Code: CodeInternal, Message: fmt.Sprintf(
		"strategy '%s' of plugin '%s' was found but is not among the loaded plugins' strategies", name, pluginName)}
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
	strategy := strategyInfoFromC(&info)
	options, err := c.optionsOfFound(&info)
	if err != nil {
		return StrategyInfo{}, err
	}
	strategy.Options = options
	return strategy, nil
}

// StrategyOptions returns the options strategy name ("name" or
// "plugin/name") of kind declares, in declaration order; empty when it
// declares none. Errors as FindStrategy.
func (c *Context) StrategyOptions(kind Kind, name string) ([]OptionDecl, error) {
	s, err := c.FindStrategy(kind, name)
	if err != nil {
		return nil, err
	}
	return s.Options, nil
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
