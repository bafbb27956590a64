"""The Python binding across ranks, run under mpirun by ctest (tests/core/comm,
comm_mpi.python_ranks_N). Each rank checks every collective against values
it computes itself, then prints "rank R: ok"; any failure exits non-zero,
which fails the mpirun.

    mpirun -np 3 /usr/bin/python3 sdk/python/tests/mpi_ranks.py
"""

import sys

from support import context, frugal, numpy as np


def main():
    with frugal.Comm(context(), "mpi", check_calls=True) as world:
        rank, size = world.rank, world.size
        world.set_timeout(60000)
        # all_reduce: sum, max and min of values every rank can compute.
        x = np.arange(10, dtype=np.float64) + rank
        world.all_reduce(x)
        expected = size * np.arange(10, dtype=np.float64) + size * (size - 1) / 2
        np.testing.assert_array_equal(x, expected)
        ints = np.array([rank, -rank], dtype=np.int32)
        world.all_reduce(ints, op=frugal.ReduceOp.MAX)
        np.testing.assert_array_equal(ints, [size - 1, 0])
        # broadcast from the last rank.
        b = np.full(4, float(rank), dtype=np.float32)
        world.broadcast(b, root=size - 1)
        np.testing.assert_array_equal(b, np.full(4, size - 1, np.float32))
        # all_gather_v: rank r sends r + 1 elements of value r.
        counts = [r + 1 for r in range(size)]
        gathered = np.zeros(sum(counts), dtype=np.int64)
        world.all_gather_v(np.full(rank + 1, rank, dtype=np.int64), gathered, counts)
        np.testing.assert_array_equal(gathered, np.repeat(np.arange(size), counts))
        # all_to_all_v: rank r sends (r + p) % 3 elements to peer p (zeros included),
        # each of value 100 r + p.
        send_counts = [(rank + p) % 3 for p in range(size)]
        recv_counts = [(q + rank) % 3 for q in range(size)]
        send = np.concatenate([np.full(c, 100 * rank + p, np.float32) for p, c in enumerate(send_counts)] +
                              [np.zeros(0, np.float32)])
        recv = np.full(sum(recv_counts), -1.0, dtype=np.float32)
        world.all_to_all_v(send, send_counts, recv, recv_counts)
        want = np.concatenate([np.full(c, 100 * q + rank, np.float32) for q, c in enumerate(recv_counts)] +
                              [np.zeros(0, np.float32)])
        np.testing.assert_array_equal(recv, want)
        # reduce_scatter: block r of the sum.
        block = np.zeros(2, dtype=np.float32)
        world.reduce_scatter(np.arange(2 * size, dtype=np.float32), block)
        np.testing.assert_array_equal(block, size * np.arange(2 * rank, 2 * rank + 2, dtype=np.float32))
        # split into even and odd ranks.
        with world.split(rank % 2, key=-rank) as half:
            members = (size + 1 - rank % 2) // 2
            self_check = np.ones(1, dtype=np.float32)
            half.all_reduce(self_check)
            if half.size != members or self_check[0] != members or half.rank != (members - 1 - rank // 2):
                raise AssertionError(f"split: rank {rank} got rank {half.rank} of {half.size}")
        world.barrier()
        print(f"rank {rank}: ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
