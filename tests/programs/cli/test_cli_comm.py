"""`frugal comm test` as a user runs it: on the local backend (one rank),
and under mpirun at 2 and 3 ranks when MPIEXEC is given: every check
passes on every rank, the bandwidth table has each op at each size, and
busbw is algbw times the op's nccl-tests factor. Bad usage is refused."""
import json
import os
import subprocess
import unittest

CLI = os.environ["FRUGAL_CLI"]
MPIEXEC = os.environ.get("FRUGAL_MPIEXEC", "").split(";") if os.environ.get("FRUGAL_MPIEXEC") else []
OPS = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"]
# 6 float dtypes and ints x (sum, max, min), uint8 x (max, min), then 7 more ops.
CHECKS = 6 * 3 + 2 + 7


def run(args, launcher=()):
    return subprocess.run(list(launcher) + [CLI] + args, capture_output=True, text=True, timeout=240)


def bus_factor(op, ranks):
    if op == "all_reduce":
        return 2.0 * (ranks - 1) / ranks
    return 1.0 if op == "broadcast" else (ranks - 1) / ranks


class CommTestCommand(unittest.TestCase):
    def check_report(self, result, ranks, sizes):
        self.assertEqual(result.returncode, 0, result.stderr)
        report = json.loads(result.stdout)  # rank 0 alone prints
        self.assertEqual((report["ranks"], report["passed"]), (ranks, True))
        self.assertEqual(len(report["checks"]), CHECKS)
        self.assertTrue(all(c["passed"] for c in report["checks"]), report["checks"])
        self.assertIn({"op": "all_reduce sum", "dtype": "bfloat16", "passed": True}, report["checks"])
        rows = report["bandwidth"]
        self.assertEqual([(r["op"]) for r in rows], [op for op in OPS for _ in sizes])
        for r in rows:
            with self.subTest(row=r):
                # float32 elements, a multiple of the rank count, at most the size asked for
                self.assertEqual(r["bytes"] % (4 * ranks), 0)
                self.assertLessEqual(r["bytes"], sizes[rows.index(r) % len(sizes)])
                self.assertGreater(r["time_us"], 0)
                self.assertAlmostEqual(r["algbw_gbps"], r["bytes"] / (r["time_us"] * 1e-6) / 1e9, delta=1e-6 * r["algbw_gbps"])
                self.assertAlmostEqual(r["busbw_gbps"], r["algbw_gbps"] * bus_factor(r["op"], ranks),
                                       delta=1e-9 + 1e-9 * r["busbw_gbps"])

    def test_local_backend_passes_every_check(self):
        result = run(["comm", "test", "--backend", "local", "--max-bytes", "4096", "--iters", "3", "--json"])
        self.check_report(result, 1, [1024, 4096])

    def test_table_output_names_the_checks(self):
        result = run(["comm", "test", "--backend", "local", "--no-bandwidth"])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"checks: {CHECKS} of {CHECKS} passed", result.stdout)
        self.assertNotIn("busbw", result.stdout)

    @unittest.skipUnless(MPIEXEC, "FRUGAL_MPIEXEC not set (no comm_mpi in this build)")
    def test_under_mpirun(self):
        for ranks in (2, 3):
            with self.subTest(ranks=ranks):
                result = run(["comm", "test", "--min-bytes", "256", "--max-bytes", "4096", "--iters", "3", "--json"],
                             MPIEXEC + ["-np", str(ranks)])
                self.check_report(result, ranks, [256, 1024, 4096])

    def test_bad_usage_and_unknown_backend(self):
        for args, words in ((["comm"], "needs a subcommand: test"),
                            (["comm", "probe"], "unknown subcommand 'probe'"),
                            (["comm", "test", "--min-bytes", "8192", "--max-bytes", "1024"],
                             "--min-bytes (8192) is more than --max-bytes (1024)"),
                            (["comm", "test", "--iters", "0"], "--iters")):
            with self.subTest(args=args):
                result = run(args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(words, result.stderr)
        missing = run(["comm", "test", "--backend", "no_such_backend"])
        self.assertEqual(missing.returncode, 1, missing.stderr)
        self.assertIn("no_such_backend", missing.stderr)


if __name__ == "__main__":
    unittest.main()
