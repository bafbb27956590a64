"""A bench's command line (the tools' parser, support/args): --help exits 0
and lists every flag (the list is made from the spec the parser reads); an
unknown flag and a value flag without its value exit 2 with one line naming
the flag and pointing to --help.

Usage: check_command_line.py PROGRAM VALUE_FLAG,... SWITCH,...
"""
import os
import subprocess
import sys


def run(args):
    result = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return result.returncode, result.stdout + result.stderr


def options_text(help_text):
    """The lists of arguments and options: from the first heading (a line
    such as "options:" whose next line is an indented entry) on."""
    lines = help_text.splitlines(keepends=True)
    for i, line in enumerate(lines[:-1]):
        if not line.startswith(" ") and line.endswith(":\n") and lines[i + 1].startswith("  "):
            return "".join(lines[i:])
    return ""


def main():
    program = sys.argv[1]
    value_flags = [f for f in sys.argv[2].split(",") if f]
    switches = [f for f in (sys.argv[3] if len(sys.argv) > 3 else "").split(",") if f]
    failures = []
    code, help_text = run([program, "--help"])
    missing = [f for f in value_flags + switches if f not in help_text]
    if code != 0 or missing:
        failures.append(f"--help: exit {code}, flags not listed: {missing}")
    listed = options_text(help_text)
    if "--help" not in listed:
        failures.append(f"--help: no options list found in {help_text!r}")
    name = os.path.basename(program)

    def one_line_naming(output, message):
        lines = output.splitlines()
        return (len(lines) == 1 and lines[0].startswith(name + ": ") and message in lines[0]
                and lines[0].endswith(f" (see '{name} --help')"))

    code, output = run([program, "--bogus"])
    if code != 2 or not one_line_naming(output, "unknown argument '--bogus'"):
        failures.append(f"--bogus: exit {code}, output {output!r}")
    for flag in value_flags:
        code, output = run([program, flag])
        if code != 2 or not one_line_naming(output, f"{flag} needs a value"):
            failures.append(f"{flag} without a value: exit {code}, output {output!r}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{program}: {2 + len(value_flags)} command-line cases checked")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
