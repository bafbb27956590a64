package frugal

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import "unsafe"

// ScalingMode is how a quantized tensor's scales are laid out
// (frugal_scaling_mode_values).
type ScalingMode int32

// Scaling modes, as numbered in frugal/tensor.h.
const (
	ScalingDelayed    ScalingMode = 1 // one scale per tensor, from an amax history
	ScalingCurrent    ScalingMode = 2 // one scale per tensor, from this tensor's amax
	ScalingPerChannel ScalingMode = 3 // one scale per row or column
	ScalingBlock      ScalingMode = 4 // block_rows x block_cols blocks
	ScalingMX         ScalingMode = 5 // OCP MX: 1 x 32 blocks, E8M0 scales
)

// QuantLayout is what a quantizer produces (frugal_quant_layout).
type QuantLayout struct {
	// DType of the codes: DTypeFloat8E4M3FN, DTypeFloat8E5M2 or DTypeInt8.
	DType       DType
	ScalingMode ScalingMode
	// BlockRows and BlockCols are the scale block's extent; 0 means the
	// whole dimension.
	BlockRows int32
	BlockCols int32
	// ScaleDType is DTypeFloat32, or DTypeFloat8E8M0 for MX.
	ScaleDType DType
	// ZeroPoint is true for asymmetric INT8: codes carry an int8 zero point.
	ZeroPoint bool
}

// Quantizer is an FP8/INT8 quantizer: an instance of a KindQuantizer
// strategy ("quant_fp8"), serving one tensor stream with one format and
// one recipe, and keeping that stream's state (the delayed-scaling amax
// history).
//
// Ownership: created by NewQuantizer, released by Close. It does not
// reference the context afterwards.
//
// Thread safety: calls may run concurrently only when the strategy has
// StrategyThreadSafe (quant_fp8 has); Close must not race any other call.
type Quantizer struct {
	_ noCopy
	*quantizerHandle
}

// quantizerHandle owns the C object; every copy of a
// Quantizer shares it (handle.go).
type quantizerHandle struct {
	ptr    *C.frugal_quantizer
	layout QuantLayout
	borrows
}

// NewQuantizer creates quantizer `name` configured by opts (nil for
// defaults; read during the call only). quant_fp8's options: format (e4m3,
// e5m2, int8, int8_asym), recipe (delayed, current, per_channel, block,
// mx), saturate, history, reduction, margin, axis, block_rows, block_cols,
// threads, amax_comm (a *Comm set with Options.SetComm).
func NewQuantizer(ctx *Context, name string, opts *Options) (*Quantizer, error) {
	args, err := newStrategyArgs(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	defer args.free()
	var out *C.frugal_quantizer
	if err := takeError(C.frugal_quantizer_create(args.ctx, args.name, args.opts, &out)); err != nil {
		return nil, err
	}
	q := &Quantizer{quantizerHandle: &quantizerHandle{ptr: out}}
	var l C.frugal_quant_layout
	l.struct_size = C.sizeof_frugal_quant_layout
	if err := takeError(C.frugal_quantizer_layout(out, &l)); err != nil {
		q.Close()
		return nil, err
	}
	q.layout = QuantLayout{
		DType:       DType(l.dtype),
		ScalingMode: ScalingMode(l.scaling_mode),
		BlockRows:   int32(l.block_rows),
		BlockCols:   int32(l.block_cols),
		ScaleDType:  DType(l.scale_dtype),
		ZeroPoint:   uint32(l.flags)&C.FRUGAL_QUANT_LAYOUT_ZERO_POINT != 0,
	}
	return q, nil
}

// Layout returns what the quantizer produces (read once at creation).
func (q *Quantizer) Layout() QuantLayout { return q.layout }

// ScaleShape returns the scale grid [grid rows, grid cols] for a
// [rows, cols] input (rows, cols >= 1).
func (q *Quantizer) ScaleShape(rows, cols int64) ([2]int64, error) {
	var shape [2]int64
	if q.ptr == nil {
		return shape, closedError("quantizer")
	}
	var out [2]C.int64_t
	if err := takeError(C.frugal_quantizer_scale_shape(q.ptr, C.int64_t(rows), C.int64_t(cols), &out[0])); err != nil {
		return shape, err
	}
	return [2]int64{int64(out[0]), int64(out[1])}, nil
}

// rowsCols collapses a shape the way the quantizer does: 1-D is one row,
// N-D is [product of the leading dimensions, last].
func rowsCols(shape []int64) (int64, int64) {
	if len(shape) == 0 {
		return 1, 1
	}
	rows := int64(1)
	for _, d := range shape[:len(shape)-1] {
		rows *= d
	}
	return rows, shape[len(shape)-1]
}

// Quantized is a quantized tensor: codes plus the scales that give them
// meaning, each a Tensor (Go slices from NewQuantized, or your own).
// Zero Tensors are absent; ScaleInv is required.
type Quantized struct {
	// Codes has the input's shape and the layout's dtype.
	Codes Tensor
	// ScaleInv (x ~= code * scale_inv) holds the scale grid: float32, or
	// for MX E8M0 codes e, each the factor 2^(e - 127).
	ScaleInv Tensor
	// Scale (code = x * scale), the grid, optional; always absent for MX.
	Scale Tensor
	// Amax is the input's absolute maximum (float32, one element), optional.
	Amax Tensor
	// ZeroPoint (int8, the grid) for layouts with QuantLayout.ZeroPoint.
	ZeroPoint Tensor
}

// NewQuantized allocates, in Go memory, every tensor a quantize of an input
// of this shape writes: codes, scale_inv, scale (not for MX) and amax, and
// the zero point when the layout has one.
func (q *Quantizer) NewQuantized(shape ...int64) (*Quantized, error) {
	rows, cols := rowsCols(shape)
	grid, err := q.ScaleShape(rows, cols)
	if err != nil {
		return nil, err
	}
	cells := int(grid[0] * grid[1])
	out := &Quantized{
		Codes: Bytes(q.layout.DType, make([]byte, int(rows*cols)), shape...),
		Amax:  Float32s(make([]float32, 1)),
	}
	if q.layout.ScaleDType == DTypeFloat8E8M0 {
		// MX: the E8M0 codes in ScaleInv are the only scales; libfrugal
		// refuses a Scale tensor beside them.
		out.ScaleInv = Bytes(DTypeFloat8E8M0, make([]byte, cells), grid[0], grid[1])
	} else {
		out.ScaleInv = Float32s(make([]float32, cells), grid[0], grid[1])
		out.Scale = Float32s(make([]float32, cells), grid[0], grid[1])
	}
	if q.layout.ZeroPoint {
		out.ZeroPoint = Int8s(make([]int8, cells), grid[0], grid[1])
	}
	return out, nil
}

// QuantizeArgs is one quantize call. Only Input and Output are required.
type QuantizeArgs struct {
	Input Tensor // float32, bfloat16 or float16
	// Output receives the codes and scales.
	Output *Quantized
	// OutputT, per-tensor recipes only, receives the transpose [cols, rows].
	OutputT *Quantized
	// Fake receives dequantize(quantize(x)) in the input's dtype.
	Fake Tensor
	// FreezeScale uses the current scale and does not record this amax.
	FreezeScale bool
}

// setQuantized describes a quantized tensor in frame slots codes, scale_inv,
// scale, amax and zero point.
func setQuantized(f *callFrame, qt *Quantized, role string, slots [5]int) error {
	if qt == nil {
		return nil
	}
	parts := []struct {
		t        Tensor
		name     string
		required bool
	}{{qt.Codes, ".codes", true}, {qt.ScaleInv, ".scale_inv", true}, {qt.Scale, ".scale", false},
		{qt.Amax, ".amax", false}, {qt.ZeroPoint, ".zero_point", false}}
	for i, p := range parts {
		if err := f.set(slots[i], p.t, role+p.name, p.required); err != nil {
			return err
		}
	}
	return nil
}

// setLayout copies the quantizer's layout into the frame's quant metas.
func (q *Quantizer) setLayout(f *callFrame) {
	f.c.scaling_mode = C.int32_t(q.layout.ScalingMode)
	f.c.block_rows = C.int32_t(q.layout.BlockRows)
	f.c.block_cols = C.int32_t(q.layout.BlockCols)
}

// Quantize quantizes args.Input into args.Output (and OutputT, Fake when
// given). Every tensor is read or written during the call only.
func (q *Quantizer) Quantize(args QuantizeArgs) error {
	if q.ptr == nil {
		return closedError("quantizer")
	}
	if args.Output == nil {
		return &Error{Code: CodeInvalidArgument, Message: "output: a quantized tensor is required"}
	}
	f, err := newCallFrame()
	if err != nil {
		return err
	}
	defer f.free()
	q.setLayout(f)
	if args.FreezeScale {
		f.c.quantize_flags = C.FRUGAL_QUANTIZE_FREEZE_SCALE
	}
	if err := f.set(0, args.Input, "input", true); err != nil {
		return err
	}
	if err := setQuantized(f, args.Output, "output", [5]int{1, 2, 3, 4, 10}); err != nil {
		return err
	}
	if err := setQuantized(f, args.OutputT, "output_t", [5]int{5, 6, 7, 8, 11}); err != nil {
		return err
	}
	if err := f.set(9, args.Fake, "fake", false); err != nil {
		return err
	}
	return f.call(C.FRUGAL_GO_QUANTIZE, unsafe.Pointer(q.ptr))
}

// Dequantize writes input's values (codes times scale_inv) into output
// (float32, bfloat16 or float16, the codes' shape).
func (q *Quantizer) Dequantize(input *Quantized, output Tensor) error {
	if q.ptr == nil {
		return closedError("quantizer")
	}
	if input == nil {
		return &Error{Code: CodeInvalidArgument, Message: "input: a quantized tensor is required"}
	}
	f, err := newCallFrame()
	if err != nil {
		return err
	}
	defer f.free()
	q.setLayout(f)
	if err := setQuantized(f, input, "input", [5]int{0, 1, 2, 3, 4}); err != nil {
		return err
	}
	if err := f.set(5, output, "output", true); err != nil {
		return err
	}
	return f.call(C.FRUGAL_GO_DEQUANTIZE, unsafe.Pointer(q.ptr))
}

// GemmArgs is one FP8 GEMM: D = Alpha * A * B^T ("TN": both operands
// row-major with K contiguous), accumulated in float32.
type GemmArgs struct {
	// A is [m, k] and B is [n, k]: float8_e4m3fn or float8_e5m2 codes (not
	// both e5m2) with per-tensor scales (delayed or current recipes: one
	// ScaleInv element, the dequantization factor), as Quantize writes them.
	// A and B may come from different quantizers. Scale and Amax are not
	// read.
	A, B *Quantized
	// D receives the [m, n] product: float32 or bfloat16, or FP8 codes.
	D Tensor
	// DScale (float32, one element) is required for an FP8 D: the product
	// is multiplied by it before the cast. Ignored otherwise.
	DScale Tensor
	// DAmax (float32, one element, optional, FP8 D only) receives the
	// absolute maximum of the product before scaling.
	DAmax Tensor
	// Alpha multiplies the product; it must be finite. The zero value means
	// 1 (a product scaled by 0 is never wanted), so the zero GemmArgs
	// computes a plain product.
	Alpha float32
	// FastAccum allows Hopper's fast FP8 accumulation (fewer promotions to
	// float32, less exact). The CPU GEMM ignores it.
	FastAccum bool
}

// GEMM computes args.D from args.A and args.B. quant_fp8 implements it for
// CPU tensors (every Go or C tensor of this package); a strategy without a
// GEMM fails with CodeUnimplemented, and operands it has none for
// (block-scaled ones, both e5m2) with CodeUnsupported. Every tensor is read
// or written during the call only.
func (q *Quantizer) GEMM(args GemmArgs) error {
	if q.ptr == nil {
		return closedError("quantizer")
	}
	if args.A == nil || args.B == nil {
		return &Error{Code: CodeInvalidArgument, Message: "gemm: a and b are required"}
	}
	f, err := newCallFrame()
	if err != nil {
		return err
	}
	defer f.free()
	// The operands' metas are per-tensor whatever this quantizer's own
	// layout: the GEMM reads their scale_inv only, and delayed and current
	// scaling describe the same single scale.
	f.c.scaling_mode = C.int32_t(ScalingCurrent)
	f.c.gemm_alpha = C.float(args.Alpha)
	if args.Alpha == 0 {
		f.c.gemm_alpha = 1
	}
	if args.FastAccum {
		f.c.gemm_flags = C.FRUGAL_GEMM_FAST_ACCUM
	}
	if err := setQuantized(f, &Quantized{Codes: args.A.Codes, ScaleInv: args.A.ScaleInv}, "a", [5]int{0, 1, 2, 3, 12}); err != nil {
		return err
	}
	if err := setQuantized(f, &Quantized{Codes: args.B.Codes, ScaleInv: args.B.ScaleInv}, "b", [5]int{4, 5, 6, 7, 12}); err != nil {
		return err
	}
	if err := f.set(8, args.D, "d", true); err != nil {
		return err
	}
	if isFP8(args.D.dtype) {
		if err := f.set(10, args.DScale, "d.scale", false); err != nil {
			return err
		}
		if err := f.set(11, args.DAmax, "d.amax", false); err != nil {
			return err
		}
	}
	return f.call(C.FRUGAL_GO_GEMM, unsafe.Pointer(q.ptr))
}

func isFP8(d DType) bool { return d == DTypeFloat8E4M3FN || d == DTypeFloat8E5M2 }

// ExportState serialises the recipe state (checkpoint it with the model).
func (q *Quantizer) ExportState() ([]byte, error) {
	if q.ptr == nil {
		return nil, closedError("quantizer")
	}
	return exportState(func(buf unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.frugal_error {
		return C.frugal_quantizer_export_state(q.ptr, buf, capacity, size)
	})
}

// ImportState restores a state exported by a quantizer with the same
// options; a bad blob is an error and leaves the state as it was.
func (q *Quantizer) ImportState(state []byte) error {
	if q.ptr == nil {
		return closedError("quantizer")
	}
	data, size := stateArg(state)
	return takeError(C.frugal_quantizer_import_state(q.ptr, data, size))
}

// Close destroys the quantizer. Calling it again does nothing. It fails
// with CodeFailedPrecondition while the quantizer is registered with a
// checkpoint engine.
func (q *Quantizer) Close() error {
	if err := q.closeRefusal("quantizer"); err != nil {
		return err
	}
	if q.ptr != nil {
		C.frugal_quantizer_destroy(q.ptr)
		q.ptr = nil
	}
	return nil
}
