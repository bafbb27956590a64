"""Finding libfrugal: the repository build by default, FRUGAL_LIB when set, a clear error otherwise."""

import os
import subprocess
import sys
import unittest

from support import frugal

PACKAGE_PARENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
REPO_LIB = os.path.normpath(os.path.join(PACKAGE_PARENT, "..", "..", "build", "lib", "libfrugal.so.1"))


def run_python(code, **env_changes):
    env = dict(os.environ)
    env.pop("FRUGAL_LIB", None)
    env.update(env_changes)
    return subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {PACKAGE_PARENT!r}); {code}"],
                          env=env, capture_output=True, text=True, cwd=os.path.dirname(PACKAGE_PARENT))


class LibraryTest(unittest.TestCase):
    @unittest.skipIf("FRUGAL_LIB" in os.environ, "FRUGAL_LIB chooses the library for this run")
    def test_repository_build_is_found_without_setup(self):
        self.assertEqual(os.path.realpath(frugal.library_path()), os.path.realpath(REPO_LIB))

    def test_frugal_lib_is_used_when_set(self):
        result = run_python("import frugal; print(frugal.library_path())", FRUGAL_LIB=REPO_LIB)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), REPO_LIB)

    def test_missing_frugal_lib_is_a_clear_error(self):
        missing = os.path.join(os.path.dirname(REPO_LIB), "no-such-libfrugal.so")
        result = run_python("import frugal; frugal.abi_version()", FRUGAL_LIB=missing)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("LibraryError", result.stderr)
        self.assertIn(f"FRUGAL_LIB={missing}: no such file", result.stderr)

    def test_import_does_not_need_the_library(self):
        missing = os.path.join(os.path.dirname(REPO_LIB), "no-such-libfrugal.so")
        result = run_python("import frugal; print(frugal.ErrorCode.NOT_FOUND.name)", FRUGAL_LIB=missing)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "NOT_FOUND")


if __name__ == "__main__":
    unittest.main()
