"""Finding libfrugal: FRUGAL_LIB when set, the source tree's build, then an installed one; a clear error otherwise."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from support import frugal

from frugal import _lib

PACKAGE_PARENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
#: The source tree's build when the tests run against a checkout, else None (an installed package).
REPO_LIB = _lib.source_tree_library()
IN_SOURCE_TREE = REPO_LIB is not None
#: A loadable libfrugal: the source tree's, else the installed one this run loaded.
SOME_LIB = REPO_LIB if IN_SOURCE_TREE else frugal.library_path()


def run_python(code, cwd=None, **env_changes):
    env = dict(os.environ)
    env.pop("FRUGAL_LIB", None)
    env.update(env_changes)
    return subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {PACKAGE_PARENT!r}); {code}"],
                          env=env, capture_output=True, text=True, cwd=cwd or os.path.dirname(PACKAGE_PARENT))


class LibraryTest(unittest.TestCase):
    @unittest.skipIf("FRUGAL_LIB" in os.environ, "FRUGAL_LIB chooses the library for this run")
    @unittest.skipUnless(IN_SOURCE_TREE, "the package under test is installed, not in a source tree")
    def test_repository_build_is_found_without_setup(self):
        self.assertEqual(os.path.realpath(frugal.library_path()), os.path.realpath(REPO_LIB))

    def test_frugal_lib_is_used_when_set(self):
        result = run_python("import frugal; print(frugal.library_path())", FRUGAL_LIB=SOME_LIB)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), SOME_LIB)

    def test_missing_frugal_lib_is_a_clear_error(self):
        missing = os.path.join(os.path.dirname(SOME_LIB), "no-such-libfrugal.so")
        result = run_python("import frugal; frugal.abi_version()", FRUGAL_LIB=missing)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("LibraryError", result.stderr)
        self.assertIn(f"FRUGAL_LIB={missing}: no such file", result.stderr)

    def test_import_does_not_need_the_library(self):
        missing = os.path.join(os.path.dirname(SOME_LIB), "no-such-libfrugal.so")
        result = run_python("import frugal; print(frugal.ErrorCode.NOT_FOUND.name)", FRUGAL_LIB=missing)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "NOT_FOUND")


class InstalledLibraryTest(unittest.TestCase):
    """A copy of the package outside any source tree, as pip installs it."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="frugal-installed-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.site = os.path.join(self.root, "site-packages")
        shutil.copytree(os.path.dirname(frugal.__file__), os.path.join(self.site, "frugal"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        self.lib_dir = os.path.join(self.root, "lib")
        os.mkdir(self.lib_dir)
        os.symlink(os.path.realpath(SOME_LIB), os.path.join(self.lib_dir, "libfrugal.so.2"))

    def run_installed(self, code, **env):
        env.setdefault("LD_LIBRARY_PATH", "")
        return run_python(f"sys.path.insert(0, {self.site!r}); import frugal; {code}", cwd=self.root, **env)

    def test_it_never_looks_for_a_source_tree(self):
        result = self.run_installed("print(frugal._lib.source_tree_library())")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "None")

    def test_a_header_tree_above_the_install_is_not_a_checkout(self):
        # site-packages three levels below a directory that happens to hold
        # abi/include/frugal/frugal.h (a copied header tree, another project)
        # is still an installed package, not sdk/python/frugal of a checkout.
        decoy = os.path.join(self.root, "decoy")
        os.makedirs(os.path.join(decoy, "abi", "include", "frugal"))
        open(os.path.join(decoy, "abi", "include", "frugal", "frugal.h"), "w").close()
        site = os.path.join(decoy, "venv", "site-packages")
        shutil.copytree(os.path.join(self.site, "frugal"), os.path.join(site, "frugal"))
        result = run_python(f"sys.path.insert(0, {site!r}); import frugal; print(frugal._lib.source_tree_library())",
                            cwd=self.root, LD_LIBRARY_PATH="")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "None")

    def test_the_loader_path_finds_it_and_library_path_names_the_file(self):
        result = self.run_installed("print(frugal.library_path(), frugal.abi_version()[0])",
                                    LD_LIBRARY_PATH=self.lib_dir)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split(), [os.path.join(self.lib_dir, "libfrugal.so.2"), str(frugal.ABI_MAJOR)])

    def loader_finds_an_installed_one(self):
        probe = self.run_installed("import ctypes; ctypes.CDLL('libfrugal.so.2')")
        return probe.returncode == 0

    def test_a_standard_directory_is_searched_without_ldconfig(self):
        # /usr/local/lib after a cmake --install that ran no ldconfig: the
        # loader does not see it; the package looks there itself.
        if self.loader_finds_an_installed_one():
            self.skipTest("an installed libfrugal is on this machine's loader path")
        result = self.run_installed(f"frugal._lib._standard_dirs = lambda: [{self.lib_dir!r}]; "
                                    "print(frugal.library_path())")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), os.path.join(self.lib_dir, "libfrugal.so.2"))

    def test_nothing_found_names_every_place_tried(self):
        if self.loader_finds_an_installed_one():
            self.skipTest("an installed libfrugal is on this machine's loader path")
        result = self.run_installed("frugal._lib._standard_dirs = lambda: ['/nonexistent']; frugal.abi_version()")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("libfrugal not found", result.stderr)
        self.assertIn("dynamic loader: libfrugal.so.2 (", result.stderr)
        self.assertIn("standard directory: /nonexistent/libfrugal.so.2 (no such file)", result.stderr)
        self.assertNotIn("source tree", result.stderr)

if __name__ == "__main__":
    unittest.main()
