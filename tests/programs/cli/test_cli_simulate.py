"""`frugal simulate ...` run as a user runs it: the worked example as a
table, JSON and a plot; every trace format; the same bytes for the same
seed; and every kind of bad file (exit 1, naming the file) and bad flag
(exit 2) refused."""
import json
import os
import pathlib
import pty
import subprocess
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

CLI = os.environ["FRUGAL_CLI"]
SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "programs", "cli", "simulate",
                       "examples")
EXAMPLE_PLANS = ["A_16gpu_spot", "B_8gpu_warmup_reserved", "reserved", "spot", "spot_then_reserved",
                 "spot_heartbeats", "autoscaling"]


def run(*args, timeout=120):
    env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
    return subprocess.run([CLI, "simulate"] + [str(a) for a in args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def job_text(tokens, tokens_per_gpu_s, extra=""):
    """A one-node job on reserved capacity with `tokens` of work."""
    return ('{"name": "j", "gpus_per_node": 8, "work": {"tokens": %s}, "throughput": {"tokens_per_gpu_s": %s}, '
            '"checkpoint": {"full_s": 300, "heartbeat_s": 30}, "prices": {"spot": 10, "reserved": 30}, %s'
            '"plans": [{"name": "r", "resource": "reserved"}]}' % (tokens, tokens_per_gpu_s, extra))


# About 3 million one-second telemetry records: a second or more of work.
# About a second a run here: several runs outlast the bar's quiet first
# second on a slower machine too.
LONG_JOB = job_text("4.8e10", 1000, '"telemetry_interval_s": 1, ')


def sample(name):
    return os.path.join(SAMPLES, name)


class SimulateCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = self.enterContext(tempfile.TemporaryDirectory())

    def write(self, name, text):
        path = pathlib.Path(self.dir, name)
        path.write_text(text)
        return str(path)

    def simulate_json(self, *args):
        result = run(*args, "--json")
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)

    def test_worked_example_table_names_every_plan_and_column(self):
        result = run("--runs", 20)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("job 'worked-example': 20 runs per plan, seed 1, Monte-Carlo preemptions", result.stdout)
        for column in ("cost $", "wall h", "GPU-h", "util %", "lost h", "stall h", "restarts", "$/loss"):
            self.assertIn(column, result.stdout)
        for plan in EXAMPLE_PLANS:
            self.assertIn(plan, result.stdout)
        self.assertEqual(result.stderr, "")  # no progress bar when stderr is not a terminal

    def test_json_has_a_plans_list_each_with_its_cost(self):
        out = self.simulate_json("--runs", 30, "--seed", 5)
        self.assertEqual(out["runs"], 30)
        self.assertEqual(out["seed"], 5)
        self.assertIsNone(out["trace"])
        self.assertEqual([p["name"] for p in out["plans"]], EXAMPLE_PLANS)
        for plan in out["plans"]:
            self.assertIsInstance(plan["cost"], (int, float))
            self.assertGreater(plan["cost"], 0)
            self.assertEqual(plan["finished_runs"], 30)
            for key in ("wall_h", "gpu_hours", "utilisation", "lost_h", "stall_h", "restarts", "dollars_per_loss"):
                self.assertIn(key, plan)
            cost = plan["stats"]["cost"]
            self.assertLessEqual(cost["p10"], cost["p50"])
            self.assertLessEqual(cost["p50"], cost["p90"])
            self.assertAlmostEqual(cost["mean"], plan["cost"])

    def test_same_seed_same_bytes_whatever_the_threads(self):
        a = run("--runs", 25, "--seed", 9, "--json", "--threads", 1)
        b = run("--runs", 25, "--seed", 9, "--json", "--threads", 3)
        c = run("--runs", 25, "--seed", 10, "--json")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        self.assertNotEqual(a.stdout, c.stdout)

    def test_plot_is_well_formed_svg(self):
        path = os.path.join(self.dir, "plot.svg")
        result = run("--runs", 10, "--plot", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        root = ET.parse(path).getroot()
        self.assertEqual(root.tag, "{http://www.w3.org/2000/svg}svg")
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        for plan in EXAMPLE_PLANS:
            self.assertIn(plan, texts)
        self.assertGreaterEqual(len(list(root.iter("{http://www.w3.org/2000/svg}rect"))), 2 * len(EXAMPLE_PLANS))

    def test_every_trace_format(self):
        job = sample("small_job.json")
        cases = [("skypilot_spot_trace.json", "skypilot", True, False),
                 ("aws_spot_price_history.json", "aws", False, True),
                 ("aws_spot_price_history.csv", "aws", False, True),
                 ("availability_trace.csv", "csv", True, True)]
        for name, form, availability, prices in cases:
            with self.subTest(trace=name):
                out = self.simulate_json("--job", job, "--trace", sample(name), "--runs", 5)
                trace = out["trace"]
                self.assertEqual(trace["format"], form)
                self.assertEqual(trace["has_availability"], availability)
                self.assertEqual(trace["has_prices"], prices)
                self.assertTrue(trace["source"].endswith(name))
                self.assertEqual(len(out["plans"]), 5)
                self.assertTrue(all(p["finished_runs"] == 5 for p in out["plans"]))
        zone = self.simulate_json("--job", job, "--trace", sample("aws_spot_price_history.json"), "--zone", "us-east-1a",
                                  "--runs", 2)
        self.assertTrue(zone["trace"]["selection"].startswith("us-east-1a p4d.24xlarge"))
        forced = self.simulate_json("--job", job, "--trace", sample("availability_trace.csv"), "--trace-format", "csv",
                                    "--runs", 2, "--plans", "spot,reserved")
        self.assertEqual([p["name"] for p in forced["plans"]], ["reserved", "spot"])

    def test_malformed_files_exit_1_naming_the_file(self):
        with open(sample("small_job.json")) as f:
            good_job = f.read().replace('"loss_log.csv"', json.dumps(sample("loss_log.csv")))

        def line_of(text):  # where a member of the sample job stands
            return good_job[:good_job.index(text)].count("\n") + 1
        restart = '"restart_s"'
        cases = {
            "syntax.json": ("--job", '{"name": "x",}',
                            "syntax.json:1:14: syntax error while parsing object key - unexpected '}'"),
            "nan.json": ("--job", good_job.replace('"restart_s": 900', '"restart_s": NaN'),
                         f"nan.json:{line_of(restart)}:16: syntax error while parsing value - invalid literal"),
            "negative.json": ("--job", good_job.replace('"spot": 13.5', '"spot": -13.5'),
                              "negative.json: prices.spot must be in [0, 1000000000], got -13.5"),
            "policy.json": ("--job", good_job.replace('"telemetry_interval_s": 1800',
                                                      '"telemetry_interval_s": 1800, "plans": [{"name": "p", "policies": ["spot_fase"]}]'),
                            "unknown policy 'spot_fase'"),
            "backwards.csv": ("--trace", "time_s,available\n0,1\n600,0\n300,1\n", "backwards.csv:4: time going backwards"),
            "price.csv": ("--trace", "0,1,5\n60,1,-2\n", "price.csv:2: negative price -2"),
            "shape.json": ("--trace", '{"gap_seconds": 600, "data": [0]}', "shape.json: wrong JSON shape"),
            "gap.json": ("--trace", '{"metadata": {"gap_seconds": 0}, "data": [0]}', "gap_seconds must be a number > 0"),
            "empty.json": ("--trace", '{"metadata": {"gap_seconds": 60}, "data": []}', "empty trace"),
            "awsprice.json": ("--trace", '{"SpotPriceHistory": [{"AvailabilityZone": "z", "InstanceType": "t", '
                                         '"SpotPrice": "n/a", "Timestamp": "2024-03-01T00:00:00Z"}]}',
                              "SpotPriceHistory[0].SpotPrice is not a number"),
        }
        for name, (flag, text, message) in cases.items():
            with self.subTest(file=name):
                path = self.write(name, text)
                args = (flag, path) if flag == "--job" else ("--job", sample("small_job.json"), flag, path)
                result = run(*args, "--runs", 2)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn(path, result.stderr)
                self.assertIn(message, result.stderr)
                self.assertEqual(result.stdout, "")
        missing = run("--job", os.path.join(self.dir, "nope.json"))
        self.assertEqual(missing.returncode, 1)
        self.assertIn("nope.json", missing.stderr)

    def test_a_job_that_would_never_end_is_refused_with_its_numbers(self):
        # Every field inside its range: 1e18 tokens at 1e-9 tokens/s per GPU.
        path = self.write("endless.json", job_text("1e18", "1e-9"))
        result = run("--job", path, "--runs", 1, timeout=60)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(f"{path}: plan 'r': one run would simulate about 3.47e+22 events", result.stderr)
        self.assertIn("throughput.tokens_per_gpu_s", result.stderr)
        self.assertIn("telemetry_interval_s 3600", result.stderr)
        self.assertIn("more than the limit of 1e+07 per run", result.stderr)
        self.assertEqual(result.stdout, "")

    def test_huge_throughput_is_refused_naming_the_field(self):
        cases = {
            "fast.json": (job_text("1e9", "1e300"),
                          "throughput.tokens_per_gpu_s must be in [1e-09, 1000000000000], got 1e+300"),
            "hours.json": (job_text("1", "1e12").replace('"tokens": 1', '"gpu_hours": 1e9'),
                           "work.gpu_hours 1000000000 x 3600 x throughput.tokens_per_gpu_s 1000000000000 is 3.6e+24 tokens"),
        }
        for name, (text, message) in cases.items():
            with self.subTest(file=name):
                result = run("--job", self.write(name, text), "--runs", 1, timeout=60)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn(message, result.stderr)
                self.assertNotIn("-9223372036854775808", result.stderr)

    def test_progress_bar_on_a_terminal_only_and_at_most_ten_redraws_a_second(self):
        path = self.write("long.json", LONG_JOB)
        piped = run("--job", path, "--runs", 1, "--threads", 1)
        self.assertEqual(piped.returncode, 0, piped.stderr)
        self.assertEqual(piped.stderr, "")  # never in pipes, however long the run
        master, slave = pty.openpty()
        env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
        started = time.monotonic()
        process = subprocess.Popen([CLI, "simulate", "--job", path, "--runs", "4", "--threads", "1"],
                                   stdout=subprocess.PIPE, stderr=slave, env=env)
        os.close(slave)
        drawn = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: the process ended
                break
            if not chunk:
                break
            drawn += chunk
        stdout, _ = process.communicate(timeout=120)
        elapsed = time.monotonic() - started
        os.close(master)
        self.assertEqual(process.returncode, 0)
        self.assertIn(b"job 'j': 4 runs per plan", stdout)  # the report is on stdout, without the bar
        self.assertNotIn(b"simulating", stdout)
        self.assertIn(b"simulating [", drawn)
        self.assertIn(b"/4 runs", drawn)
        self.assertIn(b"events", drawn)
        self.assertLessEqual(drawn.count(b"\r"), 10 * elapsed + 4)

    def test_bad_flags_exit_2(self):
        cases = [["--runs", "0"], ["--runs", "many"], ["--seed", "-1"], ["--bogus"], ["--trace-format", "xml"],
                 ["--zone", "us-east-1a"], ["extra"], ["--plans", "nosuch"], ["--plans", "a,,b"], ["--json=yes"],
                 ["--threads", "-2"], ["--runs"]]
        for args in cases:
            with self.subTest(args=args):
                result = run(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn("frugal simulate:", result.stderr)

    def test_help(self):
        result = run("help")
        self.assertEqual(result.returncode, 0)
        self.assertIn("usage: frugal simulate", result.stdout)
        self.assertIn("--trace FILE", result.stdout)


if __name__ == "__main__":
    unittest.main()
