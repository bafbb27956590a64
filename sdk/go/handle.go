package frugal

// Every handle type (Context, Schedule, Quantizer, Store, ...) is a small
// struct holding a pointer to an inner one that owns the C object. A copy
// made by value (b := *a) therefore shares the inner struct with the
// original: the first Close frees the C object, every later Close (on
// either) does nothing, and no copy can free it twice. A handle holds no
// exported field, so encoding/json writes {} and encoding/gob refuses it:
// the C pointer never leaves the process.
//
// Handles are still meant to be used through the pointers their
// constructors return. noCopy makes `go vet` (copylocks) report a copy by
// value; the zero value of a handle type is not usable.

// noCopy has no state; its Lock and Unlock methods make go vet's copylocks
// check flag any handle struct copied by value.
type noCopy struct{}

// Lock is never called; it exists for go vet.
func (*noCopy) Lock() {}

// Unlock is never called; it exists for go vet.
func (*noCopy) Unlock() {}
