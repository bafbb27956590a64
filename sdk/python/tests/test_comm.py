"""Communicators on the `local` backend (a group of one): every collective
against numpy, the core's call checks as FrugalError, split, timeouts, a
comm as an option. The same binding across ranks: tests/core/comm
(comm_mpi.python_ranks_2, run under mpirun)."""

import unittest

from support import NO_NUMPY, NO_TORCH, Lcg, context, frugal, numpy as np, torch


@unittest.skipIf(np is None, NO_NUMPY)
class LocalCommTest(unittest.TestCase):
    def setUp(self):
        self.comm = frugal.Comm(context(), "local")
        self.addCleanup(self.comm.close)
        self.x = Lcg(7).floats(64, scale=5.0).astype(np.float32)

    def expect_error(self, code, words, fn, *args, **kwargs):
        with self.assertRaises(frugal.FrugalError) as caught:
            fn(*args, **kwargs)
        self.assertEqual(caught.exception.code, code, caught.exception.message)
        for word in words:
            self.assertIn(word, caught.exception.message)

    def test_a_group_of_one_on_the_cpu(self):
        self.assertEqual((self.comm.rank, self.comm.size, self.comm.device_type), (0, 1, 1))

    def test_all_reduce_into_recv_and_in_place(self):
        out = np.full_like(self.x, -1.0)
        self.assertIs(self.comm.all_reduce(self.x, out), out)
        np.testing.assert_array_equal(out, self.x)
        ints = np.arange(-5, 5, dtype=np.int64)
        before = ints.copy()
        self.comm.all_reduce(ints, op=frugal.ReduceOp.MAX)
        np.testing.assert_array_equal(ints, before)

    def test_uint8_has_max_and_min_but_no_sum(self):
        codes = np.arange(16, dtype=np.uint8)
        self.comm.all_reduce(codes, op=frugal.ReduceOp.MIN)
        np.testing.assert_array_equal(codes, np.arange(16, dtype=np.uint8))
        self.expect_error(frugal.ErrorCode.UNSUPPORTED, ["all_reduce", "uint8"], self.comm.all_reduce, codes)

    def test_gather_scatter_and_all_to_all_of_one_rank_copy(self):
        for method in (self.comm.all_gather, self.comm.all_to_all):
            out = np.zeros_like(self.x)
            method(self.x, out)
            np.testing.assert_array_equal(out, self.x)
        out = np.zeros_like(self.x)
        self.comm.reduce_scatter(self.x, out)
        np.testing.assert_array_equal(out, self.x)
        buffer = self.x.copy()
        self.comm.broadcast(buffer, root=0)
        np.testing.assert_array_equal(buffer, self.x)
        self.comm.barrier()

    def test_v_collectives_honour_counts_and_displacements(self):
        recv = np.full(8, 99.0, dtype=np.float32)
        self.comm.all_to_all_v(self.x[:8], [3], recv, [3], send_displs=[4], recv_displs=[2])
        np.testing.assert_array_equal(recv[2:5], self.x[4:7])
        np.testing.assert_array_equal(np.delete(recv, [2, 3, 4]), np.full(5, 99.0, np.float32))  # untouched
        empty = np.full(4, 7.0, dtype=np.float32)
        self.comm.all_to_all_v(self.x[:0], [0], empty, [0])  # zero counts are allowed
        np.testing.assert_array_equal(empty, np.full(4, 7.0, np.float32))
        gathered = np.zeros(6, dtype=np.float32)
        self.comm.all_gather_v(self.x[:6], gathered, [6])
        np.testing.assert_array_equal(gathered, self.x[:6])

    def test_the_core_names_a_bad_call(self):
        self.expect_error(frugal.ErrorCode.INVALID_ARGUMENT, ["all_reduce", "dtype"], self.comm.all_reduce, self.x,
                          np.zeros(64, dtype=np.float64))
        self.expect_error(frugal.ErrorCode.OUT_OF_RANGE, ["all_to_all_v"], self.comm.all_to_all_v, self.x[:4], [5],
                          np.zeros(8, np.float32), [5])
        self.expect_error(frugal.ErrorCode.OUT_OF_RANGE, ["broadcast", "root"], self.comm.broadcast, self.x.copy(), 1)
        with self.assertRaises(ValueError):
            self.comm.all_to_all_v(self.x, [1, 2], np.zeros(4, np.float32), [3])  # two counts for one rank
        read_only = np.zeros(64, np.float32)
        read_only.setflags(write=False)
        with self.assertRaises(ValueError):  # frugal would write into it
            self.comm.all_reduce(self.x, read_only)

    def test_split_and_timeout(self):
        self.assertIsNone(self.comm.split(frugal.COLOR_NONE))
        with self.comm.split(3, key=9) as sub:
            self.assertEqual((sub.rank, sub.size), (0, 1))
            out = np.zeros_like(self.x)
            sub.all_reduce(self.x, out)
            np.testing.assert_array_equal(out, self.x)
        self.expect_error(frugal.ErrorCode.INVALID_ARGUMENT, ["timeout_ms"], self.comm.set_timeout, 0)
        self.comm.set_timeout(1000)

    def test_a_comm_is_an_option_and_outlives_the_handle(self):
        with frugal.Options(comm=self.comm) as options:
            self.assertEqual(options.type_of("comm"), frugal.OptionType.COMM)
            self.comm.close()  # the options still hold it
            self.assertEqual(options.type_of("comm"), frugal.OptionType.COMM)

    def test_an_unknown_backend_is_named(self):
        self.expect_error(frugal.ErrorCode.NOT_FOUND, ["no_such_backend"], frugal.Comm, context(), "no_such_backend")


@unittest.skipIf(torch is None, NO_TORCH)
class TorchCommTest(unittest.TestCase):
    def test_torch_tensors_in_place(self):
        with frugal.Comm(context(), "local") as comm:
            t = torch.arange(12, dtype=torch.float32)
            comm.all_reduce(t)
            self.assertTrue(torch.equal(t, torch.arange(12, dtype=torch.float32)))
            out = torch.zeros(12, dtype=torch.bfloat16)
            comm.all_gather(torch.arange(12, dtype=torch.bfloat16), out)
            self.assertTrue(torch.equal(out, torch.arange(12, dtype=torch.bfloat16)))


if __name__ == "__main__":
    unittest.main()
