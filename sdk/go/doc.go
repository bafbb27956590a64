// Package frugal binds libfrugal's C99 ABI (abi/include/frugal/*.h) for Go
// with cgo and the standard library only.
//
// Handles: Context (plugins, logging), Options, Schedule, Packer, PackPlan
// and PackStream, Quantizer (with its FP8 GEMM), Router, Scheduler,
// LossScaler, Store, CkptEngine, CTensor, ManagedTensor (DLPack) and Comm
// (communicators and their collectives).
// Preemption notices are process-wide functions (PreemptionNotify, ...).
//
// Ownership: every handle owns one C object and releases it in Close.
// Close is idempotent and must be called: there is no finalizer, because a
// C object may keep a plugin loaded and the garbage collector gives no
// promise about when (or whether) it would run one. A method called after
// Close returns an *Error with code CodeFailedPrecondition instead of
// passing NULL to C.
//
// Tensors: a Tensor describes a Go slice (Float32s, Int64s, Bytes, ...) or
// C memory (CTensor.Tensor) with a dtype and a shape; calls read and write
// the memory in place, without copies.
//
// Pointer rules (Go 1.19 has no runtime.Pinner): C never keeps a Go
// pointer, and no Go memory handed to C holds a Go pointer. Go slices
// cross only as direct arguments for the duration of one call; the frugal
// structs that point at them (tensor views, quant metas, route plans,
// checkpoint save arguments and slices) are built in C memory by shim.c,
// which clears the pointers before returning. State C keeps after a call (the
// checkpoint engine's registered tensors) must be C memory: CTensor.
// Everything C owns (strings, plan arrays, decision reasons) is copied
// into Go values before a method returns; strings go to C through
// C.CString and are freed before the method returns; callbacks (lists,
// logging, DLPack release functions) reach Go through runtime/cgo handles,
// never Go pointers. Only C memory is exported through DLPack
// (ManagedTensor), since its consumer keeps the pointer.
//
// Errors: every failing frugal call surfaces as an *Error carrying the
// frugal code and message; use errors.As to read them. Tensors are checked
// against their memory before a call, and a mismatch is an *Error with
// CodeInvalidArgument naming the tensor.
package frugal
