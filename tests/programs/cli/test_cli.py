"""The `frugal` CLI, run as a user runs it: from the build tree with and
without FRUGAL_PLUGIN_PATH, and from a fresh install tree where the built-in
plugins must be found next to the installed libfrugal."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

CLI = os.environ["FRUGAL_CLI"]
TEST_PLUGINS = os.environ["FRUGAL_TEST_PLUGIN_DIR"]
BUILD_DIR = os.environ["FRUGAL_BUILD_DIR"]
VERSION_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "abi", "include", "frugal",
                         "version.h")


def header_abi_version():
    """The "major.minor" of FRUGAL_ABI_VERSION_MAJOR/MINOR in the tree's frugal/version.h: what the
    tool, libfrugal and the built-in plugins were built against."""
    with open(VERSION_H) as f:
        text = f.read()
    return ".".join(re.search(rf"^#define FRUGAL_ABI_VERSION_{part} (\d+)$", text, re.M).group(1)
                    for part in ("MAJOR", "MINOR"))


ABI_VERSION = header_abi_version()


def run(args, env_extra=None, cli=CLI):
    env = {k: v for k, v in os.environ.items() if k != "FRUGAL_PLUGIN_PATH"}
    env.update(env_extra or {})
    return subprocess.run([cli] + args, capture_output=True, text=True, env=env, timeout=120)


class CliTest(unittest.TestCase):
    def test_version_names_sdk_and_abi(self):
        result = run(["version"])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"^frugal \d+\.\d+\.\d+\n")
        self.assertIn(f"ABI {ABI_VERSION} (headers of this tool: {ABI_VERSION})", result.stdout)
        self.assertRegex(result.stdout, r"CUDA: built (with|without) CUDA")

    def test_plugins_json_lists_the_builtin_schedules(self):
        result = run(["plugins", "--json"])
        self.assertEqual(result.returncode, 0, result.stderr)
        listing = json.loads(result.stdout)
        self.assertEqual(listing["failures"], [])
        by_name = {p["name"]: p for p in listing["plugins"]}
        lr = by_name["schedule_lr"]
        self.assertTrue(os.path.isfile(lr["path"]))
        self.assertEqual(lr["abi"], ABI_VERSION)
        self.assertEqual([s["name"] for s in lr["strategies"]], ["constant", "linear_warmup", "cosine", "sgdr", "wsd"])
        self.assertTrue(all(s["kind"] == "schedule" and s["thread_safe"] for s in lr["strategies"]))

    # schedule_lr's cosine as plugins/schedule_lr/plugin/option_decls.cpp declares it.
    COSINE_OPTIONS = [
        {"name": "lr", "type": "double", "required": False, "default": "0.001", "min": None, "max": None,
         "choices": None, "directory": False, "doc": "peak learning rate, finite and > 0"},
        {"name": "min_lr", "type": "double", "required": False, "default": "0", "min": 0, "max": None,
         "choices": None, "directory": False, "doc": "floor the rate decays to, in [0, lr]"},
        {"name": "warmup_steps", "type": "int", "required": False, "default": "0", "min": 0, "max": None,
         "choices": None, "directory": False, "doc": "steps of linear warm-up from lr/warmup_steps to lr"},
        {"name": "total_steps", "type": "int", "required": True, "default": None, "min": 1, "max": None,
         "choices": None, "directory": False, "doc": "step at which the schedule reaches min_lr, > warmup_steps"},
    ]

    def test_plugins_options_json_gives_each_declaration(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("alpha.so", "option_decls.so"):
                shutil.copy(os.path.join(TEST_PLUGINS, name), tmp)
            result = run(["plugins", "--options", "--json"], {"FRUGAL_PLUGIN_PATH": tmp})
        self.assertEqual(result.returncode, 0, result.stderr)
        plugins = {p["name"]: p for p in json.loads(result.stdout)["plugins"]}
        cosine = [s for s in plugins["schedule_lr"]["strategies"] if s["name"] == "cosine"]
        self.assertEqual(cosine[0]["options"], self.COSINE_OPTIONS)
        # Both bounds, a bool, a choice list (tests/core/loader/option_decls_plugin.cpp).
        decl = plugins["option_decls"]["strategies"][0]["options"]
        self.assertEqual([(o["name"], o["min"], o["max"], o["choices"], o["default"]) for o in decl],
                         [("lr", 0, 10, None, "0.001"), ("steps", 1, 100, None, None),
                          ("shape", None, None, ["a", "b"], "a"), ("flag", None, None, None, "false")])
        self.assertEqual([o["type"] for o in decl], ["double", "int", "string", "bool"])
        # A strategy that declares nothing has an empty list.
        self.assertTrue(all(s["options"] == [] for s in plugins["alpha"]["strategies"]))
        # Without --options the listing is unchanged.
        plain = json.loads(run(["plugins", "--json"]).stdout)
        self.assertFalse(any("options" in s for p in plain["plugins"] for s in p["strategies"]))

    def test_plugins_options_table_lists_each_declaration_under_its_strategy(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("alpha.so", "option_decls.so"):
                shutil.copy(os.path.join(TEST_PLUGINS, name), tmp)
            result = run(["plugins", "--options"], {"FRUGAL_PLUGIN_PATH": tmp})
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()

        def rows_under(plugin, strategy):
            """The option rows printed under `strategy` of `plugin`, split into columns."""
            start = next(i for i, line in enumerate(lines) if line.startswith(plugin + " "))
            at = next(i for i in range(start, len(lines)) if lines[i].split()[1:2] == [strategy])
            rows = []
            for line in lines[at + 1:]:
                if not line.startswith(" " * 8):
                    break
                rows.append(re.split(r"\s{2,}", line.strip()))
            return rows

        cosine = rows_under("schedule_lr", "cosine")
        self.assertEqual(cosine[0], ["option", "type", "default", "range", "choices", "doc"])
        self.assertEqual(cosine[1:], [
            ["lr", "double", "0.001", "-", "-", "peak learning rate, finite and > 0"],
            ["min_lr", "double", "0", ">= 0", "-", "floor the rate decays to, in [0, lr]"],
            ["warmup_steps", "int", "0", ">= 0", "-", "steps of linear warm-up from lr/warmup_steps to lr"],
            ["total_steps", "int", "required", ">= 1", "-",
             "step at which the schedule reaches min_lr, > warmup_steps"],
        ])
        decl = rows_under("option_decls", "decl")
        self.assertEqual([row[:5] for row in decl[1:]], [
            ["lr", "double", "0.001", "[0, 10]", "-"], ["steps", "int", "required", "[1, 100]", "-"],
            ["shape", "string", "a", "-", "a|b"], ["flag", "bool", "false", "-", "-"]])
        self.assertEqual(rows_under("alpha", "linear"), [["(none declared)"]])

    def test_bad_files_are_listed_with_reasons_next_to_the_good_plugins(self):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(os.path.join(TEST_PLUGINS, "alpha.so"), tmp)
            shutil.copy(os.path.join(TEST_PLUGINS, "major1_desc.so"), tmp)
            with open(os.path.join(tmp, "notes.so"), "w") as f:
                f.write("plain text")
            result = run(["plugins", "--json"], {"FRUGAL_PLUGIN_PATH": tmp})
            self.assertEqual(result.returncode, 1, "a failed file must show in the exit code")
            listing = json.loads(result.stdout)
            names = [p["name"] for p in listing["plugins"]]
            # The environment's plugins first, then the built-in ones in file-name
            # order (comm_mpi is built only where MPI was found, comm_nccl where
            # CUDA and NCCL were).
            builtin_dir = os.path.join(BUILD_DIR, "lib", "frugal", "v2", "plugins")
            has_mpi = os.path.exists(os.path.join(builtin_dir, "comm_mpi.so"))
            has_nccl = os.path.exists(os.path.join(builtin_dir, "comm_nccl.so"))
            expected = ["alpha", "comm_local"] + (["comm_mpi"] if has_mpi else []) + (
                ["comm_nccl"] if has_nccl else []) + [
                "packer_seq", "policy_cost", "quant_fp8", "router_moe", "schedule_lr", "store_fs"]
            self.assertEqual(names[:len(expected)], expected)
            failures = {os.path.basename(f["path"]): f for f in listing["failures"]}
            self.assertEqual(set(failures), {"major1_desc.so", "notes.so"})
            self.assertEqual(failures["major1_desc.so"]["code"], "ABI_MISMATCH")
            self.assertIn("built for frugal ABI 1.1", failures["major1_desc.so"]["error"])
            self.assertEqual(failures["notes.so"]["code"], "PLUGIN_INVALID")
            shadowed = [s for p in listing["plugins"] for s in p["strategies"] if s["shadowed"]]
            self.assertEqual([(s["name"]) for s in shadowed], ["cosine"])

            table = run(["plugins"], {"FRUGAL_PLUGIN_PATH": tmp})
            self.assertEqual(table.returncode, 1)
            self.assertIn("failed to load:", table.stdout)
            self.assertIn("[shadowed: use schedule_lr/cosine]", table.stdout)

    def test_usage_errors_exit_2(self):
        self.assertEqual(run([]).returncode, 2)
        self.assertEqual(run(["frobnicate"]).returncode, 2)
        bad = run(["plugins", "--yaml"])
        self.assertEqual(bad.returncode, 2)
        self.assertIn("unknown argument '--yaml' (accepted: --json, --options", bad.stderr)

    # Every command and subcommand: `--help` prints its usage on stdout and
    # exits 0; bad usage is one line on stderr pointing to that --help,
    # exit 2; under --json the error is also a JSON object on stdout.
    COMMANDS = [["version"], ["plugins"], ["pack"], ["simulate"], ["ckpt"], ["ckpt", "ls"], ["ckpt", "latest"],
                ["ckpt", "verify"], ["ckpt", "inspect"], ["ckpt", "gc"], ["ckpt", "bench"], ["comm"], ["comm", "test"]]

    def test_every_command_prints_its_usage_on_help(self):
        for command in self.COMMANDS:
            for flag in ("--help", "-h"):
                with self.subTest(command=command, flag=flag):
                    result = run(command + [flag])
                    self.assertEqual(result.returncode, 0, result.stderr)
                    self.assertIn("usage: frugal " + command[0], result.stdout)
                    self.assertEqual(result.stderr, "")

    # The flags each command accepts: its --help names every one, and each
    # value flag given without its value (last, or followed by another
    # flag) is refused naming it.
    VALUE_FLAGS = {
        ("pack",): ["--lengths", "--histogram", "--max-len", "--strategy", "--algo", "--max-per-pack", "--overlong",
                    "--seed", "--assignments", "--window", "--max-rounds"],
        ("simulate",): ["--job", "--trace", "--trace-format", "--zone", "--instance-type", "--product", "--runs",
                        "--seed", "--plans", "--threads", "--plot"],
        ("ckpt", "ls"): ["--prefix"],
        ("ckpt", "latest"): ["--prefix", "--kind"],
        ("ckpt", "verify"): ["--prefix"],
        ("ckpt", "inspect"): ["--prefix"],
        ("ckpt", "gc"): ["--prefix", "--keep-heartbeats", "--keep-full"],
        ("ckpt", "bench"): ["--prefix", "--size", "--kind", "--count", "--keep-heartbeats", "--keep-full",
                            "--shard-bytes"],
        ("comm", "test"): ["--backend", "--min-bytes", "--max-bytes", "--iters", "--timeout-ms"],
    }
    SWITCHES = {("plugins",): ["--json", "--options"], ("pack",): ["--json"], ("simulate",): ["--json"],
                ("ckpt", "ls"): ["--json", "--verify"], ("ckpt", "latest"): ["--json"], ("ckpt", "verify"): ["--json"],
                ("ckpt", "inspect"): ["--json"], ("ckpt", "gc"): ["--json"], ("ckpt", "bench"): ["--json", "--keep"],
                ("comm", "test"): ["--json", "--no-bandwidth"]}

    def test_help_lists_every_flag(self):
        for command in sorted(set(self.VALUE_FLAGS) | set(self.SWITCHES)):
            help_text = run(list(command) + ["--help"])
            self.assertEqual(help_text.returncode, 0, help_text.stderr)
            for flag in self.VALUE_FLAGS.get(command, []) + self.SWITCHES.get(command, []):
                with self.subTest(command=command, flag=flag):
                    self.assertIn(flag, help_text.stdout)

    def test_a_value_flag_without_its_value_is_named(self):
        for command, flags in self.VALUE_FLAGS.items():
            for flag in flags:
                for tail in ([flag], [flag, "--json"]):
                    with self.subTest(command=command, args=tail):
                        result = run(list(command) + ["somewhere"] + tail)
                        self.assertEqual(result.returncode, 2, result.stderr)
                        self.assertIn("%s needs a value" % flag, result.stderr)

    def test_a_flag_given_twice_or_a_switch_with_a_value_is_named(self):
        twice = run(["pack", "--max-len", "8", "--max-len", "9"])
        self.assertEqual(twice.returncode, 2)
        self.assertIn("--max-len given twice", twice.stderr)
        valued = run(["plugins", "--json=yes"])
        self.assertEqual(valued.returncode, 2)
        self.assertIn("--json takes no value", valued.stderr)

    def test_bad_usage_is_one_line_pointing_to_help_and_json_under_json(self):
        for command in self.COMMANDS:
            if command == ["ckpt"]:
                continue  # `frugal ckpt --bogus` is an unknown subcommand, checked below
            with self.subTest(command=command):
                result = run(command + ["--bogus-flag"])
                self.assertEqual(result.returncode, 2, result.stderr)
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn("--bogus-flag", lines[0])
                self.assertIn("(see 'frugal %s --help')" % " ".join(command), lines[0])
                with_json = run(command + ["--bogus-flag", "--json"])
                self.assertEqual(with_json.returncode, 2)
                error = json.loads(with_json.stdout)
                self.assertEqual(error["error"]["code"], "USAGE")
                self.assertEqual(error["exit_code"], 2)
                self.assertIn("--bogus-flag", error["error"]["message"])
        for args in (["ckpt", "nope"], ["nope"]):
            with self.subTest(args=args):
                result = run(args)
                self.assertEqual(result.returncode, 2)
                self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
                self.assertIn("--help'", result.stderr)

    def test_install_tree_finds_its_builtin_plugins_without_environment(self):
        with tempfile.TemporaryDirectory() as prefix:
            install = subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", prefix],
                                     capture_output=True, text=True, timeout=300)
            self.assertEqual(install.returncode, 0, install.stderr)
            installed_cli = os.path.join(prefix, "bin", "frugal")
            result = run(["plugins", "--json"], cli=installed_cli)
            self.assertEqual(result.returncode, 0, result.stderr)
            listing = json.loads(result.stdout)
            lr = [p for p in listing["plugins"] if p["name"] == "schedule_lr"]
            self.assertEqual(len(lr), 1)
            self.assertTrue(lr[0]["path"].startswith(os.path.realpath(prefix)), lr[0]["path"])
            self.assertTrue(os.path.isfile(os.path.join(prefix, "include", "frugal", "frugal.h")))


if __name__ == "__main__":
    unittest.main()
