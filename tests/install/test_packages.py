"""The Debian packages as a distribution would take them: the .debs
CPack makes (libfrugal2, libfrugal-dev, frugal-tools, python3-frugal and, with MPI, frugal-comm-mpi) and
the .tar.gz, checked with lintian, split as documented (files, control
fields, dependencies, shlibs/symbols/triggers), extracted into an empty root
and used from there: the CLI, the Python binding, a vendor plugin built with
pkg-config and a host built with pkg-config and with find_package(frugal 0.6).
A downstream package linking libfrugal gets its dependency from dpkg-shlibdeps."""
import glob
import gzip
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

from test_install import (ABI_VERSION, BUILD_DIR, BUILTIN, HAVE_COMM_MPI, HAVE_COMM_NCCL, LIBDIR, LIBRARY_FILE, SDK_VERSION, build_with_pkg_config, exported_symbols, listing, ok,
                          without_unreachable_nccl,
                          run)

HERE = os.path.dirname(os.path.abspath(__file__))
CONSUMER = os.path.join(HERE, "consumer")
MULTIARCH = subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], capture_output=True, text=True,
                           check=True).stdout.strip()
DEB_VERSION = f"{SDK_VERSION}-1"
RUNTIME = "libfrugal2"
# comm_mpi has a package of its own, so libfrugal2 never pulls in OpenMPI.
MPI_PACKAGE = "frugal-comm-mpi"
# comm_nccl likewise, so nothing but it needs NCCL.
NCCL_PACKAGE = "frugal-comm-nccl"
PACKAGES = [RUNTIME, "libfrugal-dev", "frugal-tools", "python3-frugal"] + ([MPI_PACKAGE] if HAVE_COMM_MPI else []) + (
    [NCCL_PACKAGE] if HAVE_COMM_NCCL else [])
LIB = f"usr/lib/{MULTIARCH}"
PYTHON_DIR = "usr/lib/python3/dist-packages/frugal"
#: The releases that first shipped the FRUGAL_2.0, 2.1, 2.2 and 2.3 symbol
#: nodes (packaging/debian/symver-releases.txt).
FRUGAL_2_0_RELEASE = "0.2.0"
FRUGAL_2_1_RELEASE = "0.3.0"
FRUGAL_2_2_RELEASE = "0.4.0"
FRUGAL_2_3_RELEASE = "0.5.0"

# What lintian may still say, and why. Anything else, and every E:, fails.
ALLOWED_TAGS = {
    # The changelog's one entry is the first packaging; these packages are
    # built by upstream, not uploaded to Debian, so there is no ITP bug to close.
    "initial-upload-closes-no-bugs": "not an upload to Debian",
    # CPack (3.25) always adds `ldconfig` to postinst/postrm of a package with
    # a library under /usr/lib; harmless next to the ldconfig trigger, which is
    # what lintian requires.
    "maintscript-calls-ldconfig": "written by CPack",
    # The tools document themselves with --help; no man pages are written yet.
    "no-manual-page": "the tools have --help",
    # I: the binaries are built with the project's flags, not with
    # dpkg-buildflags' hardening ones (-D_FORTIFY_SOURCE=2, -Wl,-z,now); a
    # distribution build adds them through CMAKE_<LANG>_FLAGS and
    # CMAKE_*_LINKER_FLAGS.
    "hardening-no-bindnow": "project flags, not dpkg-buildflags",
    "hardening-no-fortify-functions": "project flags, not dpkg-buildflags",
    # I: CPack strips debug symbols only; the compiler's .comment stays.
    "binary-has-unneeded-section": "CPack's strip keeps .comment",
    # I: "occured" is in a message of NVIDIA's static CUDA runtime, linked
    # into libfrugal when the build has CUDA.
    "spelling-error-in-binary": "text of the CUDA runtime",
}


def control_fields(deb):
    fields = {}
    for line in subprocess.run(["dpkg-deb", "-f", deb], capture_output=True, text=True, check=True).stdout.splitlines():
        if line and not line[0].isspace() and ": " in line:
            key, value = line.split(": ", 1)
            fields[key] = value
    return fields


def contents(deb):
    """Paths (without the leading ./) of the files and symlinks in the data archive."""
    out = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True, check=True).stdout
    paths = set()
    for line in out.splitlines():
        mode, path = line.split()[0], line.split()[5]
        if not mode.startswith("d"):
            paths.add(path[2:])
    return paths


def control_file(deb, name):
    """A file of the control archive, or None."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["dpkg-deb", "-e", deb, tmp], check=True)
        path = os.path.join(tmp, name)
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return f.read()


def depends(fields):
    return {d.split()[0]: d for d in fields.get("Depends", "").split(", ") if d}


class DebianPackages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "packages")
        # cpack first builds the Makefiles' `preinstall` target, i.e. the whole
        # build tree with every test and benchmark (minutes with CUDA on 2
        # cores, and ctest runs after the build anyway). A generator without
        # such a target makes it go straight to cmake_install.cmake, like
        # `cmake --install`: the packages hold exactly what the build holds.
        cls.cpack = run(["cpack", "--config", os.path.join(BUILD_DIR, "CPackConfig.cmake"), "-B", cls.out,
                         "-D", "CPACK_CMAKE_GENERATOR=Ninja"], timeout=300)
        cls.debs = {}
        for deb in glob.glob(os.path.join(cls.out, "*.deb")):
            cls.debs[control_fields(deb)["Package"]] = deb
        cls.root = os.path.join(cls.tmp.name, "root")
        for deb in cls.debs.values():
            subprocess.run(["dpkg-deb", "-x", deb, cls.root], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        ok(self, self.cpack)

    def test_packages_made(self):
        self.assertEqual(sorted(self.debs), sorted(PACKAGES), os.listdir(self.out))

    def test_lintian_reports_no_errors(self):
        self.assertTrue(self.debs, os.listdir(self.out))
        result = run(["lintian", "--no-cfg", "--display-info", "--fail-on", "none"] + sorted(self.debs.values()),
                     timeout=240)
        ok(self, result)
        tags = [line for line in result.stdout.splitlines() if line[:3] in ("E: ", "W: ", "I: ")]
        self.assertEqual([t for t in tags if t.startswith("E: ")], [], "\n".join(tags))
        unexpected = [t for t in tags if t.split()[2] not in ALLOWED_TAGS]
        self.assertEqual(unexpected, [], "\n".join(tags))

    def test_files_are_split_by_package(self):
        files = {name: contents(deb) for name, deb in self.debs.items()}
        runtime = {f"{LIB}/{LIBRARY_FILE}", f"{LIB}/libfrugal.so.2"} | {
            f"{LIB}/frugal/v2/plugins/{p}.so" for p in BUILTIN if p not in ("comm_mpi", "comm_nccl")}
        self.assertEqual({f for f in files[RUNTIME] if not f.startswith("usr/share/doc/")}, runtime)
        dev = files["libfrugal-dev"]
        for path in ("usr/include/frugal/frugal.h", "usr/include/frugal/plugin.h", "usr/include/frugal/sdk/host.hpp",
                     f"{LIB}/libfrugal.so", f"{LIB}/pkgconfig/frugal.pc", f"{LIB}/pkgconfig/frugal-plugin.pc",
                     f"{LIB}/cmake/frugal/frugalConfig.cmake", f"{LIB}/cmake/frugal/frugalConfigVersion.cmake",
                     f"{LIB}/cmake/frugal/plugin.map"):
            self.assertIn(path, dev)
        self.assertEqual({f for f in dev if not f.startswith(("usr/include/frugal/", f"{LIB}/cmake/frugal/",
                                                               "usr/share/doc/"))},
                         {f"{LIB}/libfrugal.so", f"{LIB}/pkgconfig/frugal.pc", f"{LIB}/pkgconfig/frugal-plugin.pc"})
        self.assertEqual({f for f in files["frugal-tools"] if not f.startswith("usr/share/doc/")},
                         {"usr/bin/frugal", "usr/bin/frugal-conformance", "usr/bin/frugal-demo"})
        if HAVE_COMM_MPI:
            self.assertEqual({f for f in files[MPI_PACKAGE] if not f.startswith("usr/share/doc/")},
                             {f"{LIB}/frugal/v2/plugins/comm_mpi.so"})
        if HAVE_COMM_NCCL:
            self.assertEqual({f for f in files[NCCL_PACKAGE] if not f.startswith("usr/share/doc/")},
                             {f"{LIB}/frugal/v2/plugins/comm_nccl.so"})
        python = files["python3-frugal"]
        self.assertIn(f"{PYTHON_DIR}/__init__.py", python)
        self.assertIn(f"{PYTHON_DIR}/_lib.py", python)
        self.assertEqual([f for f in python if not f.startswith((PYTHON_DIR + "/", "usr/share/doc/"))], [])
        self.assertEqual([f for f in python if "__pycache__" in f or f.endswith(".pyc")], [])

    def test_every_package_has_copyright_and_changelog(self):
        for name, deb in self.debs.items():
            doc = os.path.join(self.root, "usr", "share", "doc", name)
            with open(os.path.join(doc, "copyright")) as f:
                copyright_text = f.read()
            self.assertTrue(copyright_text.startswith(
                "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"), name)
            self.assertIn("\nFiles: *\n", copyright_text)
            self.assertIn("\nLicense: MIT\n", copyright_text)
            with open(os.path.join(doc, "changelog.Debian.gz"), "rb") as f:
                header = f.read(10)
            # gzip -9n: no file name (FLG bit 3), no time stamp (MTIME 0), best compression (XFL 2).
            self.assertEqual((header[:2], header[3] & 0x08, header[4:8], header[8]), (b"\x1f\x8b", 0, b"\0\0\0\0", 2),
                             name)
            with gzip.open(os.path.join(doc, "changelog.Debian.gz"), "rt") as f:
                self.assertTrue(f.readline().startswith(f"frugal ({DEB_VERSION}) "), name)

    def test_versions_and_dependencies(self):
        fields = {name: control_fields(deb) for name, deb in self.debs.items()}
        for name, f in fields.items():
            self.assertEqual(f["Version"], DEB_VERSION, name)
            self.assertEqual(f["Source"], "frugal", name)
            self.assertIn("<", f["Maintainer"], name)
        self.assertEqual(fields[RUNTIME]["Section"], "libs")
        self.assertEqual(fields["libfrugal-dev"]["Section"], "libdevel")
        self.assertEqual(fields["python3-frugal"]["Architecture"], "all")
        self.assertEqual(set(depends(fields[RUNTIME])), {"libc6", "libstdc++6", "libgcc-s1", "libfmt9"})
        # libxxhash-dev: the SDK header frugal/sdk/checksum.hpp includes xxhash.h.
        self.assertEqual(depends(fields["libfrugal-dev"]), {RUNTIME: f"{RUNTIME} (= {DEB_VERSION})",
                                                            "libxxhash-dev": "libxxhash-dev"})
        tools = depends(fields["frugal-tools"])
        self.assertEqual(tools[RUNTIME], f"{RUNTIME} (>= {SDK_VERSION})")
        self.assertLessEqual({"libc6", "libstdc++6"}, set(tools))
        self.assertEqual(depends(fields["python3-frugal"]), {"python3": "python3",
                                                             RUNTIME: f"{RUNTIME} (>= {SDK_VERSION})"})
        if HAVE_COMM_MPI:
            # The plugin speaks this release's ABI minor: it needs this release's core, and
            # OpenMPI's library through dpkg-shlibdeps (or the fallback list).
            self.assertEqual(fields[MPI_PACKAGE]["Section"], "libs")
            mpi = depends(fields[MPI_PACKAGE])
            self.assertEqual(mpi[RUNTIME], f"{RUNTIME} (>= {SDK_VERSION})")
            self.assertIn("libopenmpi3", mpi)
            self.assertNotIn("libopenmpi3", depends(fields[RUNTIME]))
        if HAVE_COMM_NCCL:
            # NVIDIA's libnccl2, written out (dpkg-shlibdeps cannot name it).
            self.assertEqual(fields[NCCL_PACKAGE]["Section"], "libs")
            nccl = depends(fields[NCCL_PACKAGE])
            self.assertEqual(nccl[RUNTIME], f"{RUNTIME} (>= {SDK_VERSION})")
            self.assertEqual(nccl["libnccl2"], "libnccl2 (>= 2.18)")
            self.assertNotIn("libnccl2", depends(fields[RUNTIME]))

    def test_library_package_control_files(self):
        deb = self.debs[RUNTIME]
        self.assertEqual(control_file(deb, "shlibs"), f"libfrugal 2 {RUNTIME} (>= {SDK_VERSION})\n")
        self.assertEqual(control_file(deb, "triggers"), "activate-noawait ldconfig\n")
        symbols = control_file(deb, "symbols").splitlines()
        self.assertEqual(symbols[0], f"libfrugal.so.2 {RUNTIME} #MINVER#")
        self.assertIn("* Build-Depends-Package: libfrugal-dev", symbols)
        # One line per export (dpkg-shlibdeps looks symbols up by name), each
        # with the release that first shipped its version node.
        library = os.path.join(self.root, LIB, LIBRARY_FILE)
        exported = sorted(name.replace("@@", "@") for name in exported_symbols(library) if "@" in name)
        self.assertGreater(len(exported), 50)
        # FRUGAL_2.0 shipped in 0.2.0, FRUGAL_2.1 in 0.3.0, FRUGAL_2.2 in
        # 0.4.0, FRUGAL_2.3 in 0.5.0, FRUGAL_2.4 is new in this release
        # (packaging/debian/symver-releases.txt).
        self.assertIn(f" frugal_abi_version@FRUGAL_2.0 {FRUGAL_2_0_RELEASE}", symbols)
        self.assertIn(f" frugal_comm_create@FRUGAL_2.1 {FRUGAL_2_1_RELEASE}", symbols)
        self.assertIn(f" frugal_ckpt_register_slice@FRUGAL_2.2 {FRUGAL_2_2_RELEASE}", symbols)
        self.assertIn(f" frugal_ckpt_preemption_agree@FRUGAL_2.3 {FRUGAL_2_3_RELEASE}", symbols)
        self.assertIn(f" frugal_router_ep_shape@FRUGAL_2.4 {SDK_VERSION}", symbols)
        self.assertEqual(sorted(line.split()[0] for line in symbols[2:]), exported)
        for name in ("libfrugal-dev", "frugal-tools", "python3-frugal"):
            self.assertIsNone(control_file(self.debs[name], "shlibs"), name)
            self.assertIsNone(control_file(self.debs[name], "triggers"), name)

    def test_tools_and_python_run_from_the_extracted_root(self):
        cli = os.path.join(self.root, "usr", "bin", "frugal")
        result, found = listing(cli)
        ok(self, result)
        names, _ = without_unreachable_nccl(self, found)
        self.assertEqual(sorted(names), sorted(BUILTIN))
        for p in found["plugins"]:
            self.assertTrue(os.path.realpath(p["path"]).startswith(os.path.realpath(self.root) + f"/{LIB}/"), p["path"])

        library = os.path.join(self.root, LIB, "libfrugal.so.2")
        out = ok(self, run([sys.executable, "-c", "import frugal; print(frugal.__file__); print(frugal.version_string()); "
                            "print(frugal._lib.library_path())"],
                           {"PYTHONPATH": os.path.join(self.root, "usr", "lib", "python3", "dist-packages"),
                            "FRUGAL_LIB": library}, cwd=self.tmp.name)).splitlines()
        self.assertEqual(out, [os.path.join(self.root, PYTHON_DIR, "__init__.py"), SDK_VERSION, library])

    def test_hosts_and_plugins_build_against_the_extracted_root(self):
        pkgconfig = os.path.join(self.root, LIB, "pkgconfig")
        env = {"PKG_CONFIG_PATH": pkgconfig}
        for pc in ("frugal", "frugal-plugin"):
            cflags = ok(self, run(["pkg-config", "--cflags", pc], env)).split()
            # Code-generation flags are the consumer's choice, not the .pc's
            # (frugal-plugin has them as the cflags/cxxflags variables).
            self.assertEqual([f for f in cflags if f.startswith("-f")], [], pc)
        self.assertIn("-fPIC", ok(self, run(["pkg-config", "--variable=cxxflags", "frugal-plugin"], env)).split())
        self.assertIn("-fPIC", ok(self, run(["pkg-config", "--variable=cflags", "frugal-plugin"], env)).split())
        # The GCC-only flag apart, so a Clang build can use cxxflags as is.
        self.assertNotIn("-fno-gnu-unique", ok(self, run(["pkg-config", "--variable=cxxflags", "frugal-plugin"],
                                                         env)).split())
        self.assertEqual(ok(self, run(["pkg-config", "--variable=gcc_cxxflags", "frugal-plugin"], env)).split(),
                         ["-fno-gnu-unique"])
        lib_env = {"LD_LIBRARY_PATH": os.path.join(self.root, LIB)}
        expected = f"release={SDK_VERSION} abi={ABI_VERSION}\n"

        # A host with pkg-config.
        host = os.path.join(self.tmp.name, "host-pkg-config")
        flags = ok(self, run(["pkg-config", "--cflags", "--libs", "frugal"], env)).split()
        ok(self, run(["cc", "-o", host, os.path.join(CONSUMER, "main.c")] + flags))
        self.assertEqual(ok(self, run([host], lib_env)), expected)

        # A host with find_package(frugal 0.6 REQUIRED): the packages' version.
        build = os.path.join(self.tmp.name, "host-cmake")
        configure = ok(self, run(["cmake", "-S", CONSUMER, "-B", build, "-DCMAKE_BUILD_TYPE="],
                                 {"CMAKE_PREFIX_PATH": os.path.join(self.root, "usr")}))
        self.assertIn(f"frugal_VERSION={SDK_VERSION} sdk={SDK_VERSION} abi={ABI_VERSION}", configure)
        ok(self, run(["cmake", "--build", build]))
        self.assertEqual(ok(self, run([os.path.join(build, "consumer")], lib_env)), expected)

        # The vendor sample with pkg-config, loaded by the extracted CLI.
        plugin = build_with_pkg_config(self, pkgconfig, os.path.join(self.tmp.name, "vendor-deb"))
        result, found = listing(os.path.join(self.root, "usr", "bin", "frugal"), os.path.dirname(plugin))
        ok(self, result)
        self.assertIn("vendor_bucket", [p["name"] for p in found["plugins"]])

    def test_downstream_package_gets_its_dependency_from_shlibs(self):
        # A package being built that links libfrugal: dpkg-shlibdeps finds the
        # library in libfrugal2's tree (as in a build that has it installed)
        # and reads that package's symbols/shlibs.
        work = os.path.join(self.tmp.name, "downstream")
        pkg_root = os.path.join(work, "debian", RUNTIME)
        os.makedirs(os.path.join(work, "debian"), exist_ok=True)
        ok(self, run(["dpkg-deb", "-R", self.debs[RUNTIME], pkg_root]))
        with open(os.path.join(work, "debian", "control"), "w") as f:
            f.write("Source: downstream\n\nPackage: downstream\nArchitecture: any\n")
        binary = os.path.join(work, "downstream-host")
        include = os.path.join(self.root, "usr", "include")
        ok(self, run(["cc", "-o", binary, os.path.join(CONSUMER, "main.c"), f"-I{include}",
                      f"-L{os.path.join(self.root, LIB)}", "-lfrugal"]))
        # -l: the library directory (libfrugal2's unpacked tree), as a build
        # against the installed package would find it under /usr/lib.
        out = ok(self, run(["dpkg-shlibdeps", "-O", f"-l{os.path.join(pkg_root, LIB)}", binary], cwd=work))
        # The consumer calls only FRUGAL_2.0 functions: the symbols file lets
        # it run on the release that first shipped them, not only on this one.
        self.assertIn(f"{RUNTIME} (>= {FRUGAL_2_0_RELEASE})", out)

    def test_tarball_holds_the_whole_install_tree(self):
        tgzs = glob.glob(os.path.join(self.out, "*.tar.gz"))
        self.assertEqual(len(tgzs), 1, os.listdir(self.out))
        with tarfile.open(tgzs[0]) as tgz:
            names = set(tgz.getnames())
        top = os.path.basename(tgzs[0])[:-len(".tar.gz")]
        for member in ("bin/frugal", "bin/frugal-conformance", f"{LIBDIR}/libfrugal.so.2",
                       f"{LIBDIR}/frugal/v2/plugins/packer_seq.so", f"{LIBDIR}/cmake/frugal/frugalConfig.cmake",
                       f"{LIBDIR}/pkgconfig/frugal.pc", "include/frugal/frugal.h"):
            self.assertIn(f"{top}/{member}", names)
        # Debian's own files are only in the .debs.
        self.assertEqual([n for n in names if "/share/doc/" in n or "dist-packages" in n], [])


if __name__ == "__main__":
    unittest.main()
