"""demo.options: frugal-demo refuses bad command lines with exit code 2 and
a message naming the option, and refuses an --out it must not touch.

Usage: check_option_errors.py FRUGAL_DEMO SCRATCH_DIR
"""
import os
import shutil
import subprocess
import sys

CASES = [
    (["--bogus"], 2, "unknown argument '--bogus'"),
    (["extra"], 2, "unexpected argument 'extra'"),
    (["--threads", "zero"], 2, "option --threads: 'zero' is not a non-negative integer"),
    (["--threads", "0"], 2, "option --threads: '0' is not in 1..64"),
    (["--budget-s", "-3"], 2, "option --budget-s: '-3' is not a positive number of seconds"),
    (["--seed"], 2, "--seed needs a value"),
    (["--out", "--quick"], 2, "--out needs a value"),
    (["--worker", "nobody"], 2, "option --worker: 'nobody' is not a run"),
    (["--seed", "1", "--seed", "2"], 2, "--seed given twice"),
    (["--quick=yes"], 2, "--quick takes no value"),
]
HINT = " (see 'frugal-demo --help')\n"


def run(demo, args):
    result = subprocess.run([demo] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    return result.returncode, result.stdout + result.stderr


def main():
    demo, scratch = sys.argv[1], sys.argv[2]
    failures = []
    for args, code, message in CASES:
        got_code, output = run(demo, args)
        # One line: the problem, then where the options are listed.
        one_line = len(output.splitlines()) == 1 and output.startswith("frugal-demo: ")
        if got_code != code or not one_line or message not in output or not output.endswith(HINT):
            failures.append(f"{args}: exit {got_code}, output {output!r}; want exit {code}, one line with "
                            f"{message!r} ending {HINT!r}")
    # An --out that holds someone else's files is refused, and left alone.
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    keep = os.path.join(scratch, "notes.txt")
    with open(keep, "w") as f:
        f.write("not the demo's\n")
    got_code, output = run(demo, ["--quick", "--out", scratch])
    if got_code != 1 or "is not a previous frugal-demo output" not in output or not os.path.exists(keep):
        failures.append(f"--out with foreign files: exit {got_code}, output {output!r}")
    # A missing corpus is named.
    missing = os.path.join(scratch, "no-such-corpus")
    got_code, output = run(demo, ["--quick", "--out", os.path.join(scratch, "out"), "--corpus", missing])
    if got_code != 1 or missing not in output:
        failures.append(f"--corpus {missing}: exit {got_code}, output {output!r}")
    got_code, output = run(demo, ["--help"])
    if got_code != 0 or any(flag not in output for flag in ("--out", "--quick", "--budget-s", "--seed", "--threads",
                                                           "--corpus", "--no-preempt")):
        failures.append(f"--help: exit {got_code}, output {output!r}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(CASES) + 3} option cases checked")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
