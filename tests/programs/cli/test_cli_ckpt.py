"""`frugal ckpt ...` run as a user runs it: checkpoints made by `frugal ckpt
bench --keep` (real saves through the engine and the fs store), then
listed, verified, inspected, damaged and collected through the CLI, also
while a saver keeps writing into the store."""
import ctypes
import ctypes.util
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import unittest

CLI = os.environ["FRUGAL_CLI"]
# mpirun and its flags (";"-separated), where the build has comm_mpi.
MPIEXEC = os.environ["FRUGAL_MPIEXEC"].split(";") if os.environ.get("FRUGAL_MPIEXEC") else []
# The Python binding of this source tree, for checkpoints with registered
# states (FRUGAL_LIB, set by the test, names the libfrugal it loads).
PYTHON_BINDING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "sdk", "python")


def run(args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
    env.update(env_extra or {})
    return subprocess.run([CLI] + args, capture_output=True, text=True, env=env, timeout=120)


def ckpt(*args):
    return run(["ckpt"] + [str(a) for a in args])


def ckpt_bytes(*args):
    """As ckpt, with stdout and stderr as bytes: what reached the terminal, undecoded."""
    env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
    return subprocess.run([CLI, "ckpt"] + [str(a) for a in args], capture_output=True, env=env, timeout=120)


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


def xxh3_64():
    """XXH3-64 from the system's libxxhash (the build needs its header), or None."""
    path = ctypes.util.find_library("xxhash")
    if path is None:
        return None
    lib = ctypes.CDLL(path)
    lib.XXH3_64bits.restype = ctypes.c_uint64
    lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return lambda data: lib.XXH3_64bits(bytes(data), len(data))


def rewrite_manifest(path, replacements, xxh3):
    """Replaces flatbuffer strings of a manifest in place (each new value as
    long as the old one) and seals it again with a correct checksum: XXH3-64
    of the buffer with the checksum field zeroed, as the engine computes it.
    The field is found as the 8 bytes whose value is that checksum."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    field = None
    for at in range(len(data) - 7):
        zeroed = data[:at] + bytes(8) + data[at + 8:]
        if struct.unpack_from("<Q", data, at)[0] == xxh3(zeroed):
            field = at
            break
    assert field is not None, "checksum field not found"
    for old, new in replacements:
        assert len(old) == len(new), (old, new)
        encoded = struct.pack("<I", len(old)) + old + b"\0"
        at = data.find(encoded)
        assert at >= 0 and data.find(encoded, at + 1) < 0, old
        data[at + 4:at + 4 + len(old)] = new
    data[field:field + 8] = bytes(8)
    struct.pack_into("<Q", data, field, xxh3(data))
    with open(path, "wb") as f:
        f.write(data)


# Saves one full checkpoint at step 3 into the store at argv[1] through the
# Python binding, with a loss scaler and a host state (argv[2], JSON)
# registered; prints the size of the scaler's exported state.
SAVE_WITH_STATES = """
import json, sys
import frugal
root, cursor = sys.argv[1], json.loads(sys.argv[2])
with frugal.Context() as context:
    context.discover_plugins()
    with frugal.Store(context, "fs", root=root, fsync=False) as store, \\
            frugal.CheckpointEngine(store) as engine, frugal.LossScaler(init_scale=1024.0) as scaler:
        engine.register_loss_scaler("amp/scaler", scaler)
        engine.register_state("data/cursor", lambda: json.dumps(cursor).encode(),
                              lambda data: cursor.update(json.loads(data)), kinds=frugal.CheckpointKind.FULL)
        engine.save(step=3, kind=frugal.CheckpointKind.FULL, wait=True)
        print(len(scaler.export_state()))
"""


def run_with_binding(test, script, *args):
    """Runs `script` in a child Python with this tree's binding and FRUGAL_LIB's
    libfrugal; returns its stdout. In a sanitizer build the library needs the
    sanitizer's runtime loaded first (FRUGAL_TEST_PRELOAD, set by the build);
    the child alone gets it, without leak checking (the interpreter's own
    allocations at exit are not frugal's), so the CLI runs stay fully checked."""
    env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
    env["PYTHONPATH"] = PYTHON_BINDING
    preload = os.environ.get("FRUGAL_TEST_PRELOAD", "")
    if preload:
        env["LD_PRELOAD"] = preload
        # Appended: a later option wins over the run's detect_leaks=1.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    result = subprocess.run([sys.executable, "-c", script] + [str(a) for a in args],
                            capture_output=True, text=True, env=env, timeout=120)
    test.assertEqual(result.returncode, 0, result.stderr)
    return result.stdout


# Terminal control (ESC [ 31 m, BEL, DEL, C1 CSI) and invalid UTF-8 (a
# stray continuation byte, an overlong lead, a UTF-8-encoded surrogate).
HOSTILE = b"\x1b[31m\x07\x7f\xc2\x9b\x80\xc0\xaf\xed\xa0\x80"


def hostile(length):
    return (HOSTILE + b"x" * length)[:length]


def assert_terminal_safe(test, raw):
    """Valid UTF-8 with no control character but newlines."""
    text = raw.decode("utf-8")  # raises on invalid UTF-8
    bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F]
    test.assertEqual(bad, [], text)
    return text


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
            self.assertEqual(c["states"], 0, "the CLI's checkpoints hold no registered state")
            self.assertFalse(c["emergency"])
            self.assertEqual(c["world_size"], 1, "one process, no comm")
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

    @unittest.skipUnless(MPIEXEC, "FRUGAL_MPIEXEC not set (no comm_mpi in this build)")
    def test_a_sharded_store_shows_its_world_size_and_each_ranks_shards(self):
        """Three ranks save one sharded state through `frugal ckpt bench --comm
        mpi --keep`; ls, verify and inspect show the world size and each rank's
        shards, and damage to one rank's shard fails verify naming it."""
        env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
        # Open MPI's own allocations at exit are not frugal's: no leak check
        # under mpirun (appended: a later option wins); ASan still checks the rest.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        bench = subprocess.run(MPIEXEC + ["-np", "3", CLI, "ckpt", "bench", self.root, "--comm", "mpi", "--size",
                                          "1M", "--count", "2", "--shard-bytes", "65536", "--keep", "--json"],
                               capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(bench.returncode, 0, bench.stderr)
        report = json.loads(bench.stdout)  # rank 0 reports for the job
        self.assertEqual((report["ranks"], report["restore_ranks"], report["size_bytes"]), (3, 2, 1 << 20))
        self.assertEqual(len(report["persist_bytes_per_second"]), 2)
        self.assertEqual(len(report["restore_seconds_written_by_more_ranks"]), 2)
        self.assertGreater(report["persist_ratio"], 0)
        self.assertIn(report["persist_baseline"], ("raw write", "direct write"))
        if report["direct_io"]:  # N concurrent direct writes, one figure per iteration
            self.assertEqual(len(report["direct_write_bytes_per_second"]), 2)
        self.assertGreater(report["restore_ratio"], 0)

        found = listing(self, self.root)
        self.assertEqual([c["step"] for c in found], [2, 1])
        for c in found:
            self.assertEqual((c["status"], c["world_size"], c["tensors"]), ("valid", 3, 1), c)
        table = ckpt("ls", self.root).stdout.splitlines()
        at = table[0].index("RANKS")  # a right-aligned column under its header (BYTES holds spaces)
        self.assertEqual([line[at:at + len("RANKS")].strip() for line in table[1:]], ["3", "3"])

        every = ckpt("verify", self.root)
        self.assertEqual(every.returncode, 0, every.stderr)
        self.assertEqual(sum(" valid " in line and " 3 ranks" in line for line in every.stdout.splitlines()), 2)

        newest = found[0]["name"]
        manifest = ok_json(self, ckpt("inspect", self.root, newest, "--json"))
        self.assertEqual(manifest["world_size"], 3)
        self.assertEqual(sorted({s["rank"] for s in manifest["shards"]}), [0, 1, 2])
        # Every rank's slice of the 1 MiB tensor, in 64 KiB shards.
        self.assertEqual(sum(s["size"] for s in manifest["shards"]), 1 << 20)
        self.assertTrue(all(s["key"].startswith("r%05d-shard-" % s["rank"]) for s in manifest["shards"]))
        self.assertEqual(manifest["rank_metadata"], [])  # the bench's ranks save no metadata of their own
        text = ckpt("inspect", self.root, newest).stdout
        self.assertIn("world size 3", text)
        self.assertIn("own meta   - (every rank saved rank 0's)", text)

        damaged = [s["key"] for s in manifest["shards"] if s["rank"] == 2][0]
        flip_byte(os.path.join(self.root, newest, damaged))
        result = ckpt("verify", self.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn(damaged, result.stderr)
        self.assertEqual(ok_json(self, ckpt("latest", self.root, "--json"))["checkpoint"]["step"], 1)

    @unittest.skipUnless(MPIEXEC, "FRUGAL_MPIEXEC not set (no comm_mpi in this build)")
    def test_the_bench_of_ranks_refuses_a_size_the_machine_cannot_hold(self):
        """Every rank of `frugal ckpt bench --comm mpi` checks the memory and disk
        the size needs, and all stop (none waits for the others) when any refuses."""
        env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        bench = subprocess.run(MPIEXEC + ["-np", "2", CLI, "ckpt", "bench", self.root, "--comm", "mpi", "--size",
                                          "64T", "--count", "1"],
                               capture_output=True, text=True, env=env, timeout=120)
        self.assertNotEqual(bench.returncode, 0)
        self.assertIn("needs about 320.00 TiB of memory", bench.stderr)
        self.assertFalse(os.path.exists(self.root), "nothing saved, and the directory it made removed")

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
        result = ckpt("inspect", self.root, name, "--json")
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

    def test_inspect_shows_the_registered_states(self):
        """A checkpoint saved through the Python binding with a loss scaler and a
        host state registered: inspect's text lists each state (name, kinds,
        bytes, checksum) as the manifest records it."""
        cursor = {"offset": 4096}
        scaler_bytes = int(run_with_binding(self, SAVE_WITH_STATES, self.root, json.dumps(cursor)))
        name = listing(self, self.root)[0]["name"]
        manifest = ok_json(self, ckpt("inspect", self.root, name, "--json"))
        by_name = {s["name"]: s for s in manifest["states"]}
        self.assertEqual(sorted(by_name), ["amp/scaler", "data/cursor"])
        self.assertEqual(by_name["data/cursor"]["size"], len(json.dumps(cursor).encode()))

        result = ckpt("inspect", self.root, name)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], name)
        self.assertIn("  kind       full", lines)
        self.assertIn("  step       3", lines)
        self.assertIn("states (2)", lines)
        rows = {line.split()[0]: line.split() for line in lines[lines.index("states (2)") + 2:] if line.strip()}
        self.assertEqual(rows["amp/scaler"][1:],
                         ["heartbeat,full", str(by_name["amp/scaler"]["size"]), by_name["amp/scaler"]["xxh3"]])
        self.assertEqual(rows["data/cursor"][1:],
                         ["full", str(by_name["data/cursor"]["size"]), by_name["data/cursor"]["xxh3"]])
        self.assertGreater(by_name["amp/scaler"]["size"], 0)
        self.assertEqual(by_name["amp/scaler"]["size"], scaler_bytes)

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
        # The direct write baseline where the filesystem takes O_DIRECT; the
        # target is judged against the faster of the two baselines.
        if report["direct_io"]:
            self.assertEqual(len(report["direct_write_seconds"]), 3)
            faster = max(report["raw_write_bytes_per_second_median"],
                         report["direct_write_bytes_per_second_median"])
            self.assertAlmostEqual(report["persist_ratio_direct_write"],
                                   report["persist_bytes_per_second_median"]
                                   / report["direct_write_bytes_per_second_median"])
        else:
            faster = report["raw_write_bytes_per_second_median"]
            self.assertNotIn("direct_write_seconds", report)
        self.assertEqual(report["persist_baseline"],
                         "direct write" if faster != report["raw_write_bytes_per_second_median"] else "raw write")
        self.assertAlmostEqual(report["persist_ratio"], report["persist_bytes_per_second_median"] / faster)
        self.assertEqual(report["persist_target_met"], report["persist_ratio"] >= report["persist_target"])
        # Restores of the newest checkpoint (each checked byte for byte by
        # the bench) against reads of the same bytes.
        self.assertEqual(len(report["restore_seconds"]), 3)
        self.assertEqual(len(report["read_seconds"]), 3)
        self.assertIsInstance(report["read_direct"], bool)
        self.assertAlmostEqual(report["restore_read_ratio"],
                               report["read_seconds_median"] / report["restore_seconds_median"])
        self.assertEqual(report["restore_read_target_met"],
                         report["restore_read_ratio"] >= report["restore_read_target"])
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
            (["ckpt"], "needs a subcommand"),
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
                # One line naming the problem and where to read more, not the whole usage.
                self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
                self.assertRegex(result.stderr, r"see 'frugal ckpt( \w+)? --help'")
                self.assertNotIn("subcommands:", result.stderr)
                self.assertEqual(result.stdout, "")
        self.assertFalse(os.path.exists(self.root), "a usage error touches nothing")
        self.assertEqual(ckpt("help").returncode, 0)
        self.assertIn("ckpt ", run(["help"]).stdout)

    def test_every_subcommand_prints_its_usage_on_help(self):
        subcommands = ["ls", "latest", "verify", "inspect", "gc", "bench"]
        for sub in subcommands:
            for flag in ("--help", "-h"):
                with self.subTest(sub=sub, flag=flag):
                    result = ckpt(sub, flag)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    self.assertEqual(result.stderr, "")
                    self.assertIn("usage: frugal ckpt " + sub + " DIR", result.stdout)
                    for other in subcommands:
                        if other != sub:
                            self.assertNotIn("ckpt " + other + " DIR", result.stdout)
            # --help wins over whatever else is on the line, and touches nothing.
            self.assertEqual(ckpt(sub, self.root, "--bogus", "--help").returncode, 0)
        self.assertFalse(os.path.exists(self.root))
        everything = ckpt("--help")
        self.assertEqual(everything.returncode, 0)
        for sub in subcommands:
            self.assertIn("  " + sub + " DIR", everything.stdout)
        self.assertIn("exit", ckpt("verify", "--help").stdout)
        self.assertEqual(ckpt("help", "gc").stdout, ckpt("gc", "--help").stdout)

    def test_errors_under_json_are_a_json_object_on_stdout(self):
        usage = ckpt("ls", self.root, "--json", "--yaml")
        self.assertEqual(usage.returncode, 2)
        reply = json.loads(usage.stdout)
        self.assertEqual((reply["command"], reply["error"]["code"], reply["exit_code"]), ("ckpt ls", "USAGE", 2))
        self.assertIn("unknown argument '--yaml'", reply["error"]["message"])
        missing = ckpt("verify", self.root, "--json")
        self.assertEqual(missing.returncode, 1)
        reply = json.loads(missing.stdout)
        self.assertEqual((reply["command"], reply["error"]["code"], reply["exit_code"]), ("ckpt verify", "NOT_FOUND", 1))
        self.assertIn("is not a directory", reply["error"]["message"])
        self.assertIn("is not a directory", missing.stderr)
        make_checkpoints(self, self.root, heartbeats=1, fulls=0)
        inspect = ckpt("gc", self.root, "--keep-full", "x", "--json")
        self.assertEqual(inspect.returncode, 2)
        self.assertEqual(json.loads(inspect.stdout)["error"]["code"], "USAGE")

    def test_verify_is_a_health_check_of_a_running_job(self):
        """A saver keeps committing heartbeats and retention keeps removing
        them while verify runs again and again: the save in flight and the
        checkpoints removed under verify are no failures. A damaged shard of
        a committed checkpoint still is, every time."""
        make_checkpoints(self, self.root, heartbeats=0, fulls=1, size="64K")
        full = listing(self, self.root)[0]["name"]
        saver = subprocess.Popen(
            [CLI, "ckpt", "bench", self.root, "--size", "256K", "--kind", "heartbeat", "--count", "100000", "--keep",
             "--keep-heartbeats", "1", "--keep-full", "1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            seen, outcomes, runs = set(), set(), 0

            def verify_until(enough, check):
                nonlocal runs
                deadline = time.monotonic() + 90
                while not enough() and time.monotonic() < deadline:
                    result = ckpt("verify", self.root, "--json")
                    report = json.loads(result.stdout)
                    check(result, report)
                    seen.update(c["name"] for c in report["checkpoints"])
                    outcomes.update(c["status"] for c in report["checkpoints"])
                    runs += 1
                self.assertIsNone(saver.poll(), saver.stderr.read() if saver.poll() is not None else "")

            def healthy(result, report):
                self.assertEqual(result.returncode, 0, (result.stderr, report))
                self.assertEqual(report["failed"], 0, report)

            verify_until(lambda: runs >= 40 and len(seen) >= 20 and "in-progress" in outcomes, healthy)
            self.assertGreaterEqual(len(seen), 20, "the saver committed while verify ran")
            self.assertIn("in-progress", outcomes, "verify met a save in flight")

            flip_byte(os.path.join(self.root, full, "shard-00000"))

            def damaged(result, report):
                self.assertEqual(result.returncode, 1, report)
                self.assertEqual(report["failed"], 1, report)
                failed = [c for c in report["checkpoints"] if c["status"] not in
                          ("valid", "in-progress", "retired", "incomplete")]
                self.assertEqual([(c["name"], c["status"]) for c in failed], [(full, "corrupt")])
                self.assertIn("checksum", failed[0]["reason"])
                self.assertIn(full, result.stderr)

            runs = 0
            verify_until(lambda: runs >= 15, damaged)
        finally:
            saver.kill()
            saver.wait()
            saver.stderr.close()

    def test_manifest_bytes_are_escaped_in_json_and_tables(self):
        xxh3 = xxh3_64()
        if xxh3 is None:
            self.skipTest("libxxhash not found")
        make_checkpoints(self, self.root, heartbeats=2, fulls=0, size="4099")
        newest, older = [c["name"] for c in listing(self, self.root)]
        manifest = json.loads(ckpt("inspect", self.root, older, "--json").stdout)
        writer, tensor = manifest["writer"].encode(), manifest["tensors"][0]["name"].encode()
        # A valid checkpoint whose writer and first tensor name carry hostile bytes.
        rewrite_manifest(os.path.join(self.root, older, "manifest"),
                         [(writer, hostile(len(writer))), (tensor, hostile(len(tensor)))], xxh3)
        # A checksum-valid manifest naming another checkpoint: its reason quotes the name.
        rewrite_manifest(os.path.join(self.root, newest, "manifest"),
                         [(newest.encode(), hostile(len(newest)))], xxh3)

        inspect = ckpt_bytes("inspect", self.root, older, "--json")
        self.assertEqual(inspect.returncode, 0, inspect.stderr)
        inspected = json.loads(assert_terminal_safe(self, inspect.stdout))
        inspect.stdout.decode("ascii")  # the one JSON writer: plain ASCII, whatever the bytes
        self.assertEqual(inspected["name"], older)
        self.assertTrue(inspected["writer"].startswith("\x1b[31m\x07\x7f\x9b\ufffd"), ascii(inspected["writer"]))
        self.assertIn("\ufffd", inspected["tensors"][0]["name"])
        # The text form: the same bytes shown as \xHH, never raw.
        text = assert_terminal_safe(self, ckpt_bytes("inspect", self.root, older).stdout)
        self.assertIn("  writer     \\x1b[31m\\x07\\x7f\\xc2\\x9b", text)

        for args in (("ls", "--json"), ("ls", "--verify", "--json"), ("verify", "--json")):
            with self.subTest(args=args):
                result = ckpt_bytes(args[0], self.root, *args[1:])
                report = json.loads(assert_terminal_safe(self, result.stdout))
                by_name = {c["name"]: c for c in report["checkpoints"]}
                self.assertEqual(by_name[newest]["status"], "corrupt")
                self.assertIn("manifest names checkpoint '\x1b[31m\x07\x7f\x9b\ufffd", by_name[newest]["reason"])
                self.assertEqual(by_name[older]["status"], "valid")
                assert_terminal_safe(self, result.stderr)

        for args in (("ls",), ("ls", "--verify"), ("verify",), ("verify", newest)):
            with self.subTest(args=args):
                result = ckpt_bytes(args[0], self.root, *args[1:])
                text = assert_terminal_safe(self, result.stdout)
                row = [line for line in text.splitlines() if line.startswith(newest)]
                self.assertEqual(len(row), 1, text)
                self.assertIn("'\\x1b[31m\\x07\\x7f\\xc2\\x9b\\x80\\xc0", row[0])
                assert_terminal_safe(self, result.stderr)

if __name__ == "__main__":
    unittest.main()
