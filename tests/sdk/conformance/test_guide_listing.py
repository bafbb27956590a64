"""`frugal plugins --options` on the plugin of docs/writing-a-plugin.md, as
the build extracts it from the guide: the three options its declaration
gives are listed, with their types, defaults and range."""
import json
import os
import re
import subprocess
import unittest

CLI = os.environ["FRUGAL_CLI"]
GUIDE_DIR = os.environ["FRUGAL_GUIDE_PLUGIN_DIR"]


def plugins(*args):
    env = dict(os.environ, FRUGAL_PLUGIN_PATH=GUIDE_DIR)
    result = subprocess.run([CLI, "plugins", "--options", *args], capture_output=True, text=True, env=env,
                            timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"frugal plugins --options {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result.stdout


class GuidePluginListingTest(unittest.TestCase):
    def test_json_lists_the_three_declared_options(self):
        listing = json.loads(plugins("--json"))
        acme = [p for p in listing["plugins"] if p["name"] == "acme_schedules"]
        self.assertEqual(len(acme), 1, "the guide's plugin was not found in " + GUIDE_DIR)
        (step_decay,) = acme[0]["strategies"]
        self.assertEqual(step_decay["name"], "step_decay")
        self.assertEqual([(o["name"], o["type"], o["required"], o["default"], o["min"], o["max"])
                          for o in step_decay["options"]],
                         [("lr", "double", True, None, None, None),
                          ("gamma", "double", False, "0.5", None, None),
                          ("every", "int", False, "1000", 1, 1000000000)])

    def test_table_lists_the_three_declared_options(self):
        lines = plugins().splitlines()
        at = next(i for i, line in enumerate(lines) if line.split()[1:2] == ["step_decay"])
        rows = [re.split(r"\s{2,}", line.strip()) for line in lines[at + 2:at + 5]]
        self.assertEqual([row[:4] for row in rows],
                         [["lr", "double", "required", "-"], ["gamma", "double", "0.5", "-"],
                          ["every", "int", "1000", "[1, 1000000000]"]])


if __name__ == "__main__":
    unittest.main()
