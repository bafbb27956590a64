"""Scheduler decisions and ledger conservation; store objects; checkpoint save, list and restore;
the preemption agreement and every rank's restored metadata (ABI 2.3) of an engine without a comm."""

import math
import shutil
import tempfile
import unittest

from support import COSINE, NO_NUMPY, context, frugal, numpy as np


def record(i, **changes):
    values = dict(step=10 * i, wall_time_s=30.0 * i, tokens=10 * i * 2048, loss=4.0 - 0.05 * i, nodes=2,
                  resource=frugal.ResourceClass.SPOT, price_per_node_hour=1.10)
    values.update(changes)
    return frugal.Telemetry(**values)


class SchedulerTest(unittest.TestCase):
    def make(self, **kwargs):
        return frugal.Scheduler(context(), schedule="cosine", schedule_options=COSINE,
                                policies=[("checkpoint_cadence", {"heartbeat_interval_s": 60.0})], **kwargs)

    def test_lr_follows_the_schedule_and_money_is_conserved(self):
        heartbeats = 0
        with self.make() as scheduler, frugal.Schedule(context(), "cosine", COSINE) as schedule:
            for i in range(1, 31):
                decision = scheduler.step(record(i))
                self.assertEqual(decision.lr, schedule.lr(10 * i))
                self.assertEqual(decision.target_nodes, 2)
                self.assertEqual(decision.stop, frugal.StopReason.NONE)
                heartbeats += decision.checkpoint == frugal.CheckpointKind.HEARTBEAT
            ledger = scheduler.ledger()
        self.assertGreater(heartbeats, 0)
        paid = 900 * 2 * 1.10 / 3600
        self.assertLessEqual(abs(ledger.dollars - paid), 1e-9)
        self.assertLessEqual(abs(ledger.dollars - (ledger.productive_dollars + ledger.stall_dollars
                                                   + ledger.lost_dollars)), 1e-9)
        self.assertLessEqual(abs(ledger.dollars - (ledger.spot_dollars + ledger.reserved_dollars)), 1e-9)
        self.assertEqual(ledger.reserved_dollars, 0.0)
        self.assertEqual(ledger.wall_s, 900.0)
        self.assertAlmostEqual(ledger.gpu_hours, 2 * 900 / 3600, places=12)
        self.assertEqual(ledger.loss_first, 3.95)

    def test_restart_books_lost_time_and_state_round_trips(self):
        with self.make() as scheduler:
            for i in range(1, 4):
                scheduler.step(record(i))
            blob = scheduler.export_state()  # counts as a checkpoint at 90 s
            with self.make() as restored:
                restored.import_state(blob)
                self.assertEqual(restored.ledger(), scheduler.ledger())
                for target in (scheduler, restored):
                    target.step(record(4, step=20, flags=frugal.TELEMETRY_RESTARTED))
                self.assertEqual(restored.ledger(), scheduler.ledger())
            ledger = scheduler.ledger()
        self.assertEqual(ledger.restarts, 1)
        self.assertEqual(ledger.lost_s, 30.0)  # the restart's interval; the work before 90 s was checkpointed
        self.assertLessEqual(abs(ledger.dollars - (ledger.productive_dollars + ledger.stall_dollars
                                                   + ledger.lost_dollars)), 1e-12)

    def test_a_comm_of_one_rank_decides_as_one_process(self):
        # ABI 2.4: with a comm every rank gets the job's decision; a group of one is this process.
        with frugal.Comm(context(), "local") as comm, self.make(comm=comm) as grouped, self.make() as alone:
            comm.close()  # the scheduler keeps a sub-group of its own
            for i in range(1, 31):
                self.assertEqual(grouped.step(record(i)), alone.step(record(i)))
            self.assertEqual(grouped.ledger(), alone.ledger())
            self.assertEqual(grouped.export_state(), alone.export_state())
        with self.assertRaises(TypeError):
            self.make(comm="local")

    def test_malformed_record_is_invalid(self):
        with self.make() as scheduler:
            with self.assertRaises(frugal.FrugalError) as caught:
                scheduler.step(record(1, loss=math.nan))
        self.assertEqual(caught.exception.code, frugal.ErrorCode.INVALID_ARGUMENT)
        self.assertIn("loss", caught.exception.message)


class StoreTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="frugal-python-test-")
        self.addCleanup(shutil.rmtree, self.root, True)

    def test_put_read_list_remove(self):
        with frugal.Store(context(), "fs", root=self.root, fsync=False) as store:
            store.put("a/one", b"hello")
            store.put("a/two", bytes(range(256)))
            self.assertEqual(store.size("a/one"), 5)
            self.assertEqual(store.get("a/two"), bytes(range(256)))
            self.assertEqual(store.read("a/two", offset=10, length=3), bytes([10, 11, 12]))
            self.assertEqual(store.list("a/"), [("a/one", 5), ("a/two", 256)])
            store.remove("a/one")
            with self.assertRaises(frugal.FrugalError) as caught:
                store.size("a/one")
            self.assertEqual(caught.exception.code, frugal.ErrorCode.NOT_FOUND)


@unittest.skipIf(np is None, NO_NUMPY)
class CheckpointTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="frugal-python-test-")
        self.addCleanup(shutil.rmtree, self.root, True)

    def test_save_list_and_restore_with_metadata(self):
        weights = np.arange(1000, dtype=np.float32) / 7
        cursor = np.array([1, 2, 3, 4], dtype=np.int64)
        want_weights, want_cursor = weights.copy(), cursor.copy()
        with frugal.Store(context(), "fs", root=self.root) as store, frugal.CheckpointEngine(store) as engine:
            engine.register("weights", weights)
            engine.register("cursor", cursor, kinds=frugal.CheckpointKind.HEARTBEAT | frugal.CheckpointKind.FULL)
            first = engine.save(step=100, metadata=b"step=100", wait=True)
            weights += 1
            second = engine.save(step=200, kind=frugal.CheckpointKind.HEARTBEAT, metadata=b"step=200")
            engine.wait()
            listed = engine.list(verify_shards=True)
            self.assertEqual([c.name for c in listed], [second.name, first.name])  # newest first
            self.assertTrue(all(c.status == frugal.CheckpointStatus.VALID for c in listed))
            self.assertEqual(engine.latest(frugal.CheckpointKind.FULL).name, first.name)
            self.assertIn('"weights"', engine.inspect_json(first.name))
            weights[:] = 0
            cursor[:] = 0
            info, metadata = engine.restore(kinds=frugal.CheckpointKind.FULL)
        self.assertEqual((info.name, info.step, info.kind, info.tensor_count), (first.name, 100, 2, 2))
        self.assertEqual(metadata, b"step=100")
        np.testing.assert_array_equal(weights, want_weights)
        np.testing.assert_array_equal(cursor, want_cursor)

    def test_heartbeat_restore_takes_full_only_state_from_the_full_before_it(self):
        weights = np.zeros(64, dtype=np.float32)
        moments = np.arange(32, dtype=np.float64)
        with frugal.Store(context(), "fs", root=self.root) as store, frugal.CheckpointEngine(store) as engine:
            engine.register("weights", weights)
            engine.register("optim/moments", moments, kinds=frugal.CheckpointKind.FULL)
            early = engine.save(step=1, kind=frugal.CheckpointKind.HEARTBEAT, wait=True)  # no full before it
            full = engine.save(step=2, kind=frugal.CheckpointKind.FULL, wait=True)
            want_moments = moments.copy()
            weights += 3
            want_weights = weights.copy()
            moments += 1  # heartbeats leave it out
            heartbeat = engine.save(step=3, kind=frugal.CheckpointKind.HEARTBEAT, wait=True)
            weights[:] = 0
            moments[:] = -1
            info, _ = engine.restore()
            self.assertEqual((info.name, info.full_source, info.not_restored), (heartbeat.name, full.name, ()))
            np.testing.assert_array_equal(weights, want_weights)
            np.testing.assert_array_equal(moments, want_moments)

            moments[:] = -1
            info, _ = engine.restore(early.name)
            self.assertEqual((info.full_source, info.not_restored), ("", ("optim/moments",)))
            np.testing.assert_array_equal(moments, np.full(32, -1.0))

    def test_large_metadata_is_returned_whole(self):
        blob = bytes(range(256)) * 64  # larger than the first restore buffer
        state = np.ones(16, dtype=np.float64)
        with frugal.Store(context(), "fs", root=self.root) as store, frugal.CheckpointEngine(store) as engine:
            engine.register("state", state)
            engine.save(step=1, metadata=blob, wait=True)
            _, metadata = engine.restore()
        self.assertEqual(metadata, blob)

    def test_preemption_agree_reports_this_process_notice_without_a_comm(self):
        frugal.preemption.clear()
        self.addCleanup(frugal.preemption.clear)
        with frugal.Store(context(), "fs", root=self.root) as store, frugal.CheckpointEngine(store) as engine:
            self.assertFalse(engine.preemption_agree())
            frugal.preemption.notify()
            self.assertTrue(engine.preemption_agree())
            self.assertTrue(frugal.preemption.pending(), "agreeing does not consume the notice")
            self.assertTrue(engine.preemption_agree())
            frugal.preemption.clear()
            self.assertFalse(engine.preemption_agree())

    def test_restored_metadata_is_rank_0s_after_a_restore_only(self):
        state = np.arange(4, dtype=np.int32)
        with frugal.Store(context(), "fs", root=self.root) as store, frugal.CheckpointEngine(store) as engine:
            engine.register("state", state)
            with self.assertRaises(frugal.FrugalError) as caught:
                engine.restored_metadata(0)
            self.assertEqual(caught.exception.code, frugal.ErrorCode.FAILED_PRECONDITION)
            engine.save(step=1, metadata=b"cursor=17", wait=True)
            with self.assertRaises(frugal.FrugalError) as caught:
                engine.restored_metadata(0)  # a save is not a restore
            self.assertEqual(caught.exception.code, frugal.ErrorCode.FAILED_PRECONDITION)
            info, metadata = engine.restore()
            self.assertEqual((info.world_size, metadata), (1, b"cursor=17"))
            self.assertEqual(engine.restored_metadata(0), b"cursor=17")
            self.assertEqual(engine.restored_metadata(0), b"cursor=17", "it stays until the next restore")
            with self.assertRaises(frugal.FrugalError) as caught:
                engine.restored_metadata(1)  # one rank wrote it
            self.assertEqual(caught.exception.code, frugal.ErrorCode.OUT_OF_RANGE)

            # The next restore replaces it; empty metadata comes back empty.
            engine.save(step=2, wait=True)
            engine.restore()
            self.assertEqual(engine.restored_metadata(0), b"")

    def test_large_restored_metadata_is_returned_whole(self):
        blob = bytes(range(256)) * 400  # 100 KiB: larger than the first buffer
        with frugal.Store(context(), "fs", root=self.root) as store, frugal.CheckpointEngine(store) as engine:
            engine.register("state", np.ones(16, dtype=np.float64))
            engine.save(step=1, metadata=blob, wait=True)
            _, metadata = engine.restore()
            self.assertEqual(metadata, blob)
            self.assertEqual(engine.restored_metadata(0), blob)

    def test_restore_into_a_different_shape_is_refused(self):
        with frugal.Store(context(), "fs", root=self.root) as store:
            with frugal.CheckpointEngine(store) as engine:
                engine.register("x", np.zeros(8, dtype=np.float32))
                engine.save(step=1, wait=True)
            with frugal.CheckpointEngine(store) as engine:
                engine.register("x", np.zeros(9, dtype=np.float32))
                with self.assertRaises(frugal.FrugalError) as caught:
                    engine.restore()
        self.assertEqual(caught.exception.code, frugal.ErrorCode.FAILED_PRECONDITION)


if __name__ == "__main__":
    unittest.main()
