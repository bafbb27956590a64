package main

import (
	"bytes"
	"fmt"
	"math"
	"os"

	frugal "frugal.invalid/sdk/go"
)

const (
	records      = 30
	nodes        = 2
	pricePerHour = 1.10
)

// tourScheduler is step 6: 30 telemetry records through a scheduler with
// the cosine schedule and checkpoint_cadence; the lr follows the schedule,
// a heartbeat is asked for, and the ledger's dollars are conserved and
// equal 900 s of 2 nodes at $1.10 per node-hour.
func tourScheduler(ctx *frugal.Context) (string, error) {
	scheduleOpts, err := cosineOptions()
	if err != nil {
		return "", err
	}
	defer scheduleOpts.Close()
	cadence, err := frugal.NewOptions()
	if err != nil {
		return "", err
	}
	defer cadence.Close()
	if err := cadence.SetDouble("heartbeat_interval_s", 60); err != nil {
		return "", err
	}
	scheduler, err := frugal.NewScheduler(ctx, frugal.SchedulerConfig{
		Schedule:        "cosine",
		ScheduleOptions: scheduleOpts,
		Policies:        []frugal.PolicyConfig{{Name: "checkpoint_cadence", Options: cadence}},
	})
	if err != nil {
		return "", err
	}
	defer scheduler.Close()
	// The same schedule on its own: what each decision's lr must equal.
	schedule, err := frugal.NewSchedule(ctx, "cosine", scheduleOpts)
	if err != nil {
		return "", err
	}
	defer schedule.Close()

	heartbeats, lastLR := 0, 0.0
	for i := 1; i <= records; i++ {
		step := int64(10 * i)
		decision, err := scheduler.Step(frugal.Telemetry{
			Nodes: nodes, Step: step, Tokens: step * 2048, Loss: 4 - 0.05*float64(i),
			WallTimeS: float64(30 * i), PricePerNodeHour: pricePerHour, Resource: frugal.ResourceSpot,
		})
		if err != nil {
			return "", err
		}
		want, err := schedule.LR(step)
		if err != nil {
			return "", err
		}
		if decision.LR != want {
			return "", mismatch("scheduler: record %d's lr is %.17g; the schedule gives %.17g at step %d", i, decision.LR, want, step)
		}
		if decision.Checkpoint == frugal.CkptHeartbeat {
			heartbeats++
		}
		lastLR = decision.LR
	}
	if heartbeats == 0 {
		return "", mismatch("scheduler: no decision asked for a heartbeat checkpoint")
	}
	ledger, err := scheduler.Ledger()
	if err != nil {
		return "", err
	}
	if err := checkLedger(ledger); err != nil {
		return "", err
	}
	return fmt.Sprintf("scheduler: %d records, lr %.6e at step %d, %d heartbeat(s) asked, $%.6f paid = productive %.6f + stall %.6f + lost %.6f",
		records, lastLR, 10*records, heartbeats, ledger.Dollars, ledger.ProductiveDollars, ledger.StallDollars,
		ledger.LostDollars), nil
}

// checkLedger: dollars = productive + stall + lost = spot + reserved, and
// equal the price of the whole job clock (the first interval starts at 0).
func checkLedger(l frugal.Ledger) error {
	byUse := l.ProductiveDollars + l.StallDollars + l.LostDollars
	if math.Abs(l.Dollars-byUse) > 1e-9 {
		return mismatch("scheduler: ledger dollars %.12f != productive + stall + lost %.12f", l.Dollars, byUse)
	}
	byCapacity := l.SpotDollars + l.ReservedDollars
	if math.Abs(l.Dollars-byCapacity) > 1e-9 {
		return mismatch("scheduler: ledger dollars %.12f != spot + reserved %.12f", l.Dollars, byCapacity)
	}
	want := 900.0 * nodes * pricePerHour / 3600
	if math.Abs(l.Dollars-want) > 1e-9 {
		return mismatch("scheduler: ledger dollars %.12f; 900 s of %d nodes at $%.2f per node-hour cost %.12f",
			l.Dollars, nodes, pricePerHour, want)
	}
	return nil
}

const weightCount = 1024

// tourCheckpoint is step 7: a full checkpoint of two registered tensors
// and metadata through the fs store comes back byte for byte.
func tourCheckpoint(ctx *frugal.Context) (string, error) {
	root, err := os.MkdirTemp("", "frugal-go-tour-")
	if err != nil {
		return "", err
	}
	line, err := checkpointRoundTrip(ctx, root)
	// Runs after every handle of the round trip is closed.
	if rmErr := os.RemoveAll(root); rmErr != nil && err == nil {
		fmt.Fprintf(os.Stderr, "warning: could not remove the temporary directory %s: %v\n", root, rmErr)
	}
	return line, err
}

// checkpointRoundTrip saves, clobbers and restores the state in a store
// rooted at root.
func checkpointRoundTrip(ctx *frugal.Context, root string) (string, error) {
	opts, err := frugal.NewOptions()
	if err != nil {
		return "", err
	}
	defer opts.Close()
	if err := opts.SetString("root", root); err != nil {
		return "", err
	}
	store, err := frugal.NewStore(ctx, "fs", opts)
	if err != nil {
		return "", err
	}
	defer store.Close()

	// The engine keeps pointers to registered memory after Register
	// returns, so the state lives in C memory (CTensor), not in Go slices.
	weights, err := frugal.NewCTensor(frugal.DTypeFloat32, weightCount)
	if err != nil {
		return "", err
	}
	defer weights.Close()
	cursor, err := frugal.NewCTensor(frugal.DTypeInt64, 4)
	if err != nil {
		return "", err
	}
	defer cursor.Close()
	copy(weights.Tensor().Float32s(), newStream(17).float32s(weightCount, 1))
	copy(cursor.Tensor().Int64s(), []int64{1, 2, 3, 4})
	wantWeights := append([]byte(nil), weights.Tensor().Bytes()...)
	wantCursor := append([]byte(nil), cursor.Tensor().Bytes()...)

	// A loss scaler moved off its initial scale; registered with the engine
	// below, its state travels in the checkpoint (no container of our own).
	// Deferred before the engine, so it closes after it.
	scaler, err := frugal.NewLossScaler(nil)
	if err != nil {
		return "", err
	}
	defer scaler.Close()
	if err := stepScaler(scaler, 3); err != nil {
		return "", err
	}
	wantScaler, err := scaler.Status()
	if err != nil {
		return "", err
	}

	// Deferred after the tensors, so it closes before them.
	engine, err := frugal.NewCkptEngine(store, nil)
	if err != nil {
		return "", err
	}
	defer engine.Close()
	if err := engine.Register("weights", weights, 0); err != nil {
		return "", err
	}
	if err := engine.Register("cursor", cursor, 0); err != nil {
		return "", err
	}
	if err := engine.RegisterLossScaler("loss_scaler", scaler, 0); err != nil {
		return "", err
	}
	saved, err := engine.Save(frugal.CkptFull, 100, []byte("step=100"), frugal.SaveWait)
	if err != nil {
		return "", err
	}

	zero(weights.Tensor().Bytes())
	zero(cursor.Tensor().Bytes())
	if err := stepScaler(scaler, 5); err != nil {
		return "", err
	}
	info, metadata, err := engine.Restore("", frugal.CkptAllKinds)
	if err != nil {
		return "", err
	}
	if info.Name != saved.Name || info.Step != 100 {
		return "", mismatch("checkpoint: restored %q of step %d; the save named %q of step 100", info.Name, info.Step, saved.Name)
	}
	if !bytes.Equal(weights.Tensor().Bytes(), wantWeights) {
		return "", mismatch("checkpoint: the weights did not come back byte for byte")
	}
	if !bytes.Equal(cursor.Tensor().Bytes(), wantCursor) {
		return "", mismatch("checkpoint: the cursor came back as %v, not [1 2 3 4]", cursor.Tensor().Int64s())
	}
	if string(metadata) != "step=100" {
		return "", mismatch("checkpoint: the metadata came back as %q, not \"step=100\"", metadata)
	}
	if len(info.NotRestored) != 0 {
		return "", mismatch("checkpoint: the restore left %v as they were", info.NotRestored)
	}
	gotScaler, err := scaler.Status()
	if err != nil {
		return "", err
	}
	if gotScaler != wantScaler {
		return "", mismatch("checkpoint: the loss scaler came back as %+v; saved %+v", gotScaler, wantScaler)
	}
	return fmt.Sprintf("checkpoint: saved and restored %s: step %d, %d tensor bytes back, metadata %q, loss scale %g",
		info.Name, info.Step, len(wantWeights)+len(wantCursor), metadata, gotScaler.Scale), nil
}

// Two overflows, then clean steps: the scaler's scale and counters move.
func stepScaler(s *frugal.LossScaler, steps int) error {
	for i := 0; i < steps; i++ {
		if _, err := s.Update(i < 2); err != nil {
			return err
		}
	}
	return nil
}

func zero(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
