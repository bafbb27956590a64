"""Versions and build facts of the loaded libfrugal (frugal/context.h). All thread-safe."""

from . import _lib


def abi_version():
    """The loaded library's ABI version as (major, minor)."""
    packed = _lib.lib().frugal_abi_version()
    return (packed >> 16) & 0xFFFF, packed & 0xFFFF


def version_string():
    """The SDK release of the loaded library, e.g. "0.6.0"."""
    return _lib.lib().frugal_version_string().decode("ascii")


def cuda_device_count():
    """Usable CUDA devices (0 without CUDA support, driver or device)."""
    return _lib.lib().frugal_cuda_device_count()


def built_with_cuda():
    """True when libfrugal was built with CUDA support."""
    return bool(_lib.lib().frugal_built_with_cuda())
