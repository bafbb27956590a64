package frugal

/*
#include "frugal/loss_scaler.h"
*/
import "C"

import "unsafe"

// LossScalerStatus is a loss scaler's scale and step counters
// (frugal_loss_scaler_status); a checkpoint stores ExportState's bytes.
type LossScalerStatus struct {
	// Scale is the current scale, in [min_scale, max_scale].
	Scale float64
	// CleanSteps counts steps since the last growth or overflow, in
	// [0, growth_interval).
	CleanSteps int64
	// SkippedSteps counts steps skipped for overflow so far.
	SkippedSteps int64
}

// LossScaler is dynamic loss scaling for FP16 and FP8 training, with the
// semantics of PyTorch's GradScaler plus a floor and a ceiling: multiply
// the loss by Scale before backward and the gradients by 1/Scale before
// the optimizer step, then report with Update whether any gradient was NaN
// or Inf. An overflow skips the step and multiplies the scale by
// backoff_factor (not below min_scale); growth_interval clean steps in a
// row multiply it by growth_factor (not above max_scale). Pure host
// arithmetic in libfrugal's core: it needs no context or plugin.
//
// Ownership: created by NewLossScaler, released by Close.
//
// Thread safety: none; one goroutine at a time (libfrugal does not lock).
type LossScaler struct {
	_ noCopy
	*lossScalerHandle
}

// lossScalerHandle owns the C object; every copy of a
// LossScaler shares it (handle.go).
type lossScalerHandle struct {
	ptr *C.frugal_loss_scaler
	borrows
}

// NewLossScaler creates a loss scaler. opts (nil for defaults; read during
// the call only): init_scale (float, 65536), growth_factor (> 1, 2),
// backoff_factor (in (0, 1), 0.5), growth_interval (int >= 1, 2000),
// min_scale (> 0, 1), max_scale (finite, 2^24), with min_scale <=
// init_scale <= max_scale. An unknown or bad option is CodeInvalidArgument
// naming it.
func NewLossScaler(opts *Options) (*LossScaler, error) {
	copts, err := optionsArg(opts)
	if err != nil {
		return nil, err
	}
	var out *C.frugal_loss_scaler
	if err := takeError(C.frugal_loss_scaler_create(copts, &out)); err != nil {
		return nil, err
	}
	return &LossScaler{lossScalerHandle: &lossScalerHandle{ptr: out}}, nil
}

// Scale returns the current scale (multiply the loss by it).
func (s *LossScaler) Scale() (float64, error) {
	if s.ptr == nil {
		return 0, closedError("loss scaler")
	}
	return float64(C.frugal_loss_scaler_scale(s.ptr)), nil
}

// Update reports the step's outcome (foundInf: some gradient was NaN or
// Inf) and updates the scale. It returns whether the optimizer step may be
// applied: false after an overflow, when the step must be skipped.
func (s *LossScaler) Update(foundInf bool) (bool, error) {
	if s.ptr == nil {
		return false, closedError("loss scaler")
	}
	var inf, apply C.int32_t
	if foundInf {
		inf = 1
	}
	if err := takeError(C.frugal_loss_scaler_update(s.ptr, inf, &apply)); err != nil {
		return false, err
	}
	return apply != 0, nil
}

// Status returns the scale and the step counters (as a struct; ExportState
// gives the bytes a checkpoint stores).
func (s *LossScaler) Status() (LossScalerStatus, error) {
	if s.ptr == nil {
		return LossScalerStatus{}, closedError("loss scaler")
	}
	var st C.frugal_loss_scaler_status
	st.struct_size = C.sizeof_frugal_loss_scaler_status
	if err := takeError(C.frugal_loss_scaler_get_status(s.ptr, &st)); err != nil {
		return LossScalerStatus{}, err
	}
	return LossScalerStatus{Scale: float64(st.scale), CleanSteps: int64(st.clean_steps),
		SkippedSteps: int64(st.skipped_steps)}, nil
}

// SetStatus restores a status (e.g. from Status). One outside the
// scaler's configuration is CodeInvalidArgument and changes nothing.
func (s *LossScaler) SetStatus(status LossScalerStatus) error {
	if s.ptr == nil {
		return closedError("loss scaler")
	}
	// A plain struct of numbers in Go memory, read during the call only.
	var st C.frugal_loss_scaler_status
	st.struct_size = C.sizeof_frugal_loss_scaler_status
	st.scale = C.double(status.Scale)
	st.clean_steps = C.int64_t(status.CleanSteps)
	st.skipped_steps = C.int64_t(status.SkippedSteps)
	return takeError(C.frugal_loss_scaler_set_status(s.ptr, &st))
}

// ExportState serialises the state as the core's versioned, checksummed
// blob (frugal_loss_scaler_export_state: the bytes a checkpoint stores).
func (s *LossScaler) ExportState() ([]byte, error) {
	if s.ptr == nil {
		return nil, closedError("loss scaler")
	}
	return exportState(func(buf unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.frugal_error {
		return C.frugal_loss_scaler_export_state(s.ptr, buf, capacity, size)
	})
}

// ImportState restores ExportState's bytes. A blob that is truncated, of
// another kind, fails its checksum or holds a field outside this scaler's
// configuration is CodeDataCorrupted naming what is wrong, and changes
// nothing.
func (s *LossScaler) ImportState(state []byte) error {
	if s.ptr == nil {
		return closedError("loss scaler")
	}
	data, size := stateArg(state)
	return takeError(C.frugal_loss_scaler_import_state(s.ptr, data, size))
}

// Close destroys the scaler. Calling it again does nothing. It fails with
// CodeFailedPrecondition while the scaler is registered with a checkpoint
// engine.
func (s *LossScaler) Close() error {
	if err := s.closeRefusal("loss scaler"); err != nil {
		return err
	}
	if s.ptr != nil {
		C.frugal_loss_scaler_destroy(s.ptr)
		s.ptr = nil
	}
	return nil
}
