"""`frugal-conformance --json`: the report as one JSON object (ASCII only),
on a plugin that conforms and on one that breaks a rule, with the verdicts
of the text report."""
import json
import os
import subprocess
import unittest

KIT = os.environ["FRUGAL_CONFORMANCE"]


def kit(*args):
    return subprocess.run([KIT, *args], capture_output=True, timeout=120)


class KitJsonTest(unittest.TestCase):
    def report(self, plugin, want_exit):
        result = kit("--json", plugin)
        self.assertEqual(result.returncode, want_exit, result.stderr)
        result.stdout.decode("ascii")  # raises on anything that is not ASCII
        return json.loads(result.stdout)

    def verdicts(self, results):
        return [(r["status"], r["strategy"], r["rule"]) for r in results]

    def text_verdicts(self, plugin):
        """(status, strategy, rule) of each line of the text report, in order."""
        lines = kit(plugin).stdout.decode().splitlines()
        self.assertTrue(lines[-1].startswith("summary: "), lines[-1])
        out = []
        for line in lines[:-1]:
            status, strategy, rest = line.split("  ", 2)
            out.append((status.lower(), strategy, rest.split(":", 1)[0]))
        return out

    def test_a_conforming_plugin_passes_every_rule(self):
        plugin = os.environ["FRUGAL_CONFORMING_PLUGIN"]
        report = self.report(plugin, 0)
        self.assertEqual(report["plugin"], plugin)
        self.assertIs(report["pass"], True)
        statuses = {r["status"] for r in report["results"]}
        self.assertIn("pass", statuses)
        self.assertLessEqual(statuses, {"pass", "skip"})
        self.assertTrue(all(r["message"] for r in report["results"]))
        self.assertEqual(self.verdicts(report["results"]), self.text_verdicts(plugin))

    def test_a_broken_plugin_fails_the_rule_it_breaks(self):
        plugin = os.environ["FRUGAL_BROKEN_PLUGIN"]
        report = self.report(plugin, 1)
        self.assertIs(report["pass"], False)
        # Only the leak rule fails (twice in a sanitizer build, which also
        # reports the leak as the checking process's exit status).
        failed = {(r["strategy"], r["rule"]) for r in report["results"] if r["status"] == "fail"}
        self.assertEqual(failed, {("broken_leak/broken", "leaks")})
        self.assertEqual(self.verdicts(report["results"]), self.text_verdicts(plugin))


if __name__ == "__main__":
    unittest.main()
