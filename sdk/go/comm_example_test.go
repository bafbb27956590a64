package frugal_test

import (
	"fmt"

	frugal "frugal.invalid/sdk/go"
)

// A data-parallel gradient sum, written once for any group: on "local" (a
// group of one, as here) the sum is the input; under mpirun with "mpi" the
// same code sums over every rank.
func ExampleComm_AllReduce() {
	ctx, err := frugal.NewContext()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	if _, err := ctx.DiscoverPlugins(frugal.DiscoverNoEnv); err != nil {
		fmt.Println(err)
		return
	}
	world, err := frugal.NewComm(ctx, "local", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer world.Close()
	grads := []float32{0.5, -1, 2}
	// The zero Tensor as recv sums in place.
	if err := world.AllReduce(frugal.Float32s(grads), frugal.Tensor{}, frugal.ReduceSum); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("rank %d of %d: %v\n", world.Rank(), world.Size(), grads)
	// Output: rank 0 of 1: [0.5 -1 2]
}
