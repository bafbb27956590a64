"""torch tensors cross into and out of frugal without copies (torch 1.13's legacy DLPack)."""

import gc
import shutil
import tempfile
import unittest

from support import NO_TORCH, context, frugal, torch

if torch is not None:
    import torch.utils.dlpack


@unittest.skipIf(torch is None, NO_TORCH)
class TorchIntoFrugalTest(unittest.TestCase):
    def test_import_shares_the_tensor_memory(self):
        source = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        with frugal.Tensor.from_dlpack(source) as tensor:
            self.assertEqual(tensor.data_ptr, source.data_ptr())
            self.assertEqual(tensor.shape, (2, 3))
            self.assertEqual(tensor.tolist(), source.tolist())
            source[0, 0] = -7.0
            self.assertEqual(tensor.tolist()[0][0], -7.0)

    def test_import_keeps_the_storage_alive(self):
        source = torch.full((1024,), 3.0)
        address = source.data_ptr()
        tensor = frugal.Tensor.from_dlpack(source)
        del source
        gc.collect()
        self.assertEqual(tensor.data_ptr, address)
        self.assertEqual(tensor.tolist()[1023], 3.0)
        tensor.close()

    def test_checkpoint_restore_writes_into_torch_memory(self):
        weights = torch.linspace(-1, 1, 300)
        step = torch.tensor([7], dtype=torch.int64)
        expected = weights.clone()
        root = tempfile.mkdtemp(prefix="frugal-python-test-")
        try:
            with frugal.Store(context(), "fs", root=root) as store, frugal.CheckpointEngine(store) as engine:
                engine.register("weights", weights)
                engine.register("step", step)
                saved = engine.save(step=7, metadata=b"torch", wait=True)
                weights.zero_()
                step.zero_()
                info, metadata = engine.restore(saved.name)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        self.assertEqual((info.name, info.step, metadata), (saved.name, 7, b"torch"))
        self.assertTrue(torch.equal(weights, expected))
        self.assertEqual(step.tolist(), [7])

    def test_quantize_into_torch_buffers(self):
        x = torch.linspace(-3, 3, 128).reshape(8, 16)
        codes = torch.zeros((8, 16), dtype=torch.uint8)  # stands in for float8_e4m3fn
        fake = torch.zeros_like(x)
        with frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="current") as quantizer:
            with quantizer.quantize(x, out=codes, fake=fake) as quantized:
                self.assertEqual(quantized.codes.data_ptr, codes.data_ptr())
                back = torch.zeros_like(x)
                quantizer.dequantize(quantized, out=back)
        self.assertTrue(bool(codes.ne(0).any()))
        # fake is dequantize(quantize(x)): the same values dequantize writes.
        self.assertTrue(torch.equal(fake, back))
        self.assertLessEqual(float((x - back).abs().max()), 3.0 / 16 + 1e-6)

    def test_tensor_that_requires_grad_is_refused_by_torch(self):
        source = torch.ones(3, requires_grad=True)
        with self.assertRaises(RuntimeError):
            frugal.Tensor.from_dlpack(source)
        with frugal.Tensor.from_dlpack(source.detach()) as tensor:
            self.assertEqual(tensor.data_ptr, source.data_ptr())


@unittest.skipIf(torch is None, NO_TORCH)
class FrugalIntoTorchTest(unittest.TestCase):
    def test_allocated_tensor_moves_to_torch(self):
        tensor = frugal.Tensor.zeros((3, 5), frugal.DType.INT64)
        address = tensor.data_ptr
        result = torch.utils.dlpack.from_dlpack(tensor)
        self.assertTrue(tensor.closed)
        self.assertEqual(result.data_ptr(), address)
        self.assertEqual(result.dtype, torch.int64)
        self.assertEqual(tuple(result.shape), (3, 5))
        self.assertEqual(int(result.sum()), 0)
        result += 2  # torch owns it now and may write it
        self.assertEqual(int(result.sum()), 30)

    def test_dequantized_tensor_moves_to_torch_with_its_values(self):
        x = torch.tensor([[1.0, -0.25, 4.0, -448.0]])
        with frugal.Quantizer(context(), "quant_fp8", format="e4m3", recipe="current") as quantizer:
            with quantizer.quantize(x) as quantized:
                self.assertAlmostEqual(quantized.scale_value(), 1.0, places=6)
                output = quantizer.dequantize(quantized)
        address = output.data_ptr
        result = torch.from_dlpack(output)
        self.assertEqual(result.data_ptr(), address)
        self.assertTrue(torch.equal(result, x))

    def test_torch_releases_frugal_memory_exactly_once(self):
        import numpy as np

        releases = []
        source = np.arange(5, dtype=np.float32)
        tensor = frugal.Tensor.wrap(source, on_release=lambda: releases.append(1))
        result = torch.utils.dlpack.from_dlpack(tensor)
        self.assertEqual(result.data_ptr(), source.ctypes.data)
        self.assertEqual(result.tolist(), [0.0, 1.0, 2.0, 3.0, 4.0])
        gc.collect()
        self.assertEqual(releases, [])
        del result
        gc.collect()
        self.assertEqual(releases, [1])


if __name__ == "__main__":
    unittest.main()
