package frugal

import "testing"

func TestSettersAcceptEveryType(t *testing.T) {
	opts := newTestOptions(t)
	must(t, opts.SetInt("i", -7))
	must(t, opts.SetFloat("f", 2.5))
	must(t, opts.SetBool("b", true))
	must(t, opts.SetString("s", "text with spaces"))
}

func TestBadOptionNameIsInvalidArgument(t *testing.T) {
	opts := newTestOptions(t)
	wantError(t, opts.SetInt("bad name!", 1), CodeInvalidArgument, "bad name!")
}
