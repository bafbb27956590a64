package frugal

/*
#include "frugal/checkpoint.h"
*/
import "C"

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Preemption notices. libfrugal keeps one process-wide flag: set by a
// notice (PreemptionNotify, or WatchPreemptionSignals on a signal), polled
// by the training loop at a step boundary (PreemptionPending), which then
// calls CkptEngine.EmergencySave and exits; a job of several ranks polls
// CkptEngine.PreemptionAgree instead (ABI 2.3), so that a notice on any
// rank makes every rank take it at the same step. The flag is an atomic:
// these functions are safe from any goroutine.
//
// libfrugal's own SIGTERM helper (frugal_preemption_install_sigterm) is
// deliberately not wrapped. It installs a C handler with sigaction
// (SA_ONSTACK, as the Go runtime requires of non-Go handlers), but that
// handler replaces the Go runtime's own for SIGTERM, which would silently
// break os/signal.Notify for SIGTERM in the rest of the program.
// frugal_preemption_uninstall_sigterm is left out with it. Go programs
// receive the signal the Go way instead: WatchPreemptionSignals (or
// os/signal.Notify plus PreemptionNotify) records the same flag.

// PreemptionNotify records a preemption notice learnt another way (a cloud
// metadata poll, a signal received through os/signal).
func PreemptionNotify() { C.frugal_preemption_notify() }

// PreemptionPending reports whether a notice was recorded and not cleared.
func PreemptionPending() bool { return C.frugal_preemption_pending() != 0 }

// PreemptionClear clears a recorded notice.
func PreemptionClear() { C.frugal_preemption_clear() }

// WatchPreemptionSignals records a preemption notice whenever one of sigs
// (none: SIGTERM) arrives, through os/signal: the signals no longer
// terminate the process, as with libfrugal's C helper. stop ends the watch
// and restores the signals' previous behaviour (as signal.Stop does); it
// is idempotent and waits for the watching goroutine to finish.
func WatchPreemptionSignals(sigs ...os.Signal) (stop func()) {
	if len(sigs) == 0 {
		sigs = []os.Signal{syscall.SIGTERM}
	}
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	finished := make(chan struct{})
	signal.Notify(ch, sigs...)
	go func() {
		defer close(finished)
		for {
			select {
			case <-ch:
				PreemptionNotify()
			case <-done:
				// A signal that arrived before signal.Stop still counts.
				select {
				case <-ch:
					PreemptionNotify()
				default:
				}
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			<-finished
		})
	}
}
