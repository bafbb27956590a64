"""`frugal pack ...` run as a user runs it: lengths and histogram files in,
a table or JSON out, assignments written and checked against the input,
and every kind of bad input refused with a message naming it."""
import json
import os
import random
import subprocess
import tempfile
import unittest

CLI = os.environ["FRUGAL_CLI"]


def run(*args):
    env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
    return subprocess.run([CLI, "pack"] + [str(a) for a in args], capture_output=True, text=True, env=env,
                          timeout=120)


class PackCliTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        rng = random.Random(7)
        # Lognormal-ish lengths with a tail past max_len 512 for the overlong cases.
        self.lengths = [max(1, min(700, int(rng.lognormvariate(4.5, 0.9)))) for _ in range(3000)]
        self.short = [min(x, 512) for x in self.lengths]
        self.lengths_file = self.write("lengths.txt", "# one per line\n" + "\n".join(map(str, self.short)) + "\n\n")

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self._tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def pack_json(self, *args):
        result = run(*args, "--json")
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)

    def read_assignments(self, path):
        with open(path) as f:
            return [line.split() for line in f]

    def test_json_reports_consistent_statistics(self):
        out = self.pack_json("--lengths", self.lengths_file, "--max-len", 512)
        tokens = sum(self.short)
        self.assertEqual(out["sequences"], len(self.short))
        self.assertEqual(out["real_tokens"], tokens)
        self.assertEqual(out["lower_bound"], -(-tokens // 512))
        self.assertGreaterEqual(out["lower_bound_tight"], out["lower_bound"])
        self.assertGreaterEqual(out["packs"], out["lower_bound_tight"])
        self.assertAlmostEqual(out["efficiency"], tokens / (out["packs"] * 512), places=7)
        self.assertAlmostEqual(out["speedup"], len(self.short) / out["packs"], places=7)
        self.assertAlmostEqual(out["padding_before"], 1 - tokens / (len(self.short) * 512), places=7)

    def test_every_algorithm_places_every_sequence_once_within_limits(self):
        for algo in ("ffd", "bfd", "spfhp", "lpfhp", "refined", "naive_first_fit"):
            for limit in (0, 3):
                with self.subTest(algo=algo, limit=limit):
                    path = os.path.join(self._tmp.name, f"{algo}-{limit}.txt")
                    out = self.pack_json("--lengths", self.lengths_file, "--max-len", 512, "--algo", algo,
                                         "--max-per-pack", limit, "--assignments", path)
                    self.assertEqual(out["algorithm"], algo)
                    packs = self.read_assignments(path)
                    self.assertEqual(len(packs), out["packs"])
                    ids = sorted(int(i) for pack in packs for i in pack)
                    self.assertEqual(ids, list(range(len(self.short))))
                    for pack in packs:
                        self.assertLessEqual(sum(self.short[int(i)] for i in pack), 512)
                        if limit:
                            self.assertLessEqual(len(pack), limit)

    def test_best_names_its_winner_and_never_loses_to_bfd(self):
        for limit in (0, 3):
            with self.subTest(limit=limit):
                best = self.pack_json("--lengths", self.lengths_file, "--max-len", 512, "--algo", "best",
                                      "--max-per-pack", limit)
                self.assertIn(best["algorithm"], ("refined", "bfd", "ffd", "lpfhp", "spfhp"))
                winner = self.pack_json("--lengths", self.lengths_file, "--max-len", 512, "--algo",
                                        best["algorithm"], "--max-per-pack", limit)
                self.assertEqual(winner["packs"], best["packs"])
                bfd = self.pack_json("--lengths", self.lengths_file, "--max-len", 512, "--algo", "bfd",
                                     "--max-per-pack", limit)
                self.assertLessEqual(best["packs"], bfd["packs"])
        default = self.pack_json("--lengths", self.lengths_file, "--max-len", 512)
        self.assertEqual(default["algorithm"], "refined")

    def test_histogram_matches_the_expanded_lengths(self):
        counts = {}
        for x in self.short:
            counts[x] = counts.get(x, 0) + 1
        hist = self.write("hist.txt", "\n".join(f"{length} {count}" for length, count in sorted(counts.items())))
        expanded = [length for length, count in sorted(counts.items()) for _ in range(count)]
        expanded_file = self.write("expanded.txt", "\n".join(map(str, expanded)))
        a = self.pack_json("--histogram", hist, "--max-len", 512, "--algo", "bfd")
        b = self.pack_json("--lengths", expanded_file, "--max-len", 512, "--algo", "bfd")
        for key in ("packs", "sequences", "real_tokens", "lower_bound", "efficiency"):
            self.assertEqual(a[key], b[key], key)

    def test_table_output_names_the_numbers(self):
        result = run("--lengths", self.lengths_file, "--max-len", 512, "--algo", "lpfhp")
        self.assertEqual(result.returncode, 0, result.stderr)
        out = self.pack_json("--lengths", self.lengths_file, "--max-len", 512, "--algo", "lpfhp")
        self.assertIn(f"packs                  {out['packs']}\n", result.stdout)
        self.assertIn(f"lower bound            {out['lower_bound']} ", result.stdout)
        self.assertIn("efficiency", result.stdout)
        self.assertIn("with lpfhp", result.stdout)

    def test_overlong_policies(self):
        path = self.write("long.txt", "\n".join(map(str, self.lengths)))
        over = [x for x in self.lengths if x > 512]
        self.assertTrue(over)
        refused = run("--lengths", path, "--max-len", 512)
        self.assertEqual(refused.returncode, 1)
        first = next(i for i, x in enumerate(self.lengths) if x > 512)
        # Refused while reading, at its line (sequence i is on line i + 1).
        self.assertIn(f"long.txt:{first + 1}: length {self.lengths[first]} > --max-len 512", refused.stderr)
        cut = self.pack_json("--lengths", path, "--max-len", 512, "--overlong", "truncate")
        self.assertEqual(cut["truncated_sequences"], len(over))
        self.assertEqual(cut["truncated_tokens"], sum(x - 512 for x in over))
        self.assertEqual(cut["real_tokens"], sum(self.short))
        assignments = os.path.join(self._tmp.name, "split.txt")
        split = self.pack_json("--lengths", path, "--max-len", 512, "--overlong", "split", "--assignments",
                               assignments)
        self.assertEqual(split["split_sequences"], len(over))
        self.assertEqual(split["units"], len(self.lengths) + len(over))  # every tail here is < 2 * 512
        self.assertEqual(split["real_tokens"], sum(self.lengths))
        covered = {}
        for pack in self.read_assignments(assignments):
            for unit in pack:
                seq, rest = unit.split(":")
                offset, length = map(int, rest.split("+"))
                covered.setdefault(int(seq), []).append((offset, length))
        for seq, length in enumerate(self.lengths):
            pieces = sorted(covered[seq])
            self.assertEqual(pieces[0][0], 0)
            for (o1, l1), (o2, _) in zip(pieces, pieces[1:]):
                self.assertEqual(o1 + l1, o2)
            self.assertEqual(pieces[-1][0] + pieces[-1][1], length)

    def test_streaming_window_places_every_sequence_once(self):
        batch = self.pack_json("--lengths", self.lengths_file, "--max-len", 512, "--algo", "bfd")
        previous_packs = None
        for window in (16, 256, 4096):
            with self.subTest(window=window):
                path = os.path.join(self._tmp.name, f"stream-{window}.txt")
                out = self.pack_json("--lengths", self.lengths_file, "--max-len", 512, "--algo", "bfd",
                                     "--window", window, "--assignments", path)
                self.assertEqual(out["real_tokens"], batch["real_tokens"])
                self.assertGreaterEqual(out["packs"], out["lower_bound_tight"])
                ids = sorted(int(i) for pack in self.read_assignments(path) for i in pack)
                self.assertEqual(ids, list(range(len(self.short))))
                if previous_packs is not None:
                    self.assertLessEqual(out["packs"], previous_packs)  # a wider window never packs worse here
                previous_packs = out["packs"]
        # A window holding the whole input packs exactly like the batch call.
        whole = self.pack_json("--lengths", self.lengths_file, "--max-len", 512, "--algo", "bfd",
                               "--window", len(self.short) + 1)
        self.assertEqual(whole["packs"], batch["packs"])

    def test_bad_files_are_refused_naming_file_and_line(self):
        cases = {
            "junk.txt": ("12\nabc\n", ":2: expected an integer length, got 'abc'"),
            "suffix.txt": ("12\n7x\n", ":2: unexpected text after the length (one length per line) in '7x'"),
            "trailing.txt": ("12\n7 9\n", ":2: unexpected text after the length"),
            "zero.txt": ("12\n0\n", ":2: length must be >= 1, got 0"),
            "negative.txt": ("12\n5\n-3\n", ":3: length must be >= 1, got -3"),
            "empty.txt": ("# nothing\n\n", "no lengths (empty input)"),
        }
        for name, (text, message) in cases.items():
            with self.subTest(name=name):
                result = run("--lengths", self.write(name, text), "--max-len", 64)
                self.assertEqual(result.returncode, 1)
                self.assertIn(name + message if message.startswith(":") else message, result.stderr)
        hist_cases = {
            "h1.txt": ("10 3\n20\n", ":2: expected 'length count', got '20'"),
            "h2.txt": ("10 -1\n", ":1: count must be >= 0, got -1"),
            "h3.txt": ("0 4\n", ":1: length must be >= 1, got 0"),
            "h4.txt": ("10 0\n", "no sequences"),
            "h5.txt": ("10 2 5\n", ":1: unexpected text after the count"),
        }
        for name, (text, message) in hist_cases.items():
            with self.subTest(name=name):
                result = run("--histogram", self.write(name, text), "--max-len", 64)
                self.assertEqual(result.returncode, 1)
                self.assertIn(name + message if message.startswith(":") else message, result.stderr)
        missing = run("--lengths", os.path.join(self._tmp.name, "absent.txt"), "--max-len", 64)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("cannot open", missing.stderr)

    def test_input_that_expands_past_memory_is_refused_naming_the_line(self):
        # A few bytes must not become terabytes: refused at the line, before
        # anything is allocated, with the count, the units and the limit.
        hist = self.write("huge.hist", "# 2^40 sequences of one token\n1 1099511627776\n")
        for extra in ([], ["--window", 16]):
            with self.subTest(extra=extra):
                result = run("--histogram", hist, "--max-len", 8, *extra)
                self.assertEqual(result.returncode, 1, result.stderr)
                for part in ("huge.hist:2:", "length 1, count 1099511627776", "1099511627776 units",
                             "GiB", "over the limit of", "bytes per unit"):
                    self.assertIn(part, result.stderr)
        split = self.write("split.txt", "5\n7777777771\n")
        for extra in ([], ["--window", 16]):
            with self.subTest(extra=extra):
                result = run("--lengths", split, "--max-len", 1, "--overlong", "split", *extra)
                self.assertEqual(result.returncode, 1, result.stderr)
                for part in ("split.txt:2:", "length 7777777771, count 1 (7777777771 units each)",
                             "7777777776 units", "over the limit of"):
                    self.assertIn(part, result.stderr)

    def test_hostile_input_files_are_refused_or_cost_nothing(self):
        long_line = self.write("long.txt", "12\n" + "7" * 5000 + "\n")
        no_newline = os.path.join(self._tmp.name, "zeros.txt")
        with open(no_newline, "wb") as f:
            f.write(b"\0" * 100000)
        control = os.path.join(self._tmp.name, "control.txt")
        with open(control, "wb") as f:
            f.write(b"12\n\x1b[31mred\n")
        cases = [
            (["--lengths", long_line], "long.txt:2: line longer than 4096 characters"),
            (["--lengths", no_newline], "zeros.txt:1: line longer than 4096 characters"),
            (["--lengths", control], "control.txt:2: expected an integer length, got '\\x1b[31mred'"),
            (["--lengths", self.write("big.txt", "99999999999999999999\n")], "big.txt:1: length out of range (int64)"),
            (["--lengths", self.write("over.txt", "3\n65\n")], "over.txt:2: length 65 > --max-len 64"),
            (["--lengths", self.write("sum.txt", "9223372036854775807\n1\n"), "--overlong", "truncate"],
             "sum.txt:2: the lengths add up to more than 9223372036854775807 tokens"),
            (["--histogram", self.write("hsum.txt", "4611686018427387904 2\n"), "--overlong", "truncate"],
             "hsum.txt:1: the lengths add up to more than"),
            (["--lengths", self._tmp.name], "cannot read"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                result = run(*args, "--max-len", 64)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn(message, result.stderr)
                self.assertNotIn("\x1b", result.stderr)
        # Lines of count 0 hold no sequence and are not stored; the rest packs.
        zeros = self.write("zeros.hist", "5 0\n" * 20000 + "3 2\n")
        out = self.pack_json("--histogram", zeros, "--max-len", 8, "--window", 4)
        self.assertEqual((out["sequences"], out["real_tokens"], out["packs"]), (2, 6, 1))

    def test_bad_flags_are_usage_errors(self):
        cases = [
            (["--lengths", self.lengths_file], "--max-len N is required"),
            (["--lengths", self.lengths_file, "--max-len", 0], "--max-len"),
            (["--lengths", self.lengths_file, "--max-len", -5], "--max-len"),
            (["--max-len", 64], "exactly one of --lengths FILE or --histogram FILE"),
            (["--lengths", self.lengths_file, "--histogram", self.lengths_file, "--max-len", 64], "exactly one"),
            (["--lengths", self.lengths_file, "--max-len", 512, "--overlong", "drop"], "--overlong must be"),
            (["--lengths", self.lengths_file, "--max-len", 512, "--max-per-pack", -1], "--max-per-pack"),
            (["--lengths", self.lengths_file, "--max-len", 512, "--algo", "magic"],
             "option 'algo' = 'magic' is not one of"),
            (["--lengths", self.lengths_file, "--max-len", 512, "--bogus"], "unknown argument '--bogus'"),
            (["--lengths", self.lengths_file, "--max-len", 512, "--max-rounds", 2], "--max-rounds needs --window"),
            (["--lengths", self.lengths_file, "--max-len", 512, "--window", 0], "--window"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                result = run(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)


if __name__ == "__main__":
    unittest.main()
