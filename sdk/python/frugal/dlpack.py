"""DLPack capsules: the PyCapsule protocol, on both sides, with libfrugal's converters.

Import (consumer side). ``take_capsule`` accepts a capsule named
"dltensor" (legacy DLManagedTensor) or "dltensor_versioned"
(DLManagedTensorVersioned), renames it "used_dltensor" /
"used_dltensor_versioned" so the producer's capsule destructor no longer
frees it, and hands the struct to frugal_managed_tensor_from_dlpack[_versioned],
which takes ownership in every case (on failure it has already called the
producer's deleter). The memory is never copied.

Export (producer side). ``make_capsule`` turns a frugal_managed_tensor into
a new capsule (frugal_managed_tensor_to_dlpack[_versioned]) whose
destructor calls the struct's deleter only if no consumer took it (the name
is still "dltensor" / "dltensor_versioned"); a consumer that took it calls
the deleter itself when done. Either way the memory is released exactly
once, from C, with no Python code involved.

The destructors are ctypes callbacks created once and kept for the life of
the process: a capsule may be destroyed during interpreter shutdown, after
this module's globals are gone.

Capsule names are C strings the capsule keeps pointing to, so they live in
module-level buffers that are never freed.
"""

import ctypes

from . import _lib
from . import _types as t
from .errors import check

_LEGACY = b"dltensor"
_VERSIONED = b"dltensor_versioned"

# Never freed: capsules keep pointers to their names.
_NAME_LEGACY = ctypes.create_string_buffer(_LEGACY)
_NAME_VERSIONED = ctypes.create_string_buffer(_VERSIONED)
_NAME_USED_LEGACY = ctypes.create_string_buffer(b"used_dltensor")
_NAME_USED_VERSIONED = ctypes.create_string_buffer(b"used_dltensor_versioned")

_api = ctypes.pythonapi

# Two views of each capsule function: one taking a Python object (for
# capsules we hold a reference to) and one taking a raw PyObject* (inside
# the destructor, where the capsule is being deallocated and must not be
# wrapped in a new reference).
_is_valid = _api.PyCapsule_IsValid
_is_valid.restype = ctypes.c_int
_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]

_get_pointer = _api.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

_set_name = _api.PyCapsule_SetName
_set_name.restype = ctypes.c_int
_set_name.argtypes = [ctypes.py_object, ctypes.c_void_p]

_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_new_capsule = _api.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_void_p, _CapsuleDestructor]

_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_raw_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api)
)


def _destroy_unconsumed_legacy(capsule):
    # Runs inside capsule deallocation, with the GIL held. A consumer that
    # took the tensor renamed the capsule; then the deleter is its business.
    if _raw_is_valid(capsule, _LEGACY):
        managed = ctypes.cast(_raw_get_pointer(capsule, _LEGACY), ctypes.POINTER(t.DLPackManagedTensor))
        if managed and managed.contents.deleter:
            managed.contents.deleter(managed)


def _destroy_unconsumed_versioned(capsule):
    if _raw_is_valid(capsule, _VERSIONED):
        managed = ctypes.cast(
            _raw_get_pointer(capsule, _VERSIONED), ctypes.POINTER(t.DLPackManagedTensorVersioned)
        )
        if managed and managed.contents.deleter:
            managed.contents.deleter(managed)


# Kept for the process (see the module docstring); an extra reference keeps
# them alive even while the module is being torn down.
_DESTRUCTOR_LEGACY = _CapsuleDestructor(_destroy_unconsumed_legacy)
_DESTRUCTOR_VERSIONED = _CapsuleDestructor(_destroy_unconsumed_versioned)
_api.Py_IncRef.argtypes = [ctypes.py_object]
_api.Py_IncRef(_DESTRUCTOR_LEGACY)
_api.Py_IncRef(_DESTRUCTOR_VERSIONED)


def is_capsule(obj):
    """True for a PyCapsule object of any name."""
    return type(obj).__name__ == "PyCapsule"


def capsule_name(obj):
    """The capsule's DLPack state: "dltensor", "dltensor_versioned", or None (used or foreign)."""
    if _is_valid(obj, _LEGACY):
        return "dltensor"
    if _is_valid(obj, _VERSIONED):
        return "dltensor_versioned"
    return None


def take_capsule(capsule):
    """Moves an unused DLPack capsule's tensor into a new frugal_managed_tensor; returns its address.

    Raises ValueError for a capsule that is not an unused DLPack capsule
    (already consumed, or another kind), FrugalError when frugal refuses the
    tensor (its memory is then already released through the producer's
    deleter, as DLPack requires).
    """
    lib = _lib.lib()
    out = ctypes.c_void_p()
    if _is_valid(capsule, _VERSIONED):
        managed = _get_pointer(capsule, _VERSIONED)
        # Rename first: from here on frugal owns the struct, whatever happens.
        _set_name(capsule, ctypes.addressof(_NAME_USED_VERSIONED))
        check(lib.frugal_managed_tensor_from_dlpack_versioned(managed, ctypes.byref(out)))
        return out.value
    if _is_valid(capsule, _LEGACY):
        managed = _get_pointer(capsule, _LEGACY)
        _set_name(capsule, ctypes.addressof(_NAME_USED_LEGACY))
        check(lib.frugal_managed_tensor_from_dlpack(managed, ctypes.byref(out)))
        return out.value
    raise ValueError("not an unused DLPack capsule (expected a capsule named 'dltensor' or 'dltensor_versioned')")


def make_capsule(managed_tensor, versioned):
    """Moves a frugal_managed_tensor (address) into a new capsule; returns the capsule.

    On success the managed tensor is consumed; on failure (FrugalError) it is
    untouched and still the caller's.
    """
    lib = _lib.lib()
    out = ctypes.c_void_p()
    if versioned:
        check(lib.frugal_managed_tensor_to_dlpack_versioned(managed_tensor, ctypes.byref(out)))
        return _wrap(out.value, _NAME_VERSIONED, _DESTRUCTOR_VERSIONED, t.DLPackManagedTensorVersioned)
    check(lib.frugal_managed_tensor_to_dlpack(managed_tensor, ctypes.byref(out)))
    return _wrap(out.value, _NAME_LEGACY, _DESTRUCTOR_LEGACY, t.DLPackManagedTensor)


def _wrap(struct_address, name, destructor, struct_type):
    try:
        return _new_capsule(struct_address, ctypes.addressof(name), destructor)
    except BaseException:
        # No capsule: nobody else will ever release the exported struct.
        managed = ctypes.cast(struct_address, ctypes.POINTER(struct_type))
        managed.contents.deleter(managed)
        raise


def export_from(obj, prefer_versioned=True):
    """Asks a DLPack producer for a capsule: the versioned protocol first, then the legacy call.

    Producers that predate DLPack 1.0 (numpy 1.24, torch 1.13) reject the
    ``max_version`` keyword with TypeError; they are then asked the old way.
    """
    if prefer_versioned:
        try:
            return obj.__dlpack__(max_version=(1, 1))
        except TypeError:
            pass
    return obj.__dlpack__()
