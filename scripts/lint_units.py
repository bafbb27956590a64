#!/usr/bin/env python3
"""usage: scripts/lint_units.py BUILD_DIR [BASE|cover]

Prints what scripts/lint.sh hands to clang-tidy: on the first line the
header filter (a regular expression for the project's own headers), then
the translation units to check, one absolute path a line.

The units are the project's own sources as the build compiles them: every
entry of BUILD_DIR/compile_commands.json that git tracks, outside tests/
and bench/ (generated sources in build folders are not ours to fix).

With BASE (a git revision), only what changed since its merge base with
HEAD, committed or not: each changed unit, and for each changed header one
unit that includes it (the build's dependency files say which), since a
finding in a header is reported from any unit that includes it and
checking one unit costs seconds. A change to a .clang-tidy file or to the
lint scripts selects every unit: the rules themselves changed.

With "cover", the fewest units (picked greedily) that together include
every project header any unit includes: every header is checked, and
each chosen unit's own code, at a fraction of the cost of all units.
"""
import json
import os
import shlex
import subprocess
import sys

HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".inc", ".def")
EXCLUDED_TOP = ("tests", "bench")
RULE_FILES = ("scripts/lint.sh", "scripts/lint_units.py")


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def own_units(build_dir, root):
    db_path = os.path.join(build_dir, "compile_commands.json")
    try:
        with open(db_path, encoding="utf-8") as f:
            entries = json.load(f)
    except OSError as e:
        sys.exit(f"lint_units.py: cannot read {db_path} ({e.strerror}); configure the build with "
                 "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
    tracked = set(git("ls-files").splitlines())
    units = {}
    for e in entries:
        path = os.path.normpath(os.path.join(e["directory"], e["file"]))
        rel = os.path.relpath(path, root)
        if rel in tracked and rel.split("/", 1)[0] not in EXCLUDED_TOP:
            units[rel] = e
    return units


def depfile_headers(entry):
    """The files a unit's last compile read, from its .o.d dependency file."""
    args = shlex.split(entry["command"]) if "command" in entry else entry["arguments"]
    if "-o" not in args:
        return set()
    depfile = os.path.join(entry["directory"], args[args.index("-o") + 1] + ".d")
    try:
        with open(depfile, encoding="utf-8") as f:
            text = f.read().replace("\\\n", " ")
    except OSError:
        return set()
    _, _, deps = text.partition(": ")
    return {os.path.normpath(os.path.join(entry["directory"], d)) for d in deps.split()}


def changed_units(units, base, root):
    try:
        merge_base = git("merge-base", base, "HEAD").strip()
    except subprocess.CalledProcessError:
        # A shallow clone may not reach it: then nothing can be ruled out.
        print(f"lint_units.py: no merge base of {base} and HEAD (shallow clone?): every unit", file=sys.stderr)
        return sorted(units)
    changed = set(git("diff", "--name-only", merge_base).splitlines())
    if any(p in RULE_FILES or os.path.basename(p) == ".clang-tidy" for p in changed):
        return sorted(units)
    picked = {p for p in changed if p in units}
    headers = {os.path.join(root, p) for p in changed if p.endswith(HEADER_SUFFIXES) and os.path.exists(p)}
    for rel in sorted(units):
        if not headers:
            break
        found = headers & depfile_headers(units[rel])
        if found:
            picked.add(rel)
            headers -= found
    return sorted(picked)


def covering_units(units, header_re):
    """Greedy set cover of the project headers the units include."""
    import re
    pattern = re.compile(header_re)
    reads = {}
    for rel, entry in units.items():
        reads[rel] = {h for h in depfile_headers(entry) if pattern.match(h) and h.endswith(HEADER_SUFFIXES)}
    missing = [rel for rel, hs in reads.items() if not hs]
    if len(missing) == len(reads):
        sys.exit("lint_units.py: no dependency files next to the objects: build the tree before linting")
    uncovered = set().union(*reads.values())
    picked = []
    while uncovered:
        best = max(sorted(reads), key=lambda rel: len(reads[rel] & uncovered))
        picked.append(best)
        uncovered -= reads[best]
    return sorted(picked)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[0])
    root = git("rev-parse", "--show-toplevel").strip()
    units = own_units(os.path.abspath(sys.argv[1]), root)
    if not units:
        sys.exit(f"lint_units.py: {sys.argv[1]}/compile_commands.json names none of the project's sources")
    # The folders that hold our units, and abi/ (the C headers, no units of
    # their own): the header filter follows the tree when folders move.
    tops = sorted({rel.split("/", 1)[0] for rel in units} | {"abi"})
    print("^" + root + "/(" + "|".join(tops) + ")/")
    header_re = "^" + root + "/(" + "|".join(tops) + ")/"
    if len(sys.argv) == 2:
        selected = sorted(units)
    elif sys.argv[2] == "cover":
        selected = covering_units(units, header_re)
    else:
        selected = changed_units(units, sys.argv[2], root)
    for rel in selected:
        print(os.path.join(root, rel))


if __name__ == "__main__":
    main()
