"""Finds, loads and checks libfrugal, once per process.

Search order (the first that loads wins):
  1. the FRUGAL_LIB environment variable: a path to libfrugal.so[.1];
  2. only when this package is imported from a frugal source tree
     (sdk/python/frugal beside abi/include): that tree's default build,
     ``build/lib/libfrugal.so.2``, so tests and samples run from a checkout
     with no setup and never pick up an older installed library;
  3. an installed library: the SONAME ``libfrugal.so.2`` through the
     dynamic loader (LD_LIBRARY_PATH, the ldconfig cache, /lib, /usr/lib),
     then ``ctypes.util.find_library("frugal")``;
  4. the standard directories the loader finds only once ``ldconfig`` ran
     (a fresh ``cmake --install`` to /usr/local): /usr/local/lib/<multiarch>,
     /usr/local/lib64, /usr/local/lib, /usr/lib/<multiarch>, /usr/lib64.

libfrugal finds its built-in plugins relative to its own file
(<libdir>/frugal/v2/plugins), so loading it by absolute path is enough for
plugin discovery as well.

The loaded library must speak ABI 2.4 or a newer 2.x (frugal_abi_version);
another major or an older minor raises :class:`LibraryError`, as does a missing library (naming every
place that was tried). Loading is lazy: importing the package never fails
for want of the library; the first call that needs it does.

Thread-safety: :func:`lib` and :func:`loaded` may be called from any thread;
the first load is serialised by a lock.
"""

import ctypes
import ctypes.util
import os
import sys
import threading

from ._prototypes import GIL_HELD, SIGNATURES

#: The ABI major this package is written against (FRUGAL_ABI_VERSION_MAJOR).
ABI_MAJOR = 2
#: The ABI minor this package calls into (FRUGAL_ABI_VERSION_MINOR): 2.1 added
#: the communicators (frugal.comm), 2.2 sharded checkpoints
#: (CheckpointEngine.register_slice), 2.3 CheckpointEngine.preemption_agree
#: and restored_metadata, 2.4 expert parallelism (Router.ep_shape,
#: ep_dispatch, ep_combine) and Scheduler(comm=), so an older library is
#: refused.
ABI_MINOR = 4

_SONAME = "libfrugal.so.2"


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


def source_tree_library():
    """The source tree's build/lib/libfrugal.so.2 when this package is imported from a frugal checkout, else None."""
    package_dir = os.path.dirname(os.path.abspath(__file__))
    python_dir = os.path.dirname(package_dir)
    sdk_dir = os.path.dirname(python_dir)
    # The package must sit exactly at <root>/sdk/python/frugal: an installed
    # copy (site-packages/frugal) three levels below some unrelated directory
    # that happens to hold abi/include must never be mistaken for a checkout.
    if os.path.basename(python_dir) != "python" or os.path.basename(sdk_dir) != "sdk":
        return None
    repo_root = os.path.dirname(sdk_dir)
    if not os.path.isfile(os.path.join(repo_root, "abi", "include", "frugal", "frugal.h")):
        return None
    return os.path.join(repo_root, "build", "lib", _SONAME)


def _standard_dirs():
    multiarch = getattr(sys.implementation, "_multiarch", None)
    for prefix in ("/usr/local", "/usr"):
        if multiarch:
            yield os.path.join(prefix, "lib", multiarch)
        yield os.path.join(prefix, "lib64")
        if prefix == "/usr/local":
            yield os.path.join(prefix, "lib")


def _candidates():
    """Yields (description, path-or-name) in search order."""
    env_path = os.environ.get("FRUGAL_LIB")
    if env_path:
        yield "FRUGAL_LIB", env_path
    in_tree = source_tree_library()
    if in_tree is not None:
        yield "source tree build", in_tree
    yield "dynamic loader", _SONAME
    found = ctypes.util.find_library("frugal")
    if found and found != _SONAME:
        yield "installed (find_library)", found
    for directory in _standard_dirs():
        yield "standard directory", os.path.join(directory, _SONAME)


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def _file_of(cdll, fallback):
    """The file the loader mapped for ``cdll`` (dladdr), so a library found by name reports its path."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except (OSError, AttributeError):
        return fallback
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    info = _DlInfo()
    address = ctypes.cast(cdll.frugal_abi_version, ctypes.c_void_p).value
    if not dladdr(address, ctypes.byref(info)) or not info.dli_fname:
        return fallback
    return os.fsdecode(info.dli_fname)


def _apply_prototypes(cdll, pydll, candidate):
    for name, (restype, argtypes) in SIGNATURES.items():
        target = pydll if name in GIL_HELD else cdll
        try:
            function = getattr(target, name)
        except AttributeError as error:
            # A library that reports a recent enough minor but lacks a function
            # this package binds (one built from a tree between two ABI bumps).
            raise LibraryError(f"{candidate} lacks {name}, which this package calls: {error}") from error
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
        # The version first: a library of an older minor lacks functions
        # the prototypes name.
        cdll.frugal_abi_version.restype = ctypes.c_uint32
        cdll.frugal_abi_version.argtypes = []
        packed = cdll.frugal_abi_version()
        major, minor = (packed >> 16) & 0xFFFF, packed & 0xFFFF
        if major != ABI_MAJOR or minor < ABI_MINOR:
            raise LibraryError(
                f"{candidate} speaks frugal ABI {major}.{minor}; this package needs {ABI_MAJOR}.{ABI_MINOR} or a "
                f"newer {ABI_MAJOR}.x"
            )
        _apply_prototypes(cdll, pydll, candidate)
        return _Loaded(_file_of(cdll, candidate), cdll, pydll)
    raise LibraryError(
        "libfrugal not found; install it, build it (scripts/build.sh build) or set FRUGAL_LIB to its path. "
        "Tried: "
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
    """The file libfrugal was loaded from (its path as the loader found it)."""
    return loaded().path
