"""numpy arrays cross into and out of frugal without copies, and frugal memory is freed exactly once."""

import gc
import shutil
import tempfile
import unittest

from support import NO_NUMPY, context, frugal, numpy as np

from frugal import dlpack


@unittest.skipIf(np is None, NO_NUMPY)
class NumpyIntoFrugalTest(unittest.TestCase):
    def test_import_shares_the_array_memory(self):
        array = np.arange(12, dtype=np.float32).reshape(3, 4)
        with frugal.Tensor.from_dlpack(array) as tensor:
            self.assertEqual(tensor.data_ptr, array.ctypes.data)
            self.assertEqual(tensor.shape, (3, 4))
            self.assertEqual(tensor.strides, (4, 1))
            self.assertEqual(tensor.dtype, frugal.DType.FLOAT32)
            self.assertEqual(tensor.tolist(), array.tolist())
            array[1, 2] = 42.0  # the producer's write is frugal's too
            self.assertEqual(tensor.tolist()[1][2], 42.0)

    def test_import_of_a_strided_view_keeps_its_strides(self):
        base = np.arange(20, dtype=np.int64).reshape(4, 5)
        view = base[:, ::2]
        with frugal.Tensor.from_dlpack(view) as tensor:
            self.assertEqual(tensor.data_ptr, view.ctypes.data)
            self.assertEqual(tensor.strides, (5, 2))
            self.assertEqual(tensor.tolist(), view.tolist())

    def test_a_consumed_capsule_is_renamed_used_dltensor(self):
        array = np.ones(3, dtype=np.float64)
        capsule = array.__dlpack__()
        self.assertEqual(dlpack.capsule_name(capsule), "dltensor")
        with frugal.Tensor.from_dlpack(capsule) as tensor:
            self.assertEqual(tensor.data_ptr, array.ctypes.data)
            self.assertIsNone(dlpack.capsule_name(capsule))
            self.assertIn("used_dltensor", repr(capsule))
        with self.assertRaises(ValueError):
            frugal.Tensor.from_dlpack(capsule)

    def test_write_through_frugal_is_visible_in_the_array(self):
        """A checkpoint restore writes into the registered numpy memory itself."""
        weights = np.linspace(-1, 1, 256, dtype=np.float32)
        expected = weights.copy()
        root = tempfile.mkdtemp(prefix="frugal-python-test-")
        try:
            with frugal.Store(context(), "fs", root=root) as store, frugal.CheckpointEngine(store) as engine:
                engine.register("w", weights)
                engine.save(step=1, metadata=b"m", wait=True)
                weights[:] = 0.0
                info, metadata = engine.restore()
        finally:
            shutil.rmtree(root, ignore_errors=True)
        self.assertEqual(info.step, 1)
        self.assertEqual(metadata, b"m")
        np.testing.assert_array_equal(weights, expected)

    def test_dequantize_writes_into_the_callers_array(self):
        x = np.linspace(-2, 2, 64, dtype=np.float32).reshape(4, 16)
        out = np.full_like(x, np.nan)
        before = out.ctypes.data
        with frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="current") as quantizer:
            with quantizer.quantize(x) as quantized:
                returned = quantizer.dequantize(quantized, out=out)
        self.assertIs(returned, out)
        self.assertEqual(out.ctypes.data, before)
        self.assertFalse(np.isnan(out).any())
        np.testing.assert_allclose(out, x, atol=2.0 / 16 + 1e-6)

    def test_read_only_arrays_are_read_but_never_written(self):
        logits = np.zeros((4, 4), dtype=np.float32)
        logits.flags.writeable = False
        with frugal.Router(context(), "topk_softmax", experts=4, k=1) as router, router.route(logits) as plan:
            self.assertEqual(len(plan.expert_ids.tolist()), 4)
        with self.assertRaises(ValueError):
            with frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="current") as quantizer:
                with quantizer.quantize(np.ones((2, 2), dtype=np.float32)) as quantized:
                    quantizer.dequantize(quantized, out=logits)


@unittest.skipIf(np is None, NO_NUMPY)
class FrugalIntoNumpyTest(unittest.TestCase):
    def test_allocated_tensor_moves_to_numpy_without_a_copy(self):
        tensor = frugal.Tensor.zeros((2, 3), frugal.DType.INT32)
        address = tensor.data_ptr
        self.assertEqual(address % 64, 0)  # frugal aligns its allocations
        array = np.from_dlpack(tensor)
        self.assertTrue(tensor.closed)  # the export moved the memory to numpy
        self.assertEqual(array.ctypes.data, address)
        self.assertEqual(array.dtype, np.int32)
        self.assertEqual(array.shape, (2, 3))
        self.assertEqual(array.tolist(), [[0, 0, 0], [0, 0, 0]])

    def test_dequantized_tensor_moves_to_numpy_with_its_values(self):
        x = np.array([[0.5, -1.0, 2.0, 448.0]], dtype=np.float32)
        with frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="current") as quantizer:
            with quantizer.quantize(x) as quantized:
                result = quantizer.dequantize(quantized)
        address = result.data_ptr
        array = np.from_dlpack(result)
        self.assertEqual(array.ctypes.data, address)
        # Powers of two and the E4M3 maximum are exact after scaling by 448 / amax = 1.
        np.testing.assert_array_equal(array, x)

    def test_array_interface_view_keeps_the_tensor_alive(self):
        tensor = frugal.Tensor.zeros((4,), frugal.DType.FLOAT64)
        address = tensor.data_ptr
        view = np.asarray(tensor)
        self.assertEqual(view.ctypes.data, address)
        view[:] = [1, 2, 3, 4]
        self.assertEqual(tensor.tolist(), [1.0, 2.0, 3.0, 4.0])
        with self.assertRaises(BufferError):
            tensor.__dlpack__()  # the view would dangle
        tensor.close()  # hides the handle; the memory lives as long as the view
        self.assertEqual(view.tolist(), [1.0, 2.0, 3.0, 4.0])


@unittest.skipIf(np is None, NO_NUMPY)
class ReleasedExactlyOnceTest(unittest.TestCase):
    """Memory handed to frugal is released once, whichever way the tensor goes."""

    def wrapped(self, releases):
        source = np.arange(8, dtype=np.float32)
        return frugal.Tensor.wrap(source, on_release=lambda: releases.append(1)), source.ctypes.data

    def test_closed_tensor(self):
        releases = []
        tensor, _ = self.wrapped(releases)
        tensor.close()
        tensor.close()
        self.assertEqual(releases, [1])

    def test_capsule_never_consumed(self):
        releases = []
        tensor, _ = self.wrapped(releases)
        capsule = tensor.__dlpack__()
        self.assertTrue(tensor.closed)
        self.assertEqual(dlpack.capsule_name(capsule), "dltensor")
        self.assertEqual(releases, [])
        del capsule  # the capsule destructor runs the deleter
        gc.collect()
        self.assertEqual(releases, [1])

    def test_versioned_capsule_never_consumed(self):
        releases = []
        tensor, _ = self.wrapped(releases)
        capsule = tensor.__dlpack__(max_version=(1, 0))
        self.assertEqual(dlpack.capsule_name(capsule), "dltensor_versioned")
        del capsule
        gc.collect()
        self.assertEqual(releases, [1])

    def test_capsule_consumed_by_numpy(self):
        releases = []
        tensor, address = self.wrapped(releases)
        capsule = tensor.__dlpack__()
        array = np.from_dlpack(_Producer(capsule))
        self.assertIsNone(dlpack.capsule_name(capsule))  # numpy renamed it
        self.assertEqual(array.ctypes.data, address)
        self.assertEqual(array.tolist(), list(range(8)))
        del capsule
        gc.collect()
        self.assertEqual(releases, [])  # numpy owns it now
        del array
        gc.collect()
        self.assertEqual(releases, [1])

    def test_capsule_consumed_by_frugal_again(self):
        releases = []
        tensor, address = self.wrapped(releases)
        again = frugal.Tensor.from_dlpack(tensor.__dlpack__())
        self.assertEqual(again.data_ptr, address)
        gc.collect()
        self.assertEqual(releases, [])
        again.close()
        self.assertEqual(releases, [1])


class _Producer:
    """Hands numpy a capsule made earlier, as a DLPack producer would."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


if __name__ == "__main__":
    unittest.main()
