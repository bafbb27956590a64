package main

import (
	"fmt"

	frugal "frugal.invalid/sdk/go"
)

// checkSplit splits the world into even and odd ranks ranked by -rank
// (so in reverse), then into everyone but the last rank, which passes
// ColorNone and must get no comm.
func checkSplit(w *frugal.Comm) error {
	size, rank := w.Size(), w.Rank()
	half, err := w.Split(rank%2, -rank)
	if err != nil {
		return err
	}
	defer half.Close()
	members := (size + 1 - rank%2) / 2
	if half.Size() != members || half.Rank() != members-1-rank/2 {
		return fmt.Errorf("rank %d is rank %d of %d in its half, want %d of %d", rank, half.Rank(), half.Size(),
			members-1-rank/2, members)
	}
	// A sum over the half counts its members and adds their world ranks.
	sum := []int64{1, int64(rank)}
	if err := half.AllReduce(frugal.Int64s(sum), frugal.Tensor{}, frugal.ReduceSum); err != nil {
		return err
	}
	var ranks int64
	for r := rank % 2; r < size; r += 2 {
		ranks += int64(r)
	}
	if err := equal("sum over the half", sum, []int64{int64(members), ranks}); err != nil {
		return err
	}
	color := 0
	if rank == size-1 {
		color = frugal.ColorNone
	}
	rest, err := w.Split(color, 0)
	if err != nil {
		return err
	}
	if rank == size-1 {
		if rest != nil {
			return fmt.Errorf("ColorNone gave a comm of %d ranks", rest.Size())
		}
		return nil
	}
	defer rest.Close()
	if rest.Size() != size-1 || rest.Rank() != rank {
		return fmt.Errorf("without the last rank: rank %d of %d, want %d of %d", rest.Rank(), rest.Size(), rank, size-1)
	}
	return rest.Barrier()
}
