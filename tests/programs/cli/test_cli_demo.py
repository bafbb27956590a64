"""`frugal demo ...`: the tool runs the frugal-demo program found next to
itself, arguments passed through unchanged and its exit code kept; without
that program it says where it looked and how to get it. A stand-in script
plays frugal-demo (the real one trains for minutes)."""
import os
import shutil
import subprocess
import tempfile
import unittest

CLI = os.environ["FRUGAL_CLI"]

STAND_IN = """#!/bin/sh
# Each argument on its own line, bracketed, so empty ones and spaces show.
for a in "$@"; do printf '[%s]\\n' "$a"; done
echo "argv0=$0"
exit 7
"""


def copy_cli(directory):
    """The frugal binary in `directory`, alone: the demo is looked up next to it."""
    copied = os.path.join(directory, "frugal")
    shutil.copy2(CLI, copied)
    return copied


class CliDemoTest(unittest.TestCase):
    def test_arguments_pass_through_unchanged_and_the_exit_code_is_the_demos(self):
        with tempfile.TemporaryDirectory() as tmp:
            cli = copy_cli(tmp)
            demo = os.path.join(os.path.realpath(tmp), "frugal-demo")
            with open(demo, "w") as f:
                f.write(STAND_IN)
            os.chmod(demo, 0o755)
            args = ["--quick", "--out", "dir with spaces", "", "--flag=a,b"]
            result = subprocess.run([cli, "demo"] + args, capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 7, result.stderr)
            lines = result.stdout.splitlines()
            self.assertEqual(lines[:-1], ["[--quick]", "[--out]", "[dir with spaces]", "[]", "[--flag=a,b]"])
            self.assertEqual(lines[-1], "argv0=" + demo)
            self.assertEqual(result.stderr, "")

    def test_found_next_to_the_binary_even_when_started_through_a_link(self):
        with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as elsewhere:
            cli = copy_cli(tmp)
            demo = os.path.join(os.path.realpath(tmp), "frugal-demo")
            with open(demo, "w") as f:
                f.write(STAND_IN)
            os.chmod(demo, 0o755)
            link = os.path.join(elsewhere, "frugal")
            os.symlink(cli, link)
            result = subprocess.run([link, "demo"], capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 7, result.stderr)
            self.assertEqual(result.stdout, "argv0=" + demo + "\n")

    def test_missing_demo_names_the_path_and_the_build_option(self):
        with tempfile.TemporaryDirectory() as tmp:
            cli = copy_cli(tmp)
            result = subprocess.run([cli, "demo", "--quick"], capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 2)
            self.assertEqual(result.stdout, "")
            self.assertIn(os.path.join(os.path.realpath(tmp), "frugal-demo"), result.stderr)
            self.assertIn("FRUGAL_BUILD_DEMO=ON", result.stderr)

    def test_usage_lists_the_demo(self):
        result = subprocess.run([CLI, "help"], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0)
        # The row is made from frugal-demo's own spec: its options line and
        # the program it runs.
        row = [line for line in result.stdout.splitlines() if line.startswith("  demo ")]
        self.assertEqual(len(row), 1, result.stdout)
        self.assertIn("demo [options]", row[0])
        self.assertIn("train a tiny MoE language model", row[0])
        self.assertIn("(runs frugal-demo)", result.stdout)


if __name__ == "__main__":
    unittest.main()
