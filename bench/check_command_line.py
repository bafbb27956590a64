"""A bench's command line (the tools' parser, sdk/args): --help exits 0
and lists every flag; an unknown flag and a value flag without its value
exit 2 naming the flag.

Usage: check_command_line.py PROGRAM VALUE_FLAG,... SWITCH,...
"""
import subprocess
import sys


def run(args):
    result = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return result.returncode, result.stdout + result.stderr


def main():
    program = sys.argv[1]
    value_flags = [f for f in sys.argv[2].split(",") if f]
    switches = [f for f in sys.argv[3].split(",") if f]
    failures = []
    code, output = run([program, "--help"])
    missing = [f for f in value_flags + switches if f not in output]
    if code != 0 or missing:
        failures.append(f"--help: exit {code}, flags not listed: {missing}")
    code, output = run([program, "--bogus"])
    if code != 2 or "unknown argument '--bogus'" not in output:
        failures.append(f"--bogus: exit {code}, output {output!r}")
    for flag in value_flags:
        code, output = run([program, flag])
        if code != 2 or f"{flag} needs a value" not in output:
            failures.append(f"{flag} without a value: exit {code}, output {output!r}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{program}: {2 + len(value_flags)} command-line cases checked")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
