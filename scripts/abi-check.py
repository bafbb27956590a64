#!/usr/bin/env python3
"""The ABI gate: compare a built libfrugal with the committed ABI baseline.

usage: abi-check.py [--headers-dir DIR] LIBFRUGAL_OR_ABIXML [BASELINE]
       abi-check.py --update [--headers-dir DIR] LIBFRUGAL [BASELINE]

Exit status: 0 the library keeps every promise of the baseline; 1 it breaks
one (the verdict names what); 2 the check itself could not run.

What a minor release may change is ABI rule 2 (docs/abi-rules.md). libabigail
(abidw, abidiff) compares the types and exported functions; this script adds
what abidiff cannot know: that appended trailing fields are allowed only in
structs that start with struct_size, and that a new function must be exported
under a new symbol version node.
"""
import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = REPO / "abi" / "baseline" / "libfrugal.so.2.4.abi"
DEFAULT_HEADERS = REPO / "abi" / "include" / "frugal"

# Only what the public headers define, only what is exported, and nothing that
# depends on where or how the tree was built (paths, line numbers, build type),
# so one baseline serves every checkout and every build.
ABIDW_OPTIONS = ["--no-corpus-path", "--no-comp-dir-path", "--no-show-locs", "--short-locs", "--no-elf-needed", "--drop-private-types",
                 "--exported-interfaces-only", "--type-id-style", "hash"]

# abidiff's exit status is a bit set (man abidiff).
ABIDIFF_ERROR, ABIDIFF_USAGE_ERROR, ABIDIFF_ABI_CHANGE, ABIDIFF_ABI_INCOMPATIBLE_CHANGE = 1, 2, 4, 8


class CheckError(Exception):
    """The check could not run (missing tool, unreadable input)."""


def run(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, check=False)
    except FileNotFoundError as missing:
        raise CheckError(f"{command[0]} not found; install Debian's abigail-tools (scripts/setup-deps.sh)") from missing


def has_debug_info(library):
    """True unless readelf shows that `library` has no DWARF (.debug_info) to read types from."""
    try:
        sections = subprocess.run(["readelf", "-S", "-W", str(library)], capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return True  # cannot tell: let abidw judge
    return sections.returncode != 0 or ".debug_info" in sections.stdout


def abidw(library, headers_dir, out_file):
    """Write the ABI of `library` as abidw XML to `out_file`."""
    if not Path(library).is_file():
        raise CheckError(f"no such library: {library}")
    # Without DWARF abidw still succeeds, with no types: every struct would
    # read as removed. Say what is missing instead.
    if not has_debug_info(library):
        raise CheckError(f"{library} has no debug info (.debug_info): abidw reads the ABI's types from DWARF, so "
                         "build it with -g (libfrugal and the gate's probes get -g in every build type) and do not "
                         "strip it before the check")
    result = run(["abidw", *ABIDW_OPTIONS, "--headers-dir", str(headers_dir), "--out-file", str(out_file),
                  str(library)])
    if result.returncode != 0:
        raise CheckError(f"abidw failed on {library}:\n{result.stderr.strip()}")


def load_corpus(path):
    try:
        return ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as bad:
        raise CheckError(f"cannot read the ABI XML {path}: {bad}") from bad


def exported_symbols(corpus):
    """{name: version node} of every function and variable symbol the corpus exports."""
    return {symbol.get("name"): symbol.get("version", "")
            for symbol in corpus.iter("elf-symbol") if symbol.get("is-defined") == "yes"}


def sized_structs(corpus):
    """Names of the structs whose first field is struct_size: the ones a minor may grow (rule 3)."""
    names = set()
    for struct in corpus.iter("class-decl"):
        first = struct.find("data-member/var-decl")
        if first is not None and first.get("name") == "struct_size" and struct.get("name"):
            names.add(struct.get("name"))
    return sorted(names)


def symbol_version_breaks(old, new):
    """What abidiff does not judge: a symbol's version node moved, or a new symbol in a node that shipped."""
    old_symbols, new_symbols = exported_symbols(old), exported_symbols(new)
    # Rule 10 binds a library that versions its symbols (libfrugal). One with
    # no version script at all (the gate's plugin-surface probe) has no node
    # that shipped: it grows by new unversioned functions, one per minor.
    shipped_nodes = set(old_symbols.values()) - ({""} if set(old_symbols.values()) == {""} else set())
    breaks = []
    for name, version in sorted(new_symbols.items()):
        if name in old_symbols and old_symbols[name] != version:
            breaks.append(f"symbol {name} moved from version node {old_symbols[name] or '(none)'} "
                          f"to {version or '(none)'}")
        elif name not in old_symbols and version in shipped_nodes:
            breaks.append(f"new symbol {name} is exported under {version or '(no version)'}, a node that already "
                          f"shipped; list it in a new node (rule 10)")
    return breaks


def without_allowed_growth(old, new, struct_names):
    """Cut from `new` the fields that sized structs appended after the old ones; return what was cut.

    A struct qualifies only when its old fields are, by name and offset, the
    first fields of the new one and the added fields lie past the old size.
    Everything else about it (a retyped, moved or removed field) is left for
    abidiff to report. libabigail's own suppression for this
    (has_data_member_inserted_at = end) also hides moved and retyped fields,
    so the gate cannot use it.
    """
    old_structs = {struct.get("name"): struct for struct in old.iter("class-decl")
                   if struct.get("name") in struct_names and struct.get("size-in-bits")}
    grown = {}
    for struct in new.iter("class-decl"):
        before = old_structs.get(struct.get("name"))
        if before is None or not struct.get("size-in-bits"):
            continue
        layout = [(m.find("var-decl").get("name"), m.get("layout-offset-in-bits")) for m in members(before)]
        fields = members(struct)
        old_size = int(before.get("size-in-bits"))
        appended = fields[len(layout):]
        if ([(m.find("var-decl").get("name"), m.get("layout-offset-in-bits")) for m in fields[:len(layout)]] != layout
                or not appended or any(int(m.get("layout-offset-in-bits")) < old_size for m in appended)):
            continue
        for member in appended:
            struct.remove(member)
        struct.set("size-in-bits", str(old_size))
        grown[struct.get("name")] = [m.find("var-decl").get("name") for m in appended]
    return grown


def members(struct):
    return struct.findall("data-member")


def abidiff(old_xml, new_xml):
    # Added functions are judged by symbol_version_breaks; abidiff reports
    # the rest: removed or changed functions and every changed type.
    return run(["abidiff", "--no-added-syms", "--no-show-locs", str(old_xml), str(new_xml)])


def check(library, baseline, headers_dir, workdir):
    if not Path(baseline).is_file():
        raise CheckError(f"no baseline at {baseline}; create it with: abi-check.py --update {library}")
    new_xml = Path(library)
    if new_xml.suffix != ".abi":
        new_xml = workdir / "built.abi"
        abidw(library, headers_dir, new_xml)
    old, new = load_corpus(baseline), load_corpus(new_xml)
    breaks = symbol_version_breaks(old, new)
    grown = without_allowed_growth(old, new, sized_structs(old))
    compared = workdir / "compared.abi"
    ElementTree.ElementTree(new).write(compared)
    for name, fields in sorted(grown.items()):
        print(f"abi-check: allowed: {name} appended {', '.join(fields)} at its end (rule 3)")
    result = abidiff(baseline, compared)
    if result.returncode & (ABIDIFF_ERROR | ABIDIFF_USAGE_ERROR):
        raise CheckError(f"abidiff failed:\n{result.stderr.strip()}")
    abi_changed = result.returncode & (ABIDIFF_ABI_CHANGE | ABIDIFF_ABI_INCOMPATIBLE_CHANGE)

    if not breaks and not abi_changed:
        print(f"abi-check: PASS: {library} keeps the ABI of {baseline}")
        return 0
    print(f"abi-check: FAIL: {library} breaks the ABI of {baseline}")
    print("A minor release may only add functions (in a new version node) and append fields to structs that")
    print("start with struct_size (docs/abi-rules.md, rule 2). Anything else needs a new ABI major.")
    for line in breaks:
        print(f"  - {line}")
    if abi_changed:
        kind = "incompatible" if result.returncode & ABIDIFF_ABI_INCOMPATIBLE_CHANGE else "forbidden"
        print(f"abidiff found {kind} changes:")
        print(result.stdout.rstrip())
    return 1


def update(library, baseline, headers_dir):
    Path(baseline).parent.mkdir(parents=True, exist_ok=True)
    abidw(library, headers_dir, baseline)
    count = len(exported_symbols(load_corpus(baseline)))
    print(f"abi-check: wrote {baseline} ({count} exported symbols); review and commit it")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description="Compare a built libfrugal with the committed ABI baseline.")
    parser.add_argument("--update", action="store_true", help="rewrite the baseline from LIBRARY instead")
    parser.add_argument("--headers-dir", default=str(DEFAULT_HEADERS),
                        help="the public headers: only types they define count (default: abi/include/frugal)")
    parser.add_argument("library", help="the built libfrugal.so.N, or an ABI XML written by abidw")
    parser.add_argument("baseline", nargs="?", default=str(DEFAULT_BASELINE), help="the ABI XML to compare with")
    args = parser.parse_args(argv)
    try:
        if args.update:
            return update(args.library, args.baseline, args.headers_dir)
        with tempfile.TemporaryDirectory(prefix="abi-check.") as workdir:
            return check(args.library, args.baseline, args.headers_dir, Path(workdir))
    except CheckError as error:
        print(f"abi-check: ERROR: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
