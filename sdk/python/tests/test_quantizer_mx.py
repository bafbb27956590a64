"""MX (1 x 32 blocks, E8M0 scales) quantize and dequantize against a numpy reference."""

import unittest

from support import NO_NUMPY, Lcg, context, frugal, numpy as np

#: format -> (largest finite value, mantissa bits, smallest subnormal).
FORMATS = {"e4m3": (448.0, 3, 2.0 ** -9), "e5m2": (57344.0, 2, 2.0 ** -16)}
MX_BLOCK = 32


def decode_fp8(codes, fmt):
    """float64 values of E4M3FN or E5M2 codes (uint8)."""
    codes = codes.astype(np.uint16)
    if fmt == "e5m2":  # the top byte of an IEEE half
        return (codes << 8).view(np.float16).astype(np.float64)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exponent = ((codes >> 3) & 0xF).astype(np.int64)
    mantissa = (codes & 0x7).astype(np.float64)
    value = np.where(exponent == 0, mantissa / 8 * 2.0 ** -6, (1 + mantissa / 8) * np.ldexp(1.0, exponent - 7))
    return np.where((codes & 0x7F) == 0x7F, np.nan, sign * value)


def mx_scale_code(block_amax, fp8_max):
    """The E8M0 code: 127 + the smallest k with amax <= fp8_max * 2^k (127 for an all-zero block)."""
    if block_amax == 0.0:
        return 127
    k = int(np.ceil(np.log2(block_amax / fp8_max)))
    while block_amax > np.ldexp(fp8_max, k):  # exact: powers of two in float64
        k += 1
    while block_amax <= np.ldexp(fp8_max, k - 1):
        k -= 1
    return min(max(k + 127, 0), 254)


@unittest.skipIf(np is None, NO_NUMPY)
class MxQuantizerTest(unittest.TestCase):
    def setUp(self):
        # 5 rows of 80: two full blocks and a partial one per row; rows at
        # very different magnitudes, and an all-zero block.
        x = Lcg(29).floats(5 * 80, scale=1.0).reshape(5, 80)
        x *= np.array([[1.0], [1e-3], [40.0], [3e4], [1.0]], dtype=np.float32)
        x[4, 32:64] = 0.0
        self.x = x

    def check_format(self, fmt):
        fp8_max, mantissa_bits, smallest = FORMATS[fmt]
        rows, cols = self.x.shape
        with frugal.Quantizer(context(), "quant_fp8", format=fmt, recipe="mx") as quantizer:
            self.assertEqual(quantizer.layout.scaling_mode, frugal.ScalingMode.MX)
            self.assertEqual(quantizer.layout.scale_dtype, frugal.DType.FLOAT8_E8M0FNU)
            grid = quantizer.scale_shape(rows, cols)
            self.assertEqual(grid, (rows, 3))
            fake = np.zeros_like(self.x)
            with quantizer.quantize(self.x, fake=fake) as quantized:
                self.assertIsNone(quantized.scale)
                scale_codes = np.asarray(quantized.scale_inv).copy()
                codes = np.asarray(quantized.codes).copy()
                self.assertEqual(quantized.amax_value(), float(np.abs(self.x).max()))
                y = np.from_dlpack(quantizer.dequantize(quantized))
        self.assertEqual(scale_codes.shape, grid)
        factors = np.zeros((rows, cols))
        for r in range(rows):
            for b in range(grid[1]):
                block = slice(b * MX_BLOCK, (b + 1) * MX_BLOCK)
                code = mx_scale_code(float(np.abs(self.x[r, block]).max()), fp8_max)
                self.assertEqual(int(scale_codes[r, b]), code, f"row {r} block {b}")
                factors[r, block] = np.ldexp(1.0, code - 127)
        self.assertEqual(scale_codes[4, 1], 127)  # the all-zero block
        # Dequantize is exactly code * 2^(e - 127), and fake equals it.
        reference = decode_fp8(codes, fmt) * factors
        np.testing.assert_array_equal(y.astype(np.float64), reference)
        np.testing.assert_array_equal(fake, y)
        # Round to nearest: half an ulp of the element, or of the block's
        # smallest subnormal.
        x64 = self.x.astype(np.float64)
        bound = np.abs(x64) * 2.0 ** -(mantissa_bits + 1) + factors * smallest / 2
        self.assertTrue(np.all(np.abs(x64 - reference) <= bound))
        self.assertGreater(float(np.abs(x64 - reference).max()), 0.0)  # it did quantize

    def test_e4m3_round_trip(self):
        self.check_format("e4m3")

    def test_e5m2_round_trip(self):
        self.check_format("e5m2")

    def test_a_scale_tensor_is_refused_with_the_reason(self):
        with frugal.Quantizer(context(), "quant_fp8", format="e5m2", recipe="mx") as quantizer:
            with self.assertRaises(ValueError) as caught:
                quantizer.quantize(self.x, scale=np.zeros((5, 3), dtype=np.uint8))
        self.assertIn("mx scaling has no scale tensor", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
