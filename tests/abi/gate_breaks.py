#!/usr/bin/env python3
"""abi.gate_detects_breaks: the ABI gate refuses what ABI rule 2 forbids and passes what a minor may do.

usage: gate_breaks.py CHECK_SCRIPT LIBFRUGAL CC HEADERS_DIR SURFACE_SOURCE

Two kinds of cases:
- edited ABI XML: the built libfrugal's ABI, with the *old* side edited the
  way it would look had the built library broken it (the old had a function
  the new lacks, a field at another offset, ...), and the allowed growth
  (the old lacked a trailing field, the new has a function in a new node);
- real binaries: tests/abi/plugin_surface.c compiled against a copy of the
  public headers with one struct changed, compared with the real headers.
Each case states whether the gate must pass, and the words its verdict must
name. Prints one line per case; exits 1 if any case went wrong.
"""
import copy
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def elements(root, tag, name):
    found = [element for element in root.iter(tag) if element.get("name") == name]
    if not found:
        raise LookupError(f"the ABI XML has no {tag} named {name}; update gate_breaks.py to the current ABI")
    return found


def first_node(root):
    """The node of the ABI major's first release (FRUGAL_<major>.0), where frugal_abi_version lives."""
    return elements(root, "elf-symbol", "frugal_abi_version")[0].get("version")


def unshipped_node(root):
    """A FRUGAL_<major>.N node newer than every node the library `root` exports."""
    major = first_node(root).split(".", 1)[0]  # "FRUGAL_2"
    minors = [int(v.rsplit(".", 1)[1]) for v in (s.get("version", "") for s in root.iter("elf-symbol"))
              if v.startswith(major + ".")]
    return f"{major}.{max(minors, default=0) + 1}"


def add_function_copy(root, template, new_name, version):
    """A function like `template` named `new_name`, exported under `version`."""
    symbol = copy.deepcopy(elements(root, "elf-symbol", template)[0])
    symbol.set("name", new_name)
    symbol.set("version", version)
    root.find("elf-function-symbols").append(symbol)
    declaration = elements(root, "function-decl", template)[0]
    parent = next(p for p in root.iter() if declaration in list(p))
    clone = copy.deepcopy(declaration)
    clone.set("name", new_name)
    clone.set("mangled-name", new_name)
    clone.set("elf-symbol-id", f"{new_name}@@{version}")
    parent.append(clone)


def remove_function(root, name):
    for symbols in root.iter("elf-function-symbols"):
        for symbol in [s for s in symbols if s.get("name") == name]:
            symbols.remove(symbol)
    for parent in list(root.iter()):
        for child in [c for c in parent if c.tag == "function-decl" and c.get("name") == name]:
            parent.remove(child)


def members(struct):
    return struct.findall("data-member")


def swap_offsets(root, struct_name, first, second):
    """The struct's two fields at each other's offsets: what reordering them does."""
    for struct in elements(root, "class-decl", struct_name):
        by_name = {m.find("var-decl").get("name"): m for m in members(struct)}
        a, b = by_name[first], by_name[second]
        offset_a, offset_b = a.get("layout-offset-in-bits"), b.get("layout-offset-in-bits")
        a.set("layout-offset-in-bits", offset_b)
        b.set("layout-offset-in-bits", offset_a)


def drop_last_field(root, struct_name):
    """The struct as it was one minor earlier: without its last field."""
    for struct in elements(root, "class-decl", struct_name):
        last = members(struct)[-1]
        struct.remove(last)
        size = int(struct.get("size-in-bits"))
        struct.set("size-in-bits", str(int(last.get("layout-offset-in-bits")) if size else size))


def add_trailing_field(root, struct_name, field_name):
    """The struct with one more pointer-sized field at its end (a bigger old struct the new one shrank from)."""
    for struct in elements(root, "class-decl", struct_name):
        last = members(struct)[-1]
        extra = copy.deepcopy(last)
        size = int(struct.get("size-in-bits"))
        extra.set("layout-offset-in-bits", str(size))
        extra.find("var-decl").set("name", field_name)
        struct.insert(list(struct).index(last) + 1, extra)
        struct.set("size-in-bits", str(size + 64))


def retype_field(root, struct_name, field, like_field):
    """The struct's field with the type of another of its fields (e.g. a pointer where a size_t was)."""
    for struct in elements(root, "class-decl", struct_name):
        by_name = {m.find("var-decl").get("name"): m.find("var-decl") for m in members(struct)}
        by_name[field].set("type-id", by_name[like_field].get("type-id"))


def moved_and_grown(root):
    swap_offsets(root, "frugal_plugin_info", "version", "vendor")
    drop_last_field(root, "frugal_plugin_info")


def swap_parameter_types(root, function, first, second):
    for declaration in elements(root, "function-decl", function):
        params = declaration.findall("parameter")
        type_a, type_b = params[first].get("type-id"), params[second].get("type-id")
        params[first].set("type-id", type_b)
        params[second].set("type-id", type_a)


def set_return_type_like(root, function, like_function):
    wanted = elements(root, "function-decl", like_function)[0].find("return").get("type-id")
    for declaration in elements(root, "function-decl", function):
        declaration.find("return").set("type-id", wanted)


def move_symbol_version(root, name, version):
    for symbol in elements(root, "elf-symbol", name):
        symbol.set("version", version)
    for declaration in elements(root, "function-decl", name):
        declaration.set("elf-symbol-id", f"{name}@@{version}")


# (name, side edited, edit, gate must pass, words the verdict must name)
XML_CASES = [
    ("function removed", "old", lambda r: add_function_copy(r, "frugal_abi_version", "frugal_gone_function",
                                                             first_node(r)), False, ["frugal_gone_function"]),
    ("field moved", "old", lambda r: swap_offsets(r, "frugal_plugin_info", "version", "vendor"), False,
     ["frugal_plugin_info", "version", "offset"]),
    ("field retyped", "old", lambda r: retype_field(r, "frugal_plugin_info", "version", "struct_size"), False,
     ["frugal_plugin_info", "version", "type"]),
    ("field moved in a struct that also grew", "old", moved_and_grown, False, ["frugal_plugin_info", "vendor"]),
    ("parameter retyped", "old", lambda r: swap_parameter_types(r, "frugal_schedule_lr", 1, 2), False,
     ["frugal_schedule_lr", "parameter"]),
    ("return type changed", "old", lambda r: set_return_type_like(r, "frugal_abi_version", "frugal_version_string"),
     False, ["frugal_abi_version", "return type"]),
    ("struct shrunk", "old", lambda r: add_trailing_field(r, "frugal_plugin_info", "field_the_new_one_lacks"), False,
     ["frugal_plugin_info", "field_the_new_one_lacks"]),
    ("field appended to a struct without struct_size", "old", lambda r: drop_last_field(r, "frugal_dlpack_tensor"),
     False, ["frugal_dlpack_tensor", "byte_offset"]),
    ("symbol version node changed", "old", lambda r: move_symbol_version(r, "frugal_abi_version", "FRUGAL_0.9"),
     False, ["frugal_abi_version", "FRUGAL_0.9"]),
    ("new function in a node that shipped", "old", lambda r: remove_function(r, "frugal_version_string"), False,
     ["frugal_version_string", "FRUGAL_2.0"]),
    ("SONAME changed", "old", lambda r: r.set("soname", "libfrugal.so.0"), False, ["SONAME", "libfrugal.so.0"]),
    ("new function in a new node", "new", lambda r: add_function_copy(r, "frugal_abi_version", "frugal_added_later",
                                                                       unshipped_node(r)), True, []),
    ("field appended to a struct with struct_size", "old", lambda r: drop_last_field(r, "frugal_plugin_info"), True,
     []),
]


def run_gate(check_script, library, baseline, headers_dir=None):
    command = [sys.executable, str(check_script)]
    if headers_dir is not None:
        command += ["--headers-dir", str(headers_dir)]
    result = subprocess.run([*command, str(library), str(baseline)], capture_output=True, text=True, check=False)
    return result.returncode, result.stdout + result.stderr


def judge(name, must_pass, words, returncode, output):
    """One line of verdict; True when the gate did what the case requires."""
    if returncode not in (0, 1):
        print(f"FAIL {name}: the gate could not run (exit {returncode}):\n{output}")
        return False
    if must_pass != (returncode == 0):
        print(f"FAIL {name}: the gate {'refused' if returncode else 'passed'} it:\n{output}")
        return False
    missing = [word for word in words if word not in output]
    if missing:
        print(f"FAIL {name}: refused, but the verdict does not name {missing}:\n{output}")
        return False
    print(f"ok   {name}: {'passed' if must_pass else 'refused, naming ' + ', '.join(words)}")
    return True


def xml_cases(check_script, library, workdir):
    built = workdir / "built.abi"
    update = subprocess.run([sys.executable, str(check_script), "--update", str(library), str(built)],
                            capture_output=True, text=True, check=False)
    if update.returncode != 0:
        raise SystemExit(f"gate_breaks: cannot read the ABI of {library}:\n{update.stdout}{update.stderr}")
    results = []
    for name, side, edit, must_pass, words in XML_CASES:
        tree = ElementTree.parse(built)
        edit(tree.getroot())
        edited = workdir / (re.sub(r"\W+", "_", name) + ".abi")
        tree.write(edited)
        old, new = (edited, built) if side == "old" else (built, edited)
        results.append(judge(name, must_pass, words, *run_gate(check_script, new, old)))
    return results


def compile_surface(cc, include_dir, source, out):
    subprocess.run([cc, "-std=c99", "-shared", "-fPIC", "-g", "-O2", "-fvisibility=hidden", f"-I{include_dir}",
                    "-o", str(out), str(source)], check=True)


def edited_headers(headers_dir, workdir, name, edit):
    """A copy of the public headers with plugin.h edited; layout assertions off, as they would stop the build."""
    root = workdir / name
    shutil.copytree(headers_dir, root)
    platform = root / "frugal" / "platform.h"
    platform.write_text(platform.read_text().replace("#define FRUGAL_LP64 1", "#define FRUGAL_LP64 0"))
    plugin = root / "frugal" / "plugin.h"
    text = plugin.read_text()
    changed = edit(text)
    if changed == text:
        raise LookupError(f"case '{name}' did not change plugin.h; update gate_breaks.py to the current header")
    plugin.write_text(changed)
    return root


STRATEGY_FIELDS = "  const char* name;\n  /** One-line human description, or NULL. */\n  const char* summary;\n"
BINARY_CASES = [
    ("real binary: strategy_desc fields swapped",
     lambda t: t.replace(STRATEGY_FIELDS, "  const char* summary;\n  const char* name;\n"), False,
     ["frugal_strategy_desc", "summary"]),
    ("real binary: field appended to strategy_desc",
     lambda t: t.replace("  const frugal_ext_header* ext;\n} frugal_strategy_desc;",
                         "  const frugal_ext_header* ext;\n  int64_t added_in_1_1;\n} frugal_strategy_desc;"), True, []),
]


def binary_cases(check_script, cc, headers_dir, source, workdir):
    real = workdir / "surface_real.so"
    compile_surface(cc, headers_dir, source, real)
    real_abi = workdir / "surface_real.abi"
    subprocess.run([sys.executable, str(check_script), "--headers-dir", str(headers_dir / "frugal"), "--update",
                    str(real), str(real_abi)], check=True, capture_output=True)
    results = []
    for index, (name, edit, must_pass, words) in enumerate(BINARY_CASES):
        include = edited_headers(headers_dir, workdir, f"headers_{index}", edit)
        library = workdir / f"surface_{index}.so"
        compile_surface(cc, include, source, library)
        results.append(judge(name, must_pass, words,
                             *run_gate(check_script, library, real_abi, include / "frugal")))
    return results


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    check_script, library, cc, headers_dir, source = argv[0], argv[1], argv[2], Path(argv[3]), argv[4]
    with tempfile.TemporaryDirectory(prefix="abi-gate-breaks.") as tmp:
        workdir = Path(tmp)
        results = xml_cases(check_script, library, workdir)
        results += binary_cases(check_script, cc, headers_dir, source, workdir)
    print(f"{results.count(True)} of {len(results)} cases as required")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
