"""`frugal ckpt ...` run as a user runs it: checkpoints made by `frugal ckpt
bench --keep` (real saves through the engine and the fs store), then
listed, verified, inspected, damaged and collected through the CLI."""
import json
import os
import subprocess
import tempfile
import unittest

CLI = os.environ["FRUGAL_CLI"]


def run(args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
    env.update(env_extra or {})
    return subprocess.run([CLI] + args, capture_output=True, text=True, env=env, timeout=120)


def ckpt(*args):
    return run(["ckpt"] + [str(a) for a in args])


def ok_json(test, result):
    test.assertEqual(result.returncode, 0, result.stderr)
    return json.loads(result.stdout)


def make_checkpoints(test, root, heartbeats=3, fulls=1, size="1M", extra=()):
    """`heartbeats` heartbeat checkpoints (steps 1..n), then `fulls` full ones."""
    for kind, count in (("heartbeat", heartbeats), ("full", fulls)):
        if count:
            result = ckpt("bench", root, "--size", size, "--kind", kind, "--count", count, "--keep", *extra)
            test.assertEqual(result.returncode, 0, result.stderr)


def listing(test, root, *extra):
    return ok_json(test, ckpt("ls", root, "--json", *extra))["checkpoints"]


def flip_byte(path, offset=100):
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0xFF]))


class CkptCliTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self._tmp.name, "store")

    def tearDown(self):
        self._tmp.cleanup()

    def test_ls_lists_every_checkpoint_newest_first_with_details(self):
        make_checkpoints(self, self.root)
        found = listing(self, self.root)
        self.assertEqual([c["kind"] for c in found], ["full", "heartbeat", "heartbeat", "heartbeat"])
        self.assertEqual([c["sequence"] for c in found], [4, 3, 2, 1])
        self.assertEqual([c["step"] for c in found], [4, 3, 2, 1], "steps continue across --keep runs")
        for c in found:
            self.assertEqual(c["status"], "valid")
            self.assertEqual(c["reason"], "")
            self.assertGreaterEqual(c["bytes"], 1 << 20)
            self.assertEqual(c["tensors"], 4)
            self.assertFalse(c["emergency"])
            self.assertGreater(c["created_unix_ns"], 0)
            self.assertRegex(c["created"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertRegex(found[0]["name"], r"^full-000000000004-00000004$")

        deep = ok_json(self, ckpt("ls", self.root, "--verify", "--json"))
        self.assertTrue(deep["verified_shards"])
        self.assertEqual([c["status"] for c in deep["checkpoints"]], ["valid"] * 4)

        table = ckpt("ls", self.root)
        self.assertEqual(table.returncode, 0, table.stderr)
        lines = table.stdout.splitlines()
        self.assertTrue(lines[0].startswith("NAME"))
        self.assertEqual([line.split()[0] for line in lines[1:]], [c["name"] for c in found])
        self.assertTrue(all(" valid " in line for line in lines[1:]))

    def test_ls_of_an_empty_or_missing_directory(self):
        os.makedirs(self.root)
        self.assertEqual(listing(self, self.root), [])
        self.assertIn("no checkpoints", ckpt("ls", self.root).stdout)
        missing = os.path.join(self._tmp.name, "nowhere")
        result = ckpt("ls", missing)
        self.assertEqual(result.returncode, 1)
        self.assertIn("is not a directory", result.stderr)
        self.assertFalse(os.path.exists(missing), "looking must not create a store root")

    def test_latest_picks_the_newest_valid_of_a_kind(self):
        make_checkpoints(self, self.root)
        newest = ok_json(self, ckpt("latest", self.root, "--json"))["checkpoint"]
        self.assertEqual((newest["kind"], newest["sequence"], newest["status"]), ("full", 4, "valid"))
        heartbeat = ok_json(self, ckpt("latest", self.root, "--kind", "heartbeat", "--json"))["checkpoint"]
        self.assertEqual((heartbeat["kind"], heartbeat["step"], heartbeat["sequence"]), ("heartbeat", 3, 3))
        text = ckpt("latest", self.root, "--kind", "full")
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertEqual(text.stdout.splitlines()[0], newest["name"])
        self.assertIn("status     valid", text.stdout)

    def test_latest_without_a_valid_checkpoint_exits_1_with_the_reason(self):
        os.makedirs(self.root)
        empty = ckpt("latest", self.root)
        self.assertEqual(empty.returncode, 1)
        self.assertIn("no valid checkpoint", empty.stderr)
        make_checkpoints(self, self.root, heartbeats=1, fulls=0)
        no_full = ckpt("latest", self.root, "--kind", "full", "--json")
        self.assertEqual(no_full.returncode, 1)
        reply = json.loads(no_full.stdout)
        self.assertIsNone(reply["checkpoint"])
        self.assertIn("no valid checkpoint", reply["reason"])

    def test_a_corrupted_shard_fails_verify_and_is_skipped_by_latest(self):
        make_checkpoints(self, self.root, heartbeats=3, fulls=0)
        names = [c["name"] for c in listing(self, self.root)]
        damaged, previous = names[0], names[1]
        flip_byte(os.path.join(self.root, damaged, "shard-00000"))

        every = ckpt("verify", self.root)
        self.assertEqual(every.returncode, 1)
        self.assertIn(damaged, every.stderr)
        self.assertIn("checksum", every.stderr)
        self.assertNotIn(previous, every.stderr)
        row = [line for line in every.stdout.splitlines() if line.startswith(damaged)]
        self.assertEqual(len(row), 1)
        self.assertIn("corrupt", row[0])
        self.assertIn("checksum", row[0])
        self.assertIn("3 checked: 2 valid, 1 failed", every.stdout)

        report = json.loads(ckpt("verify", self.root, "--json").stdout)
        self.assertEqual((report["checked"], report["failed"]), (3, 1))
        by_name = {c["name"]: c for c in report["checkpoints"]}
        self.assertEqual(by_name[damaged]["status"], "corrupt")
        self.assertIn("fails its checksum", by_name[damaged]["reason"])
        self.assertEqual(by_name[previous]["status"], "valid")

        self.assertEqual(ckpt("verify", self.root, previous, names[2]).returncode, 0)
        named = ckpt("verify", self.root, previous, damaged)
        self.assertEqual(named.returncode, 1)
        self.assertIn(damaged, named.stderr)
        self.assertIn("checksum", named.stderr)

        latest = ckpt("latest", self.root, "--json")
        self.assertEqual(latest.returncode, 0, latest.stderr)
        self.assertEqual(json.loads(latest.stdout)["checkpoint"]["name"], previous)
        self.assertIn(damaged, latest.stderr, "skipping a newer checkpoint is logged with the reason")

        # The manifest alone still looks fine; reading the shards does not.
        shallow = {c["name"]: c["status"] for c in listing(self, self.root)}
        deep = {c["name"]: c["status"] for c in listing(self, self.root, "--verify")}
        self.assertEqual((shallow[damaged], deep[damaged]), ("valid", "corrupt"))

        # Retention goes by manifests and would keep the damaged checkpoint
        # in place of intact ones: gc refuses and removes nothing.
        gc = ckpt("gc", self.root, "--keep-heartbeats", "1")
        self.assertEqual(gc.returncode, 1)
        self.assertIn(damaged, gc.stderr)
        self.assertEqual(len(listing(self, self.root)), 3)

    def test_verify_names_unknown_checkpoints(self):
        make_checkpoints(self, self.root, heartbeats=1, fulls=0)
        result = ckpt("verify", self.root, "hb-000000000009-00000009", "--json")
        self.assertEqual(result.returncode, 1)
        report = json.loads(result.stdout)
        self.assertEqual(report["checkpoints"][0]["status"], "not-found")
        self.assertIn("hb-000000000009-00000009", result.stderr)
        self.assertEqual(ckpt("verify", self.root, "not-a-checkpoint-name").returncode, 1)

    def test_inspect_prints_the_manifest(self):
        make_checkpoints(self, self.root, heartbeats=1, fulls=0, size="4099")
        name = listing(self, self.root)[0]["name"]
        result = ckpt("inspect", self.root, name)
        self.assertEqual(result.returncode, 0, result.stderr)
        manifest = json.loads(result.stdout)
        self.assertEqual((manifest["name"], manifest["kind"], manifest["step"]), (name, "heartbeat", 1))
        self.assertEqual(sum(s["size"] for s in manifest["shards"]), 4099)
        self.assertEqual(sum(t["bytes"] for t in manifest["tensors"]), 4099)
        self.assertEqual(manifest["tensors"][-1]["dtype"], "uint8", "the bytes past the last float32")
        self.assertTrue(all(t["dtype"] == "float32" for t in manifest["tensors"][:-1]))
        missing = ckpt("inspect", self.root, "hb-000000000009-00000009")
        self.assertEqual(missing.returncode, 1)
        self.assertIn("hb-000000000009-00000009", missing.stderr)

    def test_gc_applies_retention(self):
        make_checkpoints(self, self.root, heartbeats=3, fulls=2)
        self.assertEqual(len(listing(self, self.root)), 5)
        reply = ok_json(self, ckpt("gc", self.root, "--keep-heartbeats", "1", "--keep-full", "1", "--json"))
        self.assertEqual((reply["removed"], reply["keep_heartbeats"], reply["keep_full"]), (3, 1, 1))
        left = listing(self, self.root)
        self.assertEqual([(c["kind"], c["sequence"]) for c in left], [("full", 5), ("heartbeat", 3)])
        again = ckpt("gc", self.root)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("removed 0 checkpoints", again.stdout)

    def test_prefix_selects_the_engine_prefix(self):
        make_checkpoints(self, self.root, heartbeats=2, fulls=0, extra=("--prefix", "jobA"))
        self.assertEqual(listing(self, self.root), [])
        self.assertEqual(len(listing(self, self.root, "--prefix", "jobA")), 2)
        self.assertTrue(os.path.isdir(os.path.join(self.root, "jobA")))
        latest = ok_json(self, ckpt("latest", self.root, "--prefix", "jobA", "--json"))
        self.assertEqual(latest["prefix"], "jobA")
        self.assertEqual(latest["checkpoint"]["step"], 2)

    def test_bench_json_reports_the_engine_against_its_baselines_and_cleans_up(self):
        result = ckpt("bench", self.root, "--size", "1MiB", "--kind", "full", "--count", "3", "--json")
        report = ok_json(self, result)
        self.assertEqual((report["size_bytes"], report["count"], report["kind"]), (1 << 20, 3, "full"))
        for key in ("snapshot_seconds_median", "snapshot_seconds_max", "memcpy_seconds_median", "stall_ratio",
                    "persist_bytes_per_second_median", "raw_write_bytes_per_second_median", "persist_ratio"):
            self.assertIsInstance(report[key], (int, float), key)
            self.assertGreater(report[key], 0, key)
        for key in ("snapshot_seconds", "memcpy_seconds", "persist_seconds", "raw_write_seconds"):
            self.assertEqual(len(report[key]), 3, key)
        self.assertGreaterEqual(report["snapshot_seconds_max"], report["snapshot_seconds_median"])
        self.assertIsInstance(report["stall_target_met"], bool)
        self.assertIsInstance(report["persist_target_met"], bool)
        self.assertEqual(len(report["checkpoints"]), 3)
        self.assertEqual(report["kept"], [])
        self.assertFalse(os.path.exists(self.root), "the bench removes the scratch directory it created")

        os.makedirs(self.root)
        table = ckpt("bench", self.root, "--size", "64K", "--count", "2")
        self.assertEqual(table.returncode, 0, table.stderr)
        self.assertIn("snapshot stall", table.stdout)
        self.assertIn("raw write", table.stdout)
        self.assertEqual(os.listdir(self.root), [], "a directory that existed is left, empty")

    def test_bench_refuses_a_directory_holding_checkpoints(self):
        make_checkpoints(self, self.root, heartbeats=1, fulls=0)
        before = listing(self, self.root)
        result = ckpt("bench", self.root, "--size", "64K", "--count", "3")
        self.assertEqual(result.returncode, 1)
        self.assertIn("already holds 1 checkpoint", result.stderr)
        self.assertEqual(listing(self, self.root), before)

    def test_usage_errors_exit_2(self):
        cases = [
            (["ckpt"], "usage"),
            (["ckpt", "frobnicate", self.root], "unknown subcommand"),
            (["ckpt", "ls"], "needs DIR"),
            (["ckpt", "ls", self.root, "--yaml"], "unknown argument '--yaml'"),
            (["ckpt", "latest", self.root, "--kind", "weekly"], "--kind"),
            (["ckpt", "inspect", self.root], "NAME"),
            (["ckpt", "gc", self.root, "--keep-full", "0"], "--keep-full"),
            (["ckpt", "bench", self.root], "--size"),
            (["ckpt", "bench", self.root, "--size", "12Q"], "--size '12Q'"),
            (["ckpt", "bench", self.root, "--size", "0"], "--size '0'"),
            (["ckpt", "bench", self.root, "--size", "1M", "--count", "0"], "--count"),
            (["ckpt", "bench", self.root, "--size", "1M", "--kind", "both"], "--kind"),
            (["ckpt", "bench", self.root, "--size", "1M", "--fast"], "unknown argument '--fast'"),
            (["ckpt", "bench", self.root, "--size"], "needs a value"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                result = run(args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)
        self.assertFalse(os.path.exists(self.root), "a usage error touches nothing")
        self.assertEqual(ckpt("help").returncode, 0)
        self.assertIn("ckpt ", run(["help"]).stdout)


if __name__ == "__main__":
    unittest.main()
