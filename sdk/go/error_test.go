package frugal

import (
	"errors"
	"fmt"
	"testing"
)

func TestCodeNamesComeFromLibfrugal(t *testing.T) {
	cases := map[Code]string{
		CodeOK:                 "OK",
		CodeInvalidArgument:    "INVALID_ARGUMENT",
		CodeNotFound:           "NOT_FOUND",
		CodeOutOfRange:         "OUT_OF_RANGE",
		CodeFailedPrecondition: "FAILED_PRECONDITION",
		CodeInternal:           "INTERNAL",
		Code(9999):             "UNKNOWN",
	}
	for code, want := range cases {
		if got := code.String(); got != want {
			t.Errorf("Code(%d).String() = %q, want %q", int32(code), got, want)
		}
	}
}

func TestErrorFormatsAndUnwrapsThroughErrorsAs(t *testing.T) {
	var err error = &Error{Code: CodeNotFound, Message: "no such thing"}
	if got, want := err.Error(), "NOT_FOUND: no such thing"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("loading: %w", err)
	var fe *Error
	if !errors.As(wrapped, &fe) || fe.Code != CodeNotFound || fe.Message != "no such thing" {
		t.Fatalf("errors.As on a wrapped error gave %#v", fe)
	}
}

func TestLoadPluginMissingFileIsNotFound(t *testing.T) {
	ctx := newTestContext(t)
	wantError(t, ctx.LoadPlugin("no-such-plugin.so"), CodeNotFound, "no-such-plugin.so")
}
