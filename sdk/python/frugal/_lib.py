"""Finds, loads and checks libfrugal, once per process.

Search order (the first that exists wins):
  1. the FRUGAL_LIB environment variable: a path to libfrugal.so[.1];
  2. the repository's default build, ``build/lib/libfrugal.so.1`` two
     directories above this package (sdk/python/frugal -> repository root),
     so tests and samples run from a checkout with no setup;
  3. an installed library: ``ctypes.util.find_library("frugal")``, then the
     plain SONAME ``libfrugal.so.1`` through the dynamic loader's path.

libfrugal finds its built-in plugins relative to its own file
(<libdir>/frugal/v1/plugins), so loading it by absolute path is enough for
plugin discovery as well.

The loaded library must speak ABI major 1 (frugal_abi_version); another
major raises :class:`LibraryError`, as does a missing library (naming every
place that was tried). Loading is lazy: importing the package never fails
for want of the library; the first call that needs it does.

Thread-safety: :func:`lib` and :func:`loaded` may be called from any thread;
the first load is serialised by a lock.
"""

import ctypes
import ctypes.util
import os
import threading

from ._prototypes import GIL_HELD, SIGNATURES

#: The ABI major this package is written against (FRUGAL_ABI_VERSION_MAJOR).
ABI_MAJOR = 1
#: The newest ABI minor whose structs this package mirrors (FRUGAL_ABI_VERSION_MINOR).
ABI_MINOR = 0

_SONAME = "libfrugal.so.1"


class LibraryError(OSError):
    """libfrugal could not be found, loaded, or speaks another ABI major."""


class _Loaded:
    """The two ctypes views of one loaded libfrugal, with prototypes applied."""

    def __init__(self, path, cdll, pydll):
        self.path = path
        self.cdll = cdll
        self.pydll = pydll


_lock = threading.Lock()
_loaded = None


def _repository_candidate():
    package_dir = os.path.dirname(os.path.abspath(__file__))
    repo_root = os.path.dirname(os.path.dirname(os.path.dirname(package_dir)))
    return os.path.join(repo_root, "build", "lib", _SONAME)


def _candidates():
    """Yields (description, path-or-name) in search order."""
    env_path = os.environ.get("FRUGAL_LIB")
    if env_path:
        yield "FRUGAL_LIB", env_path
    yield "repository build", _repository_candidate()
    found = ctypes.util.find_library("frugal")
    if found:
        yield "installed (find_library)", found
    yield "dynamic loader", _SONAME


def _apply_prototypes(cdll, pydll):
    for name, (restype, argtypes) in SIGNATURES.items():
        target = pydll if name in GIL_HELD else cdll
        function = getattr(target, name)
        function.restype = restype
        function.argtypes = argtypes
        # Both views expose every function, so a caller never has to know
        # which one a name lives in; the GIL-held one wins where it matters.
        if target is pydll:
            setattr(cdll, name, function)


def _load():
    tried = []
    for origin, candidate in _candidates():
        is_path = os.sep in candidate
        if is_path and not os.path.exists(candidate):
            if origin == "FRUGAL_LIB":
                # An explicit choice that is wrong must not silently load another library.
                raise LibraryError(f"FRUGAL_LIB={candidate}: no such file")
            tried.append(f"{origin}: {candidate} (no such file)")
            continue
        try:
            cdll = ctypes.CDLL(candidate)
            pydll = ctypes.PyDLL(candidate)
        except OSError as error:
            if origin == "FRUGAL_LIB":
                raise LibraryError(f"FRUGAL_LIB={candidate} cannot be loaded: {error}") from error
            tried.append(f"{origin}: {candidate} ({error})")
            continue
        _apply_prototypes(cdll, pydll)
        packed = cdll.frugal_abi_version()
        major, minor = (packed >> 16) & 0xFFFF, packed & 0xFFFF
        if major != ABI_MAJOR:
            raise LibraryError(
                f"{candidate} speaks frugal ABI {major}.{minor}; this package needs major {ABI_MAJOR}"
            )
        return _Loaded(candidate, cdll, pydll)
    raise LibraryError(
        "libfrugal not found; build it (scripts/build.sh build) or set FRUGAL_LIB to its path. Tried: "
        + "; ".join(tried)
    )


def loaded():
    """The loaded library (path and views), loading it on first use. Raises LibraryError."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = _load()
    return _loaded


def lib():
    """The ctypes view whose functions release the GIL (GIL_HELD ones excepted)."""
    return loaded().cdll


def library_path():
    """The path or name libfrugal was loaded from."""
    return loaded().path
