"""The SDK as a user gets it: `cmake --install` into a fresh prefix, the
vendor sample (samples/vendor_plugin) built against that prefix with
find_package and with pkg-config, both plugins loaded by the installed CLI
and libfrugal and checked by frugal-conformance; then the .deb and .tar.gz
from CPack, the .deb extracted into an empty root and run from there."""
import glob
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import unittest

BUILD_DIR = os.environ["FRUGAL_BUILD_DIR"]
SOURCE_DIR = os.environ["FRUGAL_SOURCE_DIR"]
LIBDIR = os.environ["FRUGAL_INSTALL_LIBDIR"]
CXX = os.environ["FRUGAL_CXX"]
SDK_VERSION = os.environ["FRUGAL_SDK_VERSION"]
SAMPLE = os.path.join(SOURCE_DIR, "samples", "vendor_plugin")
HOST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libfrugal_host.py")
# comm_mpi is built only where CMake found MPI (scripts/setup-deps.sh installs it).
HAVE_COMM_MPI = os.path.exists(os.path.join(BUILD_DIR, "lib", "frugal", "v2", "plugins", "comm_mpi.so"))
# comm_nccl is built only where CUDA and NCCL were found.
HAVE_COMM_NCCL = os.path.exists(os.path.join(BUILD_DIR, "lib", "frugal", "v2", "plugins", "comm_nccl.so"))
BUILTIN = ["comm_local"] + (["comm_mpi"] if HAVE_COMM_MPI else []) + (["comm_nccl"] if HAVE_COMM_NCCL else []) + [
    "packer_seq", "policy_cost", "quant_fp8", "router_moe", "schedule_lr", "store_fs"]


def header_abi_version():
    """(major, minor) of FRUGAL_ABI_VERSION_MAJOR/MINOR in the source tree's frugal/version.h, the
    version the build (CMakeLists.txt reads the same lines) gave the library, its .pc and CMake files."""
    with open(os.path.join(SOURCE_DIR, "abi", "include", "frugal", "version.h")) as f:
        text = f.read()
    return tuple(int(re.search(rf"^#define FRUGAL_ABI_VERSION_{part} (\d+)$", text, re.M).group(1))
                 for part in ("MAJOR", "MINOR"))


ABI_MAJOR, ABI_MINOR = header_abi_version()
#: The ABI version as the .pc files, the CMake package and `frugal plugins` write it: "2.2".
ABI_VERSION = f"{ABI_MAJOR}.{ABI_MINOR}"
#: The real file of the SONAME link: libfrugal.so.<ABI major>.<ABI minor>.0.
LIBRARY_FILE = f"libfrugal.so.{ABI_MAJOR}.{ABI_MINOR}.0"
# Two buckets of width 500: {100, 300, 120, 50, 60} and {900, 700, 880}.
LENGTHS = [100, 900, 300, 700, 120, 880, 50, 60]


def run(args, env_extra=None, cwd=None, timeout=120):
    """Runs a command with no frugal variables inherited from the caller."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("FRUGAL_PLUGIN_PATH", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH")}
    env.update(env_extra or {})
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


def ok(test, result):
    test.assertEqual(result.returncode, 0, f"{result.args}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    return result.stdout


def exported_symbols(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def needed_and_soname(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    needed = [line.split("[")[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]
    soname = [line.split("[")[1].rstrip("]") for line in out.splitlines() if "(SONAME)" in line]
    return needed, soname


def build_with_cmake(test, prefix, out):
    ok(test, run(["cmake", "-S", SAMPLE, "-B", out, "-DCMAKE_BUILD_TYPE=", "-DCMAKE_CXX_FLAGS=-O1",
                  f"-DCMAKE_CXX_COMPILER={CXX}"], {"CMAKE_PREFIX_PATH": prefix}))
    ok(test, run(["cmake", "--build", out, "-j2"]))
    return os.path.join(out, "vendor_bucket.so")


def unique_symbols(path):
    """STB_GNU_UNIQUE symbols: with one, dlclose cannot unload the .so."""
    out = subprocess.run(["readelf", "--wide", "--symbols", path], capture_output=True, text=True, check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if " UNIQUE " in line]


def build_with_pkg_config(test, pkgconfig_dir, out):
    ok(test, run(["make", "-C", SAMPLE, f"OUT={out}", "CXXFLAGS=-O1", f"CXX={CXX}"],
                 {"PKG_CONFIG_PATH": pkgconfig_dir}))
    plugin = os.path.join(out, "vendor_bucket.so")
    # GCC needs gcc_cxxflags' -fno-gnu-unique for this; Clang emits none.
    test.assertEqual(unique_symbols(plugin), [], plugin)
    return plugin


def listing(cli, plugin_dir=None):
    result = run([cli, "plugins", "--json"], {"FRUGAL_PLUGIN_PATH": plugin_dir} if plugin_dir else None)
    return result, (json.loads(result.stdout) if result.stdout else None)


def without_unreachable_nccl(test, found):
    """The listing's plugin names and failures, less comm_nccl where it could
    not load because libnccl.so.2 is not on the loader's path: an installed
    plugin carries no RUNPATH, and NVIDIA's libnccl2 package puts the library
    there while a toolkit's own copy (/usr/local/cuda/lib64) is not. Any
    other failure of comm_nccl stays a failure."""
    names = [p["name"] for p in found["plugins"]]
    failures = found["failures"]
    if HAVE_COMM_NCCL and "comm_nccl" not in names:
        nccl = [f for f in failures if os.path.basename(f["path"]) == "comm_nccl.so"]
        test.assertEqual(len(nccl), 1, failures)
        test.assertIn("libnccl.so.2", nccl[0]["error"])
        failures = [f for f in failures if f not in nccl]
        names = names + ["comm_nccl"]
    return names, failures


class InstallTree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.prefix = os.path.join(cls.tmp.name, "prefix")
        cls.install = run(["cmake", "--install", BUILD_DIR, "--prefix", cls.prefix], timeout=300)
        cls.lib = os.path.join(cls.prefix, LIBDIR)
        cls.plugin_dir = os.path.join(cls.lib, "frugal", "v2", "plugins")
        cls.cli = os.path.join(cls.prefix, "bin", "frugal")
        cls.built = {}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        ok(self, self.install)

    def vendor_plugin(self, how):
        """The sample built against the prefix, once per way (cached)."""
        if how not in self.built:
            out = os.path.join(self.tmp.name, f"vendor-{how}")
            if how == "cmake":
                self.built[how] = build_with_cmake(self, self.prefix, out)
            else:
                self.built[how] = build_with_pkg_config(self, os.path.join(self.lib, "pkgconfig"), out)
        return self.built[how]

    def test_layout(self):
        for header in ("frugal/frugal.h", "frugal/plugin.h", "frugal/version.h", "frugal/sdk/packer_adapter.hpp",
                       "frugal/sdk/plugin_support.hpp"):
            self.assertTrue(os.path.isfile(os.path.join(self.prefix, "include", header)), header)
        real = os.path.join(self.lib, LIBRARY_FILE)
        self.assertTrue(os.path.isfile(real) and not os.path.islink(real))
        self.assertEqual(os.readlink(os.path.join(self.lib, "libfrugal.so.2")), LIBRARY_FILE)
        self.assertEqual(os.readlink(os.path.join(self.lib, "libfrugal.so")), "libfrugal.so.2")
        self.assertEqual(needed_and_soname(real)[1], ["libfrugal.so.2"])
        self.assertEqual(sorted(os.listdir(self.plugin_dir)), [f"{name}.so" for name in BUILTIN])
        self.assertTrue(os.access(self.cli, os.X_OK))
        cmake_dir = os.path.join(self.lib, "cmake", "frugal")
        for name in ("frugalConfig.cmake", "frugalConfigVersion.cmake", "frugalTargets.cmake",
                     "FrugalPluginRules.cmake", "FrugalVendorPlugin.cmake", "plugin.map"):
            self.assertTrue(os.path.isfile(os.path.join(cmake_dir, name)), name)
        for pc in ("frugal.pc", "frugal-plugin.pc"):
            self.assertTrue(os.path.isfile(os.path.join(self.lib, "pkgconfig", pc)), pc)

    def test_pkg_config_describes_the_prefix(self):
        env = {"PKG_CONFIG_PATH": os.path.join(self.lib, "pkgconfig")}
        plugindir = ok(self, run(["pkg-config", "--variable=plugindir", "frugal"], env)).strip()
        self.assertEqual(os.path.realpath(plugindir), os.path.realpath(self.plugin_dir))
        self.assertEqual(ok(self, run(["pkg-config", "--modversion", "frugal"], env)).strip(), ABI_VERSION)
        self.assertEqual(ok(self, run(["pkg-config", "--variable=sdk_version", "frugal"], env)).strip(), SDK_VERSION)
        self.assertIn("-lfrugal", ok(self, run(["pkg-config", "--libs", "frugal"], env)).split())
        for pc in ("frugal", "frugal-plugin"):
            # No code-generation flags for consumers (lintian: pkg-config-bad-directive).
            cflags = ok(self, run(["pkg-config", "--cflags", pc], env)).split()
            self.assertEqual([f for f in cflags if f.startswith("-f")], [], pc)
        plugin_libs = ok(self, run(["pkg-config", "--libs", "frugal-plugin"], env)).split()
        self.assertNotIn("-lfrugal", plugin_libs)
        self.assertIn("-Wl,--no-undefined", plugin_libs)

    def test_find_package_asks_for_the_abi_version(self):
        # SameMajorVersion on the ABI: every minor up to this core's (2.0 to
        # 2.4 for ABI 2.4) is found, the next one (newer than this core) and
        # the next major are refused. A request of a lower major is an SDK
        # release (the packages' version, e.g. 0.6.0): 0.6, 0.6.0 and 0.5 (an
        # older release of the same major) are found, 0.7 (newer than this
        # release) and 1.1 (ABI 1's number, read as a release that does not
        # exist) are refused.
        project = os.path.join(self.tmp.name, "version_probe")
        os.makedirs(project, exist_ok=True)
        sdk_major, sdk_minor = (int(part) for part in SDK_VERSION.split(".")[:2])
        requests = [(f"{ABI_MAJOR}.{minor}", True, ABI_VERSION) for minor in range(ABI_MINOR + 1)]
        requests += [(f"{ABI_MAJOR}.{ABI_MINOR + 1}", False, ABI_VERSION), (f"{ABI_MAJOR + 1}.0", False, ABI_VERSION),
                     ("1.1", False, SDK_VERSION),
                     (f"{sdk_major}.{sdk_minor}", True, SDK_VERSION), (SDK_VERSION, True, SDK_VERSION),
                     (f"{sdk_major}.{sdk_minor + 1}", False, SDK_VERSION), ("0.1...1.0", True, SDK_VERSION)]
        if sdk_minor > 0:
            requests.append((f"{sdk_major}.{sdk_minor - 1}", True, SDK_VERSION))
        for wanted, found, version in requests:
            with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
                # A language, as every real consumer has: CMake searches
                # lib/<multiarch>/cmake only once it knows the target's
                # architecture from a compiler.
                f.write("cmake_minimum_required(VERSION 3.25)\nproject(probe LANGUAGES C)\n"
                        f"find_package(frugal {wanted} REQUIRED)\n"
                        "message(STATUS \"version=${frugal_VERSION} sdk=${frugal_SDK_VERSION} "
                        "abi=${frugal_ABI_VERSION} dir=${frugal_PLUGIN_DIR}\")\n")
            result = run(["cmake", "-S", project, "-B", os.path.join(project, f"build-{wanted}")],
                         {"CMAKE_PREFIX_PATH": self.prefix})
            self.assertEqual(result.returncode == 0, found, f"find_package(frugal {wanted}):\n{result.stderr}")
            if found:
                self.assertIn(f"version={version} sdk={SDK_VERSION} abi={ABI_VERSION} dir={self.plugin_dir}",
                              result.stdout)
            else:
                self.assertIn(f"version: {version}", result.stderr)

    def check_vendor_plugin(self, how):
        plugin = self.vendor_plugin(how)
        self.assertEqual(exported_symbols(plugin), ["frugal_plugin_init_v2"])
        self.assertNotIn("libfrugal.so.2", needed_and_soname(plugin)[0], "a plugin must not link libfrugal")
        plugin_dir = os.path.dirname(plugin)

        result, found = listing(self.cli, plugin_dir)
        ok(self, result)
        names, failures = without_unreachable_nccl(self, found)
        self.assertEqual(failures, [])
        self.assertEqual(sorted(names), sorted(BUILTIN + ["vendor_bucket"]))
        by_name = {p["name"]: p for p in found["plugins"]}
        vendor = by_name["vendor_bucket"]
        self.assertEqual(os.path.realpath(vendor["path"]), os.path.realpath(plugin))
        self.assertEqual(vendor["abi"], ABI_VERSION)
        self.assertEqual([(s["name"], s["kind"]) for s in vendor["strategies"]], [("vendor_bucket", "packer")])

        # Through the installed libfrugal's C API, as a host would use it.
        packs = json.loads(ok(self, run([sys.executable, HOST, os.path.join(self.lib, "libfrugal.so.2"),
                                         "vendor_bucket", '{"max_len": 1000, "bucket_width": 500}',
                                         json.dumps(LENGTHS)], {"FRUGAL_PLUGIN_PATH": plugin_dir})))
        self.assertEqual(sorted(i for p in packs for i in p), list(range(len(LENGTHS))))
        for p in packs:
            self.assertLessEqual(sum(LENGTHS[i] for i in p), 1000, p)
            self.assertEqual(len({(LENGTHS[i] - 1) // 500 for i in p}), 1, f"pack {p} mixes buckets")
        # Long bucket: 900, 880, 700 fit no pair; short bucket: 630 tokens, one pack.
        self.assertEqual(packs, [[1], [5], [3], [2, 4, 0, 7, 6]])

        # Through the installed CLI: `frugal pack --strategy` runs any packer a
        # plugin provides (default bucket_width 256 here).
        lengths_file = os.path.join(self.tmp.name, f"lengths-{how}.txt")
        assignments_file = os.path.join(self.tmp.name, f"assignments-{how}.txt")
        with open(lengths_file, "w") as f:
            f.write("\n".join(map(str, LENGTHS)) + "\n")
        summary = json.loads(ok(self, run([self.cli, "pack", "--strategy", "vendor_bucket", "--lengths", lengths_file,
                                           "--max-len", "1000", "--assignments", assignments_file, "--json"],
                                          {"FRUGAL_PLUGIN_PATH": plugin_dir})))
        self.assertEqual(summary["algorithm"], "vendor_bucket")
        with open(assignments_file) as f:
            cli_packs = [[int(i) for i in line.split()] for line in f if line.strip()]
        # Buckets of 256: 900 and 880 (no pair fits), 700, 300, then 120+100+60+50.
        self.assertEqual(cli_packs, [[1], [5], [3], [2], [4, 0, 7, 6]])

        conformance = os.path.join(self.prefix, "bin", "frugal-conformance")
        self.assertTrue(os.access(conformance, os.X_OK),
                        "frugal-conformance is not installed (target frugal_conformance, sdk/conformance)")
        ok(self, run([conformance, plugin], timeout=240))

    def test_vendor_sample_built_with_find_package(self):
        self.check_vendor_plugin("cmake")

    def test_vendor_sample_built_with_pkg_config(self):
        self.check_vendor_plugin("pkg-config")


if __name__ == "__main__":
    unittest.main()
