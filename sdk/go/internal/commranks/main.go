// Command commranks checks the Go binding's collectives across ranks, on
// the "mpi" backend: started by mpirun (comm_mpi_test.go runs it at 2 and
// 3 ranks), every rank checks each collective against values it computes
// itself (checks.go), prints "rank R of N: ok" and exits 0. The first
// mismatch is printed to stderr and exits 1, which fails the mpirun.
//
//	go build -o /tmp/commranks ./internal/commranks
//	mpirun -np 3 /tmp/commranks
package main

/*
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"time"

	frugal "frugal.invalid/sdk/go"
)

// MPI is initialised by the first comm and finalised at exit: keeping the
// main goroutine on the main thread makes every MPI call, finalisation
// included, come from one thread, whatever thread level MPI provides.
func init() { runtime.LockOSThread() }

func main() {
	rank, size, err := run()
	if err != nil {
		fmt.Fprintf(os.Stderr, "rank %d of %d: %v\n", rank, size, err)
		// Leave at once, without MPI_Finalize: it would wait for peers that
		// are blocked in a collective this rank will never join, while an
		// exit without it makes mpirun end the whole job.
		os.Exit(1)
	}
	fmt.Printf("rank %d of %d: ok\n", rank, size)
	// comm_mpi finalises MPI in a C atexit handler, which Go's own exit
	// never runs; mpirun counts a rank that leaves MPI unfinalised as
	// failed. C's exit runs it.
	C.exit(0)
}

// run joins the world, runs every check and returns the first failure.
func run() (rank, size int, err error) {
	ctx, err := frugal.NewContext()
	if err != nil {
		return -1, 0, err
	}
	defer ctx.Close()
	if _, err := ctx.DiscoverPlugins(frugal.DiscoverNoEnv); err != nil {
		return -1, 0, err
	}
	opts, err := frugal.NewOptions()
	if err != nil {
		return -1, 0, err
	}
	defer opts.Close()
	// Every rank checks that the others make the same call, so a binding
	// that sent different counts on different ranks fails by name.
	if err := opts.SetBool("check_calls", true); err != nil {
		return -1, 0, err
	}
	world, err := frugal.NewComm(ctx, "mpi", opts)
	if err != nil {
		return -1, 0, err
	}
	defer world.Close()
	rank, size = world.Rank(), world.Size()
	if err := world.SetTimeout(60 * time.Second); err != nil {
		return rank, size, err
	}
	for _, c := range checks {
		if err := c.run(world); err != nil {
			return rank, size, fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return rank, size, world.Barrier()
}
