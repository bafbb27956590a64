"""`frugal-conformance --json` on the built-in communicators (comm_local, and
comm_mpi where it is built, run as one process: a group of one): the comm
kind has checks of its own, and each of its rules is present and passes."""
import json
import os
import subprocess
import unittest

KIT = os.environ["FRUGAL_CONFORMANCE"]
# Every rule of the comm kind's checks (sdk/conformance/check_comm.cpp) that
# runs on a conforming comm of one rank in host memory.
COMM_RULES = {
    "core",
    "core-collectives",
    "core-split",
    "core-timeout",
    "comm-info",
    "comm-collectives",
    "comm-split",
    "struct-size",
    "null-arguments",
    "invalid-arguments",
}
OPS = ["all_reduce", "broadcast", "all_gather", "all_gather_v", "reduce_scatter", "all_to_all", "all_to_all_v",
       "barrier"]


def report(plugin):
    result = subprocess.run([KIT, "--json", plugin], capture_output=True, timeout=240)
    return result.returncode, json.loads(result.stdout), result.stderr.decode(errors="replace")


class KitCommTest(unittest.TestCase):
    def check_comm_plugin(self, plugin, strategy):
        rc, out, stderr = report(plugin)
        failed = [r for r in out["results"] if r["status"] == "fail"]
        self.assertEqual(failed, [], stderr)
        self.assertEqual(rc, 0, stderr)
        self.assertIs(out["pass"], True)
        mine = [r for r in out["results"] if r["strategy"] == strategy]
        # Checked, not skipped as a kind without checks.
        self.assertNotIn("kind", {r["rule"] for r in mine})
        self.assertFalse(any("has no checks" in r["message"] for r in mine), mine)
        passed = {r["rule"] for r in mine if r["status"] == "pass"}
        self.assertLessEqual(COMM_RULES, passed, sorted(COMM_RULES - passed))
        # One verdict per collective, on each path, every one a pass.
        for rule, prefix in (("core-collectives", "frugal_comm_"), ("comm-collectives", "run: ")):
            lines = [r for r in mine if r["rule"] == rule]
            self.assertEqual({r["status"] for r in lines}, {"pass"}, lines)
            self.assertEqual([r["message"].split(",", 1)[0] for r in lines], [prefix + op for op in OPS])

    def test_comm_local(self):
        self.check_comm_plugin(os.environ["FRUGAL_COMM_LOCAL"], "comm_local/local")

    def test_comm_mpi_as_a_group_of_one(self):
        plugin = os.environ.get("FRUGAL_COMM_MPI", "")
        if not plugin:
            self.skipTest("comm_mpi is not built (MPI not found)")
        self.check_comm_plugin(plugin, "comm_mpi/mpi")


if __name__ == "__main__":
    unittest.main()
