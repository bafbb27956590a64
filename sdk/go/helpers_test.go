package frugal

import (
	"errors"
	"strings"
	"testing"
)

// newTestContext returns a context with the built-in plugins discovered
// (FRUGAL_PLUGIN_PATH ignored, so the test sees the build's plugins only);
// it is closed when the test ends.
func newTestContext(t *testing.T) *Context {
	t.Helper()
	ctx, err := NewContext()
	if err != nil {
		t.Fatalf("NewContext: %v", err)
	}
	t.Cleanup(func() { ctx.Close() })
	if _, err := ctx.DiscoverPlugins(DiscoverNoEnv); err != nil {
		t.Fatalf("DiscoverPlugins: %v", err)
	}
	return ctx
}

// newTestOptions returns options closed when the test ends.
func newTestOptions(t *testing.T) *Options {
	t.Helper()
	opts, err := NewOptions()
	if err != nil {
		t.Fatalf("NewOptions: %v", err)
	}
	t.Cleanup(func() { opts.Close() })
	return opts
}

// must fails the test on a setter error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// wantError asserts that err is an *Error with code `code` whose message
// contains every one of `parts`.
func wantError(t *testing.T, err error, code Code, parts ...string) *Error {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *frugal.Error", err, err)
	}
	if fe.Code != code {
		t.Fatalf("code = %v (%d), want %v (%d); message %q", fe.Code, int32(fe.Code), code, int32(code), fe.Message)
	}
	for _, part := range parts {
		if !strings.Contains(fe.Message, part) {
			t.Fatalf("message %q does not contain %q", fe.Message, part)
		}
	}
	return fe
}
