package frugal

/*
#include "frugal/telemetry.h"
*/
import "C"

// Checkpoints in telemetry and decisions are CkptKind values (CkptNone,
// CkptHeartbeat, CkptFull), the kinds a CkptEngine saves.

// Resource is a capacity class (frugal_resource_class_values).
type Resource int32

// Resource classes; ResourceUnspecified is invalid in telemetry.
const (
	ResourceUnspecified Resource = 0
	ResourceSpot        Resource = 1
	ResourceReserved    Resource = 2
)

// StopReason says why a decision says stop (frugal_stop_reason_values);
// StopNone keeps training.
type StopReason int32

// Stop reasons.
const (
	StopNone    StopReason = 0
	StopPlateau StopReason = 1
	StopTarget  StopReason = 2
	StopBudget  StopReason = 3
	StopPolicy  StopReason = 4
)

// Telemetry flags (FRUGAL_TELEMETRY_*).
const (
	// TelemetryEvalLoss: EvalLoss holds a validation loss of this step.
	TelemetryEvalLoss uint32 = 1
	// TelemetryRestarted: the first record after a restart.
	TelemetryRestarted uint32 = 2
)

// Telemetry is one step's report to a Scheduler (frugal_telemetry; the
// header documents each field's domain). WallTimeS is the job's own clock,
// which never goes back; the record covers the interval since the previous
// record's WallTimeS (since 0 for the first).
type Telemetry struct {
	Flags             uint32
	Nodes             uint32
	Step              int64
	Tokens            int64
	Loss              float64
	EvalLoss          float64
	WallTimeS         float64
	PricePerNodeHour  float64
	Resource          Resource
	CheckpointDone    CkptKind
	CheckpointStallS  float64
	PreemptionNoticeS float64
}

// toC copies the record into the C struct (a plain value: no pointers).
func (t Telemetry) toC() C.frugal_telemetry {
	var c C.frugal_telemetry
	c.struct_size = C.sizeof_frugal_telemetry
	c.flags = C.uint32_t(t.Flags)
	c.nodes = C.uint32_t(t.Nodes)
	c.step = C.int64_t(t.Step)
	c.tokens = C.int64_t(t.Tokens)
	c.loss = C.double(t.Loss)
	c.eval_loss = C.double(t.EvalLoss)
	c.wall_time_s = C.double(t.WallTimeS)
	c.price_per_node_hour = C.double(t.PricePerNodeHour)
	c.resource = C.int32_t(t.Resource)
	c.checkpoint_done = C.int32_t(t.CheckpointDone)
	c.checkpoint_stall_s = C.double(t.CheckpointStallS)
	c.preemption_notice_s = C.double(t.PreemptionNoticeS)
	return c
}

// Decision is what a Scheduler answers to one record (frugal_decision).
// A plain Go value: Reason is a copy.
type Decision struct {
	// LR is the learning rate for the record's step (0 without a schedule).
	LR float64
	// Checkpoint is the kind to save now (pass it to CkptEngine.Save), or
	// CkptNone.
	Checkpoint  CkptKind
	Resource    Resource
	TargetNodes uint32
	Stop        StopReason
	// NextDueS is the job-clock time the next record is wanted by; 0 when
	// nothing is due.
	NextDueS float64
	// Reason is "policy: why" per field a policy set, "; "-separated.
	Reason string
}

func decisionFromC(d *C.frugal_decision) Decision {
	return Decision{
		LR:          float64(d.lr),
		Checkpoint:  CkptKind(d.checkpoint),
		Resource:    Resource(d.resource),
		TargetNodes: uint32(d.target_nodes),
		Stop:        StopReason(d.stop),
		NextDueS:    float64(d.next_due_s),
		Reason:      C.GoString(d.reason),
	}
}
