"""Quantizer scales and round-trip bounds; router top-k, weights, permute and combine against numpy;
ABI 2.4's options across ranks (amax_comm, ep_comm) on a `local` comm, a group of one, against the same
strategies without a comm."""

import unittest

from support import NO_NUMPY, Lcg, context, frugal, numpy as np

E4M3_MAX = 448.0


@unittest.skipIf(np is None, NO_NUMPY)
class QuantizerTest(unittest.TestCase):
    def setUp(self):
        self.x = Lcg(13).floats(32 * 64, scale=3.0).reshape(32, 64)

    def test_current_scaling_scale_and_error_bound(self):
        with frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="current") as quantizer:
            self.assertEqual(quantizer.layout.dtype, frugal.DType.FLOAT8_E4M3FN)
            self.assertEqual(quantizer.layout.scaling_mode, frugal.ScalingMode.CURRENT)
            self.assertEqual(quantizer.scale_shape(32, 64), (1, 1))
            with quantizer.quantize(self.x) as quantized:
                amax = float(np.abs(self.x).max())
                self.assertEqual(quantized.amax_value(), amax)
                scale = quantized.scale_value()
                self.assertLessEqual(abs(amax * scale - E4M3_MAX), 1e-6 * E4M3_MAX)
                self.assertAlmostEqual(quantized.scale_inv_value() * scale, 1.0, places=6)
                y = np.from_dlpack(quantizer.dequantize(quantized))
        x64, y64 = self.x.astype(np.float64), y.astype(np.float64)
        bound = np.abs(x64) / 16 + amax / E4M3_MAX * 2.0 ** -10
        self.assertTrue(np.all(np.abs(x64 - y64) <= bound))
        self.assertGreater(float(np.abs(x64 - y64).max()), 0.0)  # it did quantize

    def test_codes_into_a_caller_uint8_buffer(self):
        codes = np.zeros((32, 64), dtype=np.uint8)
        with frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="current") as quantizer:
            with quantizer.quantize(self.x, out=codes) as quantized:
                self.assertEqual(quantized.codes.data_ptr, codes.ctypes.data)
                raw = np.asarray(quantized.codes)
                np.testing.assert_array_equal(raw, codes)
        # The element at the amax is +-448: E4M3 0x7E or 0xFE.
        index = np.unravel_index(np.abs(self.x).argmax(), self.x.shape)
        self.assertIn(int(codes[index]), (0x7E, 0xFE))

    def test_delayed_state_round_trip(self):
        options = {"format": "e4m3", "recipe": "delayed", "history": 4}
        with frugal.Quantizer(context(), "quant_fp8", options) as first:
            first.quantize(self.x).close()
            blob = first.export_state()
            self.assertGreater(len(blob), 0)
            with frugal.Quantizer(context(), "quant_fp8", options) as second:
                second.import_state(blob)
                with first.quantize(self.x, freeze_scale=True) as a, second.quantize(self.x, freeze_scale=True) as b:
                    self.assertEqual(a.scale_inv_value(), b.scale_inv_value())
                    self.assertEqual(a.codes.tolist(), b.codes.tolist())
                with self.assertRaises(frugal.FrugalError) as caught:
                    second.import_state(blob[:-3])
                self.assertNotEqual(caught.exception.code, frugal.ErrorCode.OK)

    def test_amax_comm_of_one_rank_changes_nothing(self):
        with frugal.Comm(context(), "local") as comm:
            for recipe in ("delayed", "current"):
                options = {"format": "e4m3", "recipe": recipe}
                with frugal.Quantizer(context(), "quant_fp8", options, amax_comm=comm) as grouped, \
                        frugal.Quantizer(context(), "quant_fp8", options) as alone:
                    for _ in range(2):
                        with grouped.quantize(self.x) as a, alone.quantize(self.x) as b:
                            self.assertEqual(a.scale_inv_value(), b.scale_inv_value(), recipe)
                            self.assertEqual(a.codes.tolist(), b.codes.tolist(), recipe)
                    self.assertEqual(grouped.export_state(), alone.export_state(), recipe)
            with self.assertRaises(frugal.FrugalError) as caught:
                frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="per_channel", amax_comm=comm)
        self.assertEqual(caught.exception.code, frugal.ErrorCode.INVALID_ARGUMENT)
        self.assertIn("amax_comm", caught.exception.message)


@unittest.skipIf(np is None, NO_NUMPY)
class RouterTest(unittest.TestCase):
    def setUp(self):
        self.tokens, self.experts, self.k = 64, 8, 2
        self.logits = Lcg(11).floats(self.tokens * self.experts, scale=4.0).reshape(self.tokens, self.experts)

    def router(self, **options):
        return frugal.Router(context(), "topk_softmax", experts=self.experts, k=self.k, capacity_factor=8.0,
                             **options)

    def test_topk_matches_numpy(self):
        with self.router(renormalize=True) as router, router.route(self.logits) as plan:
            ids = np.asarray(plan.expert_ids)
            weights = np.asarray(plan.weights)
            want_ids = np.argsort(-self.logits, axis=1, kind="stable")[:, : self.k]
            np.testing.assert_array_equal(ids, want_ids)  # best first
            chosen = np.take_along_axis(self.logits.astype(np.float64), want_ids, axis=1)
            softmax = np.exp(chosen - chosen.max(axis=1, keepdims=True))
            softmax /= softmax.sum(axis=1, keepdims=True)
            np.testing.assert_allclose(weights, softmax, atol=1e-5)
            self.assertFalse(np.asarray(plan.dropped).any())
            self.assertEqual(int(np.asarray(plan.expert_demand).sum()), self.tokens * self.k)
            np.testing.assert_array_equal(np.asarray(plan.expert_demand),
                                          np.bincount(want_ids.ravel(), minlength=self.experts))
            stats = router.stats(plan)
            self.assertEqual((stats.tokens, stats.assignments, stats.kept, stats.dropped),
                             (self.tokens, self.tokens * self.k, self.tokens * self.k, 0))

    def test_default_weights_are_full_softmax_probabilities(self):
        with self.router() as router, router.route(self.logits) as plan:
            logits = self.logits.astype(np.float64)
            probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
            probabilities /= probabilities.sum(axis=1, keepdims=True)
            want = np.take_along_axis(probabilities, np.asarray(plan.expert_ids).astype(np.int64), axis=1)
            np.testing.assert_allclose(np.asarray(plan.weights), want, atol=1e-5)

    def test_permute_then_combine(self):
        hidden = 16
        x = Lcg(3).floats(self.tokens * hidden).reshape(self.tokens, hidden)
        with self.router(renormalize=True) as router, router.route(self.logits) as plan:
            rows = np.from_dlpack(router.permute(plan, x))
            row_token = np.asarray(plan.row_token)
            np.testing.assert_array_equal(rows, x[row_token])
            y = np.zeros_like(x)
            router.combine(plan, rows, out=y)
            weights = np.asarray(plan.weights).sum(axis=1)  # every row of a token is x[token]
            np.testing.assert_allclose(y, x * weights[:, None], rtol=1e-6, atol=1e-6)

    def test_too_many_experts_in_logits_is_invalid(self):
        with self.router() as router:
            with self.assertRaises(frugal.FrugalError) as caught:
                router.route(np.zeros((4, self.experts + 1), dtype=np.float32))
        self.assertEqual(caught.exception.code, frugal.ErrorCode.INVALID_ARGUMENT)
        self.assertIn("logits", caught.exception.message)


@unittest.skipIf(np is None, NO_NUMPY)
class ExpertParallelRouterTest(unittest.TestCase):
    """A router with ep_comm over a group of one against the same router without: the same rows, bit for bit."""

    STRATEGIES = (
        ("topk_softmax", {"experts": 8, "k": 2, "capacity_factor": 1.0}),  # drops some rows
        ("deepseek_v3", {"experts": 8, "k": 2}),
        ("expert_choice", {"experts": 8}),
    )

    def setUp(self):
        self.tokens, self.hidden = 48, 16
        self.logits = Lcg(11).floats(self.tokens * 8, scale=4.0).reshape(self.tokens, 8)
        self.x = Lcg(3).floats(self.tokens * self.hidden).reshape(self.tokens, self.hidden)
        self.comm = frugal.Comm(context(), "local")
        self.addCleanup(self.comm.close)

    def test_dispatch_and_combine_of_one_rank_equal_permute_and_combine(self):
        for name, options in self.STRATEGIES:
            with self.subTest(strategy=name), \
                    frugal.Router(context(), name, options, ep_comm=self.comm) as grouped, \
                    frugal.Router(context(), name, options) as alone:
                self.assertEqual((grouped.layout.ep_rank, grouped.layout.ep_ranks), (0, 1))
                self.assertEqual((alone.layout.ep_rank, alone.layout.ep_ranks), (0, 0))
                with grouped.route(self.logits) as plan, alone.route(self.logits) as reference:
                    self.assertIsNone(reference.ep_tokens)
                    self.assertEqual(np.asarray(plan.ep_tokens).tolist(), [self.tokens])
                    counts = np.diff(np.asarray(reference.expert_offsets))
                    np.testing.assert_array_equal(np.asarray(plan.ep_rows), counts[None, :])
                    np.testing.assert_array_equal(np.asarray(plan.expert_demand),
                                                  np.asarray(reference.expert_demand))
                    kept = int(np.asarray(reference.expert_offsets)[-1])

                    shape = grouped.ep_shape(plan)
                    self.assertEqual(shape, frugal.RouteEpShape(
                        rank=0, ranks=1, first_expert=0, local_experts=8, group_tokens=self.tokens,
                        token_offset=0, sent_rows=kept, received_rows=kept))

                    rows, offsets, row_token = grouped.ep_dispatch(plan, self.x)
                    permuted = np.from_dlpack(alone.permute(reference, self.x))
                    self.assertEqual(tuple(rows.shape), (kept, self.hidden))
                    np.testing.assert_array_equal(np.asarray(rows), permuted[:kept])
                    np.testing.assert_array_equal(np.asarray(offsets), np.asarray(reference.expert_offsets))
                    np.testing.assert_array_equal(np.asarray(row_token), np.asarray(reference.row_token)[:kept])

                    y = np.from_dlpack(grouped.ep_combine(plan, rows))
                    want = np.from_dlpack(alone.combine(reference, permuted))
                    self.assertEqual(y.tobytes(), want.tobytes())  # bit for bit

    def test_caller_buffers_are_written_in_place(self):
        name, options = self.STRATEGIES[0]
        with frugal.Router(context(), name, options, ep_comm=self.comm) as router, router.route(self.logits) as plan:
            shape = router.ep_shape(plan)
            rows = np.zeros((shape.received_rows, self.hidden), np.float32)
            offsets = np.zeros(shape.local_experts + 1, np.int64)
            row_token = np.zeros(shape.received_rows, np.int64)
            got = router.ep_dispatch(plan, self.x, out=rows, expert_offsets=offsets, row_token=row_token)
            self.assertIs(got.rows, rows)
            self.assertIs(got.expert_offsets, offsets)
            self.assertIs(got.row_token, row_token)
            np.testing.assert_array_equal(rows, self.x[row_token])
            self.assertEqual(int(offsets[-1]), shape.received_rows)
            y = np.full_like(self.x, np.nan)
            self.assertIs(router.ep_combine(plan, rows, out=y), y)
            self.assertFalse(np.isnan(y).any())

    def test_a_router_without_ep_comm_has_no_ep_shape(self):
        with frugal.Router(context(), "topk_softmax", experts=8, k=2) as router, router.route(self.logits) as plan:
            with self.assertRaises(frugal.FrugalError) as caught:
                router.ep_shape(plan)
        self.assertEqual(caught.exception.code, frugal.ErrorCode.FAILED_PRECONDITION)
        self.assertIn("ep_comm", caught.exception.message)


if __name__ == "__main__":
    unittest.main()
