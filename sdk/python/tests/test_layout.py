"""The ctypes structs match the C headers: sizes and offsets from a C probe built at test time.

The probe is generated from frugal._types.C_STRUCTS (every struct and field
the package mirrors), compiled with the system C compiler (CC, default cc)
against FRUGAL_INCLUDE_DIR when set (the installed headers, for an installed
package), else the source tree's abi/include, and run. Skipped when no
compiler is found.
"""

import ctypes
import os
import shutil
import subprocess
import tempfile
import unittest

from support import frugal  # noqa: F401  (puts the package on sys.path)

from frugal import _types

INCLUDE_DIR = os.environ.get("FRUGAL_INCLUDE_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "abi", "include")
COMPILER = os.environ.get("CC", "cc")


def probe_source():
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "frugal/frugal.h"', "int main(void) {"]
    for c_name, struct in _types.C_STRUCTS.items():
        lines.append(f'  printf("{c_name} %zu\\n", sizeof({c_name}));')
        for field, _ in struct._fields_:
            lines.append(f'  printf("{c_name}.{field} %zu\\n", offsetof({c_name}, {field}));')
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


@unittest.skipIf(shutil.which(COMPILER) is None, f"no C compiler ({COMPILER}) to build the layout probe")
@unittest.skipUnless(os.path.isfile(os.path.join(INCLUDE_DIR, "frugal", "frugal.h")),
                     f"no frugal headers in {INCLUDE_DIR}: set FRUGAL_INCLUDE_DIR")
class LayoutTest(unittest.TestCase):
    def test_every_size_and_offset_matches_the_headers(self):
        workdir = tempfile.mkdtemp(prefix="frugal-layout-probe-")
        self.addCleanup(shutil.rmtree, workdir, True)
        source = os.path.join(workdir, "probe.c")
        binary = os.path.join(workdir, "probe")
        with open(source, "w") as handle:
            handle.write(probe_source())
        subprocess.run([COMPILER, "-std=c99", "-I", INCLUDE_DIR, source, "-o", binary], check=True)
        output = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
        c_layout = dict(line.rsplit(" ", 1) for line in output.splitlines())
        checked = 0
        for c_name, struct in _types.C_STRUCTS.items():
            self.assertEqual(ctypes.sizeof(struct), int(c_layout[c_name]), f"sizeof({c_name})")
            for field, _ in struct._fields_:
                self.assertEqual(getattr(struct, field).offset, int(c_layout[f"{c_name}.{field}"]),
                                 f"offsetof({c_name}, {field})")
                checked += 1
        self.assertGreater(checked, 200)

    def test_the_probe_covers_the_gemm_and_loss_scaler_structs(self):
        # Each is passed by pointer to C (frugal_quantizer_gemm, frugal_quantizer_dequantize,
        # frugal_loss_scaler_get/set_status):
        # the probe above must compare them, field by field.
        for c_name, struct, fields in (
            ("frugal_quant_gemm_args", _types.QuantGemmArgs,
             ["struct_size", "a", "b", "d", "stream", "alpha", "flags"]),
            ("frugal_dequantize_args", _types.DequantizeArgs, ["struct_size", "input", "output", "stream"]),
            ("frugal_loss_scaler_status", _types.LossScalerStatus,
             ["struct_size", "scale", "clean_steps", "skipped_steps"]),
        ):
            self.assertIs(_types.C_STRUCTS.get(c_name), struct, c_name)
            self.assertEqual([field for field, _ in struct._fields_], fields, c_name)
        self.assertIn("frugal_quant_gemm_args", probe_source())
        self.assertIn("offsetof(frugal_loss_scaler_status, skipped_steps)", probe_source())

    def test_the_probe_covers_the_abi_2_2_checkpoint_fields(self):
        # frugal_ckpt_slice is passed by pointer to frugal_ckpt_register_slice;
        # world_size and reserved were appended to frugal_ckpt_info (sizeof 456).
        self.assertIs(_types.C_STRUCTS.get("frugal_ckpt_slice"), _types.CkptSlice)
        self.assertEqual([field for field, _ in _types.CkptSlice._fields_],
                         ["struct_size", "ndim", "replicated", "global_shape", "offsets"])
        self.assertEqual([field for field, _ in _types.CkptInfo._fields_][-3:],
                         ["not_restored_count", "world_size", "reserved"])
        self.assertIn("offsetof(frugal_ckpt_info, world_size)", probe_source())
        self.assertIn("sizeof(frugal_ckpt_slice)", probe_source())

    def test_the_probe_covers_the_abi_2_4_fields(self):
        # Appended to frugal_route_layout (48), frugal_route_plan (120) and
        # frugal_scheduler_config (64); the expert-parallel structs are new.
        self.assertEqual([field for field, _ in _types.RouterLayout._fields_][-2:], ["ep_rank", "ep_ranks"])
        self.assertEqual([field for field, _ in _types.RoutePlan._fields_][-2:], ["ep_tokens", "ep_rows"])
        self.assertEqual([field for field, _ in _types.SchedulerConfig._fields_][-1], "comm")
        self.assertIs(_types.C_STRUCTS.get("frugal_route_ep_shape"), _types.RouteEpShape)
        self.assertIs(_types.C_STRUCTS.get("frugal_route_dispatch_args"), _types.RouteDispatchArgs)
        for probe in ("offsetof(frugal_route_plan, ep_rows)", "offsetof(frugal_scheduler_config, comm)",
                      "offsetof(frugal_route_ep_shape, received_rows)",
                      "offsetof(frugal_route_dispatch_args, row_token)"):
            self.assertIn(probe, probe_source())


if __name__ == "__main__":
    unittest.main()
