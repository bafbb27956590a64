"""Sharded checkpoints (ABI 2.2) in one process: an engine over a "local" comm (a group of one).

A slice, a replicated tensor and a rank-local one round-trip through one
manifest of format 3 with world_size 1; an engine without a comm restores
that checkpoint whole and reports world_size 1 for its own; the binding
refuses a global_shape or offsets of the wrong length, and the core an
engine without a comm, a box outside the tensor and slices that leave
elements uncovered. The ABI 2.3 calls over the group of one: the preemption
agreement (collective) and each saving rank's restored metadata.
"""

import json
import shutil
import tempfile
import unittest

from support import NO_NUMPY, context, frugal, numpy as np


@unittest.skipIf(np is None, NO_NUMPY)
class ShardedCheckpointTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="frugal-python-sharded-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.store = frugal.Store(context(), "fs", root=self.root, fsync=False)
        self.addCleanup(self.store.close)

    def sharded_engine(self, prefix="job/"):
        """An engine over a group of one; the Comm handle is closed at once (the engine keeps its own groups)."""
        with frugal.Comm(context(), "local") as world:
            self.assertEqual((world.rank, world.size), (0, 1))
            engine = frugal.CheckpointEngine(self.store, comm=world, prefix=prefix)
        self.addCleanup(engine.close)
        return engine

    def test_options_holding_a_comm_merge_with_keyword_options(self):
        """An Options with a comm reads the comm back (items, to_dict), so it
        merges with keyword options into the engine's create call."""
        with frugal.Comm(context(), "local") as world, frugal.Options(comm=world, keep_full=3) as options:
            self.assertIs(options["comm"], world)
            self.assertEqual(options.to_dict(), {"comm": world, "keep_full": 3})
            engine = frugal.CheckpointEngine(self.store, options, prefix="merged/")
        self.addCleanup(engine.close)
        tensor = np.arange(6, dtype=np.float32)
        engine.register_slice("t", tensor, global_shape=[6])
        saved = engine.save(step=1, wait=True)
        self.assertEqual(saved.name, engine.latest().name)
        self.assertEqual(engine.latest().world_size, 1, "the merged options carried the comm")
        with frugal.Options(comm="not a comm") as replaced:
            self.assertEqual(replaced.to_dict(), {"comm": "not a comm"})

    def test_a_slice_a_replicated_and_a_rank_local_tensor_round_trip(self):
        weights = (np.arange(24, dtype=np.float32) / 7).reshape(6, 4)
        bias = np.arange(4, dtype=np.float64) - 1.5
        cursor = np.array([7, 8, 9], dtype=np.int64)
        want = (weights.copy(), bias.copy(), cursor.copy())
        engine = self.sharded_engine()
        # This rank holds rows 0..6 of [6, 4], i.e. all of it in a group of one.
        engine.register_slice("model/weights", weights, global_shape=[6, 4], offsets=[0, 0])
        engine.register_slice("model/bias", bias, global_shape=(4,), replicated=True)
        engine.register("data/cursor", cursor)  # rank-local on an engine with a comm
        saved = engine.save(step=7, metadata=b"sharded", wait=True)

        weights[:] = 0
        bias[:] = 0
        cursor[:] = 0
        info, metadata = engine.restore()
        self.assertEqual((info.name, info.step, info.tensor_count, info.world_size, info.not_restored),
                         (saved.name, 7, 3, 1, ()))
        self.assertEqual(metadata, b"sharded")
        np.testing.assert_array_equal(weights, want[0])
        np.testing.assert_array_equal(bias, want[1])
        np.testing.assert_array_equal(cursor, want[2])

        self.assertEqual(engine.latest().world_size, 1)
        self.assertEqual([(c.name, c.world_size) for c in engine.list(verify_shards=True)], [(saved.name, 1)])
        manifest = json.loads(engine.inspect_json(saved.name))
        self.assertEqual((manifest["format_version"], manifest["world_size"]), (3, 1))
        placed = {t["name"]: (t["global_shape"], t["offsets"]) for t in manifest["tensors"]}
        self.assertEqual(placed["model/weights"], ([6, 4], [0, 0]))

        # An engine without a comm restores the job's checkpoint whole.
        with frugal.CheckpointEngine(self.store, prefix="job/") as whole:
            restored = np.zeros((6, 4), dtype=np.float32)
            whole.register("model/weights", restored)
            whole.register("model/bias", np.zeros(4, dtype=np.float64))
            whole.register("data/cursor", np.zeros(3, dtype=np.int64))
            info, _ = whole.restore()
        self.assertEqual((info.name, info.world_size), (saved.name, 1))
        np.testing.assert_array_equal(restored, want[0])

    def test_the_agreement_and_the_restored_metadata_over_a_group_of_one(self):
        engine = self.sharded_engine()
        frugal.preemption.clear()
        self.addCleanup(frugal.preemption.clear)
        self.assertFalse(engine.preemption_agree())
        frugal.preemption.notify()
        self.assertTrue(engine.preemption_agree())
        self.assertTrue(frugal.preemption.pending())
        frugal.preemption.clear()

        weights = np.arange(8, dtype=np.float32)
        engine.register_slice("w", weights, global_shape=[8])
        with self.assertRaises(frugal.FrugalError) as caught:
            engine.restored_metadata(0)
        self.assertEqual(caught.exception.code, frugal.ErrorCode.FAILED_PRECONDITION)
        engine.save(step=3, metadata=b"rank 0 of 1", wait=True)
        info, metadata = engine.restore()
        self.assertEqual((info.world_size, metadata), (1, b"rank 0 of 1"))
        self.assertEqual(engine.restored_metadata(0), b"rank 0 of 1")
        with self.assertRaises(frugal.FrugalError) as caught:
            engine.restored_metadata(1)
        self.assertEqual(caught.exception.code, frugal.ErrorCode.OUT_OF_RANGE)

    def test_an_engine_without_a_comm_is_one_rank_and_refuses_slices(self):
        state = np.arange(5, dtype=np.int32)
        with frugal.CheckpointEngine(self.store, prefix="single/") as engine:
            engine.register("state", state)
            saved = engine.save(step=1, wait=True)
            self.assertEqual(engine.latest().world_size, 1)
            state[:] = 0
            info, _ = engine.restore()
            self.assertEqual((info.name, info.world_size), (saved.name, 1))
            np.testing.assert_array_equal(state, np.arange(5, dtype=np.int32))
            with self.assertRaises(frugal.FrugalError) as caught:
                engine.register_slice("w", np.zeros((6, 4), dtype=np.float32), global_shape=[6, 4])
        self.assertEqual(caught.exception.code, frugal.ErrorCode.FAILED_PRECONDITION)
        self.assertIn("without a 'comm' option", caught.exception.message)

    def test_the_binding_checks_lengths_and_the_core_the_rest(self):
        engine = self.sharded_engine()
        weights = np.zeros((6, 4), dtype=np.float32)
        with self.assertRaisesRegex(ValueError, r"'w'.*global_shape has 1 values but the tensor has 2 dimensions"):
            engine.register_slice("w", weights, global_shape=[24])
        with self.assertRaisesRegex(ValueError, r"'w'.*offsets has 3 values but the tensor has 2 dimensions"):
            engine.register_slice("w", weights, global_shape=[6, 4], offsets=[0, 0, 0])

        with self.assertRaises(frugal.FrugalError) as caught:
            engine.register_slice("w", weights, global_shape=[6, 4], offsets=[1, 0])
        self.assertEqual(caught.exception.code, frugal.ErrorCode.OUT_OF_RANGE)
        self.assertIn("past the tensor's extent 6", caught.exception.message)
        with self.assertRaises(frugal.FrugalError) as caught:
            engine.register_slice("w", weights, global_shape=[12, 4], replicated=True)
        self.assertEqual(caught.exception.code, frugal.ErrorCode.INVALID_ARGUMENT)
        self.assertIn("replicated", caught.exception.message)

        # Nothing was registered by the refusals; rows 0..3 of 6 leave half the tensor uncovered,
        # which the save finds and commits on no rank.
        engine.register_slice("w", weights[:3], global_shape=[6, 4])
        with self.assertRaises(frugal.FrugalError) as caught:
            engine.save(step=1, wait=True)
        self.assertEqual(caught.exception.code, frugal.ErrorCode.FAILED_PRECONDITION)
        self.assertIn("covers 12 of the 24 elements of tensor 'w'", caught.exception.message)
        self.assertEqual(engine.list(), [])


if __name__ == "__main__":
    unittest.main()
