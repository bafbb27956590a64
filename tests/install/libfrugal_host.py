"""A minimal host of the installed libfrugal through ctypes: packs lengths
with a named packer strategy and returns the plan's packs, so the install
test can check what a vendor strategy computed through the real C API."""
import ctypes


class PlanView(ctypes.Structure):
    """frugal_pack_plan_view (frugal/packer.h), field for field."""
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("pack_count", ctypes.c_size_t),
        ("unit_count", ctypes.c_size_t),
        ("pack_offsets", ctypes.POINTER(ctypes.c_int64)),
        ("sequence_ids", ctypes.POINTER(ctypes.c_int64)),
        ("token_offsets", ctypes.POINTER(ctypes.c_int64)),
        ("unit_lengths", ctypes.POINTER(ctypes.c_int64)),
        ("pack_tokens", ctypes.POINTER(ctypes.c_int64)),
    ]


class FrugalError(RuntimeError):
    pass


def _declare(lib):
    p = ctypes.c_void_p
    for name, args in {
        "frugal_context_create": [ctypes.POINTER(p)],
        "frugal_context_discover_plugins": [p, ctypes.c_uint32, ctypes.POINTER(ctypes.c_size_t)],
        "frugal_options_create": [ctypes.POINTER(p)],
        "frugal_options_set_int": [p, ctypes.c_char_p, ctypes.c_int64],
        "frugal_packer_create": [p, ctypes.c_char_p, p, ctypes.POINTER(p)],
        "frugal_packer_pack": [p, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t, ctypes.POINTER(p)],
        "frugal_pack_plan_view_get": [p, ctypes.POINTER(PlanView)],
    }.items():
        getattr(lib, name).argtypes = args
        getattr(lib, name).restype = p
    lib.frugal_error_message.argtypes = [p]
    lib.frugal_error_message.restype = ctypes.c_char_p
    for name in ("frugal_error_destroy", "frugal_context_destroy", "frugal_options_destroy",
                 "frugal_packer_destroy", "frugal_pack_plan_destroy"):
        getattr(lib, name).argtypes = [p]
        getattr(lib, name).restype = None


def pack(libfrugal_path, strategy, lengths, options):
    """Packs `lengths` with `strategy` (plugins found as any host finds them:
    FRUGAL_PLUGIN_PATH, then the built-in dir) and returns the packs as
    lists of sequence ids. options: name -> int."""
    lib = ctypes.CDLL(libfrugal_path)
    _declare(lib)

    def check(err):
        if err:
            message = lib.frugal_error_message(err).decode()
            lib.frugal_error_destroy(err)
            raise FrugalError(message)

    ctx, opts, packer, plan = (ctypes.c_void_p() for _ in range(4))
    try:
        check(lib.frugal_context_create(ctypes.byref(ctx)))
        check(lib.frugal_context_discover_plugins(ctx, 0, None))
        check(lib.frugal_options_create(ctypes.byref(opts)))
        for name, value in options.items():
            check(lib.frugal_options_set_int(opts, name.encode(), value))
        check(lib.frugal_packer_create(ctx, strategy.encode(), opts, ctypes.byref(packer)))
        array = (ctypes.c_int64 * len(lengths))(*lengths)
        check(lib.frugal_packer_pack(packer, array, len(lengths), ctypes.byref(plan)))
        view = PlanView(struct_size=ctypes.sizeof(PlanView))
        check(lib.frugal_pack_plan_view_get(plan, ctypes.byref(view)))
        return [[view.sequence_ids[u] for u in range(view.pack_offsets[p], view.pack_offsets[p + 1])]
                for p in range(view.pack_count)]
    finally:
        lib.frugal_pack_plan_destroy(plan)
        lib.frugal_packer_destroy(packer)
        lib.frugal_options_destroy(opts)
        lib.frugal_context_destroy(ctx)


if __name__ == "__main__":
    # python3 libfrugal_host.py LIBFRUGAL STRATEGY '{"max_len": 1000}' '[100, 900]'
    # prints the packs as JSON: a subprocess, so each run sees its own
    # FRUGAL_PLUGIN_PATH and loads the libfrugal it is given, alone.
    import json
    import sys
    try:
        print(json.dumps(pack(sys.argv[1], sys.argv[2], json.loads(sys.argv[4]), json.loads(sys.argv[3]))))
    except FrugalError as e:
        sys.exit(f"libfrugal_host: {e}")
