"""`frugal-conformance` command line: --help lists every flag and exits 0;
bad usage exits 2 with a message naming the argument at fault."""
import os
import subprocess
import unittest

KIT = os.environ["FRUGAL_CONFORMANCE"]


def kit(*args):
    return subprocess.run([KIT, *args], capture_output=True, text=True, timeout=60)


class KitCommandLineTest(unittest.TestCase):
    def test_help_lists_every_flag(self):
        for flag in ("--help", "-h"):
            with self.subTest(flag=flag):
                result = kit(flag)
                self.assertEqual(result.returncode, 0, result.stderr)
                for name in ("--option", "--json", "--no-fork", "--help"):
                    self.assertIn(name, result.stdout)

    def test_bad_usage_names_the_argument(self):
        cases = [
            (["--bogus", "p.so"], "unknown argument '--bogus'"),
            (["p.so", "--option"], "--option needs a value"),
            (["--option", "--json", "p.so"], "--option needs a value"),
            (["--option", "nodot", "p.so"], "--option 'nodot' is not STRATEGY.KEY=VALUE"),
            (["--json", "--json", "p.so"], "--json given twice"),
            (["--no-fork=1", "p.so"], "--no-fork takes no value"),
            (["a.so", "b.so"], "only one plugin may be checked per run (got 'a.so' and 'b.so')"),
            ([], "no plugin given"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                result = kit(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                # One line naming the problem and where the options are listed.
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertTrue(lines[0].startswith("frugal-conformance: "), lines[0])
                self.assertIn(message, lines[0])
                self.assertTrue(lines[0].endswith(" (see 'frugal-conformance --help')"), lines[0])

    def test_an_option_may_be_repeated(self):
        # Both reach the parser's check of the plugin path, not a usage error.
        result = kit("--option", "*.a=1", "--option=*.b=2", "/nonexistent/plugin.so")
        self.assertNotEqual(result.returncode, 2, result.stderr)


if __name__ == "__main__":
    unittest.main()
