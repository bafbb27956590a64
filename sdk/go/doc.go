// Package frugal binds libfrugal's C99 ABI (abi/include/frugal/*.h) for Go
// with cgo and the standard library only.
//
// Ownership: every handle (Context, Options, Schedule, Packer, PackPlan)
// owns one C object and releases it in Close. Close is idempotent and must
// be called: there is no finalizer, because a C object may keep a plugin
// loaded and the garbage collector gives no promise about when (or whether)
// it would run one. A method called after Close returns an *Error with code
// CodeFailedPrecondition instead of passing NULL to C.
//
// Pointer rules: C never keeps a Go pointer. Go slices and out-variables are
// passed to C only for the duration of one call; everything C owns
// (strings, plan arrays) is copied into Go values before a method returns;
// strings go to C through C.CString and are freed before the method
// returns.
//
// Errors: every failing frugal call surfaces as an *Error carrying the
// frugal code and message; use errors.As to read them.
package frugal
