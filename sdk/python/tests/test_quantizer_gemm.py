"""The FP8 GEMM on CPU tensors: D = alpha * A * B^T against numpy, zero-copy numpy and torch memory, errors."""

import unittest

from support import NO_NUMPY, NO_TORCH, Lcg, context, frugal, numpy as np, torch

U32 = 2.0 ** -24  # unit roundoff of float32
M, N, K = 70, 50, 300  # not multiples of the 64 x 64 tiles; k spans two 256-wide slices
ALPHA = 0.75


def accumulation_bound(da, db, alpha):
    """Elementwise bound on |D - alpha * da @ db.T| for an fp32 D.

    The GEMM decodes the FP8 codes exactly into fp32, multiplies them
    exactly (two 4-bit significands fit in 24 bits), sums the k products in
    fp32 (k - 1 roundings) and scales once by (scale_inv_a * scale_inv_b) *
    alpha (three roundings). The reference uses dequantized operands, each
    code * scale_inv rounded once to fp32 (two more roundings per product).
    Every rounding is a relative error of at most u = 2^-24 on a partial sum
    bounded by sum |a b|, so |error| <= (k + 4) u |alpha| (|da| @ |db|.T)
    to first order; the factor 2 covers the second-order terms.
    """
    k = da.shape[1]
    return 2.0 * (k + 4) * U32 * abs(alpha) * (np.abs(da) @ np.abs(db).T)


@unittest.skipIf(np is None, NO_NUMPY)
class QuantizerGemmTest(unittest.TestCase):
    def setUp(self):
        self.x = Lcg(21).floats(M * K, scale=3.0).reshape(M, K)
        self.y = Lcg(22).floats(N * K, scale=0.5).reshape(N, K)
        self.e4m3 = frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="current")
        self.e5m2 = frugal.Quantizer(context(), "quant_fp8", format="e5m2", recipe="current")
        self.addCleanup(self.e4m3.close)
        self.addCleanup(self.e5m2.close)

    def dequantized(self, quantizer, quantized):
        return np.from_dlpack(quantizer.dequantize(quantized)).astype(np.float64)

    def test_fp32_output_matches_numpy_on_dequantized_operands(self):
        with self.e5m2.quantize(self.x) as a, self.e4m3.quantize(self.y) as b:
            da, db = self.dequantized(self.e5m2, a), self.dequantized(self.e4m3, b)
            d = np.from_dlpack(self.e4m3.gemm(a, b, alpha=ALPHA))
        self.assertEqual(d.shape, (M, N))
        self.assertEqual(d.dtype, np.float32)
        reference = ALPHA * (da @ db.T)
        error = np.abs(d.astype(np.float64) - reference)
        self.assertTrue(np.all(error <= accumulation_bound(da, db, ALPHA)), float(error.max()))
        self.assertGreater(float(np.abs(reference).max()), 1.0)  # not a trivially small product

    def test_numpy_operands_and_output_are_used_in_place(self):
        codes_a = np.zeros((M, K), dtype=np.uint8)
        codes_b = np.zeros((N, K), dtype=np.uint8)
        inv_a = np.zeros((1, 1), dtype=np.float32)
        inv_b = np.zeros((1, 1), dtype=np.float32)
        self.e4m3.quantize(self.x, out=codes_a, scale_inv=inv_a).close()
        self.e4m3.quantize(self.y, out=codes_b, scale_inv=inv_b).close()
        self.assertGreater(float(inv_a[0, 0]), 0.0)  # quantize wrote into the numpy arrays
        d = np.full((M, N), np.nan, dtype=np.float32)
        with frugal.QuantizedTensor.from_codes(codes_a, inv_a, frugal.DType.FLOAT8_E4M3FN) as a, \
                frugal.QuantizedTensor.from_codes(codes_b, inv_b, frugal.DType.FLOAT8_E4M3FN) as b:
            self.assertEqual(a.codes.data_ptr, codes_a.ctypes.data)
            self.assertEqual(a.scale_inv.data_ptr, inv_a.ctypes.data)
            self.assertIs(self.e4m3.gemm(a, b, out=d, alpha=ALPHA), d)
            da, db = self.dequantized(self.e4m3, a), self.dequantized(self.e4m3, b)
            reference = ALPHA * (da @ db.T)
            self.assertTrue(np.all(np.abs(d - reference) <= accumulation_bound(da, db, ALPHA)))
            # The GEMM reads the caller's memory, not a copy: zero row 3 of A's codes and
            # halve B's scale_inv, and D follows.
            codes_a[3] = 0
            inv_b[0, 0] *= 0.5
            self.e4m3.gemm(a, b, out=d, alpha=ALPHA)
        np.testing.assert_array_equal(d[3], np.zeros(N, dtype=np.float32))
        reference[3] = 0.0
        self.assertTrue(np.all(np.abs(d - reference / 2) <= accumulation_bound(da, db, ALPHA)))

    def test_fp8_output_carries_its_scale_and_amax(self):
        scale = 2.0
        with self.e4m3.quantize(self.x) as a, self.e4m3.quantize(self.y) as b:
            d32 = np.from_dlpack(self.e4m3.gemm(a, b, alpha=ALPHA))
            amax = np.full(1, -1.0, dtype=np.float32)
            with self.e4m3.gemm(a, b, alpha=ALPHA, dtype=frugal.DType.FLOAT8_E4M3FN, scale=scale,
                                amax=amax) as d8:
                self.assertEqual(d8.layout.dtype, frugal.DType.FLOAT8_E4M3FN)
                self.assertEqual(d8.shape, (M, N))
                self.assertEqual(d8.scale_value(), scale)
                self.assertEqual(d8.scale_inv_value(), 1.0 / scale)
                # The amax of D before the output scale: the fp32 GEMM's, bit for bit.
                self.assertEqual(float(amax[0]), float(np.abs(d32).max()))
                self.assertEqual(d8.amax_value(), float(amax[0]))
                back = np.from_dlpack(self.e4m3.dequantize(d8)).astype(np.float64)
        # E4M3 rounds D * scale to 3 mantissa bits: relative error <= 2^-4 for normal values,
        # absolute <= 2^-10 (half the smallest subnormal step 2^-9) / scale below them.
        d64 = d32.astype(np.float64)
        self.assertTrue(np.all(np.abs(back - d64) <= np.abs(d64) / 16 + 2.0 ** -10 / scale))
        self.assertGreater(float(np.abs(back - d64).max()), 0.0)  # it did round

    def test_wrong_shapes_are_invalid_argument(self):
        with self.e4m3.quantize(self.x) as a, self.e4m3.quantize(self.y) as b, \
                self.e4m3.quantize(self.y[:, :200]) as short:
            with self.assertRaises(frugal.FrugalError) as caught:
                self.e4m3.gemm(a, short)
            self.assertEqual(caught.exception.code_name, "INVALID_ARGUMENT")
            self.assertIn(f"a is {M} x {K} and b is {N} x 200", caught.exception.message)
            self.assertIn("equal inner extents", caught.exception.message)
            d = np.full((M, N - 1), 7.0, dtype=np.float32)
            with self.assertRaises(frugal.FrugalError) as caught:
                self.e4m3.gemm(a, b, out=d)
            self.assertEqual(caught.exception.code, frugal.ErrorCode.INVALID_ARGUMENT)
            self.assertIn(f"expected {M} x {N}", caught.exception.message)
            self.assertTrue(np.all(d == 7.0))  # nothing written

    def test_operands_and_outputs_the_gemm_does_not_take(self):
        block = frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="block")
        self.addCleanup(block.close)
        with self.e5m2.quantize(self.x) as a5, self.e5m2.quantize(self.y) as b5, \
                self.e4m3.quantize(self.y) as b, block.quantize(self.x) as blocked:
            cases = [
                ((a5, b5), {}, "both float8_e5m2"),
                ((blocked, b), {}, "block scaling"),
                ((a5, b), {"dtype": frugal.DType.FLOAT16}, "d has dtype float16"),
            ]
            for args, kwargs, message in cases:
                with self.subTest(message=message):
                    with self.assertRaises(frugal.FrugalError) as caught:
                        self.e4m3.gemm(*args, **kwargs)
                    self.assertEqual(caught.exception.code_name, "UNSUPPORTED")
                    self.assertIn(message, caught.exception.message)
            with self.assertRaises(frugal.FrugalError) as caught:
                self.e4m3.gemm(a5, b, alpha=float("inf"))
            self.assertEqual(caught.exception.code_name, "INVALID_ARGUMENT")
            self.assertIn("alpha", caught.exception.message)
            with self.assertRaises(ValueError):  # an FP8 D needs its output scale
                self.e4m3.gemm(a5, b, dtype=frugal.DType.FLOAT8_E4M3FN)
            with self.assertRaises(ValueError):  # which FP8 format a uint8 D holds is not said
                self.e4m3.gemm(a5, b, out=np.zeros((M, N), dtype=np.uint8))
            with self.assertRaises(TypeError):
                self.e4m3.gemm(self.x, b)
        with self.assertRaises(ValueError):
            frugal.QuantizedTensor.from_codes(self.x, np.ones(1, dtype=np.float32), frugal.DType.FLOAT8_E4M3FN)


@unittest.skipIf(np is None, NO_NUMPY)
@unittest.skipIf(torch is None, NO_TORCH)
class QuantizerGemmTorchTest(unittest.TestCase):
    def test_torch_operands_and_bf16_output_without_copies(self):
        x = torch.from_numpy(Lcg(31).floats(M * K, scale=2.0).reshape(M, K))
        y = torch.from_numpy(Lcg(32).floats(N * K).reshape(N, K))
        codes_a = torch.zeros((M, K), dtype=torch.uint8)
        codes_b = torch.zeros((N, K), dtype=torch.uint8)
        inv_a = torch.zeros(1, dtype=torch.float32)
        inv_b = torch.zeros(1, dtype=torch.float32)
        d = torch.full((M, N), float("nan"), dtype=torch.bfloat16)
        d_address = d.data_ptr()
        with frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="current") as quantizer:
            quantizer.quantize(x, out=codes_a, scale_inv=inv_a).close()
            quantizer.quantize(y, out=codes_b, scale_inv=inv_b).close()
            with frugal.QuantizedTensor.from_codes(codes_a, inv_a, frugal.DType.FLOAT8_E4M3FN) as a, \
                    frugal.QuantizedTensor.from_codes(codes_b, inv_b, frugal.DType.FLOAT8_E4M3FN) as b:
                self.assertEqual(a.codes.data_ptr, codes_a.data_ptr())
                self.assertEqual(b.scale_inv.data_ptr, inv_b.data_ptr())
                self.assertIs(quantizer.gemm(a, b, out=d, alpha=ALPHA), d)
                da = np.from_dlpack(quantizer.dequantize(a)).astype(np.float64)
                db = np.from_dlpack(quantizer.dequantize(b)).astype(np.float64)
        self.assertEqual(d.data_ptr(), d_address)
        reference = ALPHA * (da @ db.T)
        # bf16 keeps 8 significant bits: one rounding of the fp32 D adds a relative 2^-8.
        got = d.float().numpy().astype(np.float64)
        bound = np.abs(reference) * 2.0 ** -8 + accumulation_bound(da, db, ALPHA) * (1 + 2.0 ** -8)
        self.assertTrue(np.all(np.abs(got - reference) <= bound), float(np.abs(got - reference).max()))
        self.assertGreater(float(np.abs(reference).max()), 1.0)


if __name__ == "__main__":
    unittest.main()
