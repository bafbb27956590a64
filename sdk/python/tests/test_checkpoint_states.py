"""Host state in checkpoints: a scheduler, a loss scaler and Python state saved and restored with the tensors.

Also after a SIGKILL: a child saves, without end, a step tensor, a loss
scaler and a Python state; the parent kills it mid-way, restores the newest
valid checkpoint into fresh objects and checks every state is that of the
step the restored tensor says.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from support import COSINE, NO_NUMPY, context, frugal, numpy as np
from test_scheduler_and_checkpoint import record

SCALER = {"init_scale": 1024.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 3,
          "min_scale": 1.0, "max_scale": 65536.0}


def found_inf(step):
    """The overflow pattern both the child and the replay use."""
    return step % 5 == 3


def scaler_after(steps):
    """A fresh scaler's state after ``steps`` updates of the pattern."""
    with frugal.LossScaler(SCALER) as scaler:
        for step in range(1, steps + 1):
            scaler.update(found_inf(step))
        return scaler.status()


def make_scheduler():
    return frugal.Scheduler(context(), schedule="cosine", schedule_options=COSINE,
                            policies=[("checkpoint_cadence", {"heartbeat_interval_s": 60.0})])


class Cursor:
    """Python host state: where the data loader is, as JSON bytes."""

    def __init__(self):
        self.position = {"epoch": 0, "offset": 0}

    def export_state(self):
        return json.dumps(self.position, sort_keys=True).encode()

    def import_state(self, data):
        self.position = json.loads(data)


@unittest.skipIf(np is None, NO_NUMPY)
class CheckpointStateTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="frugal-python-state-")
        self.addCleanup(shutil.rmtree, self.root, True)

    def store(self):
        return frugal.Store(context(), "fs", root=self.root, fsync=False)

    def test_scheduler_scaler_and_python_state_come_back_exactly(self):
        weights = np.arange(16, dtype=np.float32)
        cursor = Cursor()
        with self.store() as store, frugal.CheckpointEngine(store) as engine, make_scheduler() as scheduler, \
                frugal.LossScaler(SCALER) as scaler, make_scheduler() as reference:
            engine.register("weights", weights)
            engine.register_scheduler("scheduler", scheduler)
            engine.register_loss_scaler("scaler", scaler)
            engine.register_state("cursor", cursor.export_state, cursor.import_state)
            for i in range(1, 8):
                scheduler.step(record(i))
                scaler.update(found_inf(i))
            cursor.position = {"epoch": 1, "offset": 4096}
            saved_scaler = scaler.status()
            engine.save(step=7, wait=True)
            # The reference is the scheduler as the save left it (the save counted as a checkpoint).
            reference.import_state(scheduler.export_state())
            for i in range(8, 15):  # moves on past the checkpoint
                scheduler.step(record(i))
                scaler.update(True)
            cursor.position = {"epoch": 9, "offset": 1}
            weights[:] = -1
            info, _ = engine.restore()
            self.assertEqual(info.not_restored, ())
            self.assertEqual((info.tensor_count, info.state_count), (1, 3))  # scheduler, scaler, cursor
            self.assertEqual(engine.list()[0].state_count, 3)
            self.assertEqual(scaler.status(), saved_scaler)
            self.assertEqual(cursor.position, {"epoch": 1, "offset": 4096})
            np.testing.assert_array_equal(weights, np.arange(16, dtype=np.float32))
            self.assertEqual(scheduler.ledger(), reference.ledger())
            for i in range(8, 30):  # the restored scheduler decides exactly as the reference
                self.assertEqual(scheduler.step(record(i)), reference.step(record(i)))
            self.assertEqual(scheduler.ledger(), reference.ledger())

    def test_router_state_round_trips_through_its_bytes(self):
        with self.store() as store, frugal.CheckpointEngine(store) as engine, \
                frugal.Router(context(), "topk_softmax", experts=8, k=2) as router:
            engine.register_router("router", router)
            before = router.export_state()
            engine.save(step=1, wait=True)
            info, _ = engine.restore()
            self.assertEqual(info.not_restored, ())
            self.assertEqual(router.export_state(), before)
            self.assertIn('"router"', engine.inspect_json(info.name))

    def test_a_state_the_checkpoint_lacks_is_reported_not_restored(self):
        with self.store() as store:
            with frugal.CheckpointEngine(store) as engine, frugal.LossScaler(SCALER) as scaler:
                engine.register_loss_scaler("scaler", scaler)
                engine.save(step=1, wait=True)
            with frugal.CheckpointEngine(store) as engine, frugal.LossScaler(SCALER) as scaler, \
                    frugal.LossScaler(SCALER) as late:
                engine.register_loss_scaler("scaler", scaler)
                engine.register_loss_scaler("scaler/late", late)
                late.update(True)
                kept = late.status()
                info, _ = engine.restore()
                self.assertEqual(info.not_restored, ("scaler/late",))
                self.assertEqual(late.status(), kept)

    def test_callback_errors_fail_the_save_naming_the_state(self):
        def broken():
            raise ValueError("no cursor yet")

        def wrong_code(_data):
            raise frugal.FrugalError(frugal.ErrorCode.DATA_CORRUPTED, "cursor blob is garbage")

        with self.store() as store, frugal.CheckpointEngine(store) as engine:
            engine.register_state("cursor", broken, lambda _data: None)
            with self.assertRaises(frugal.FrugalError) as caught:
                engine.save(step=1, wait=True)
            self.assertEqual(caught.exception.code, frugal.ErrorCode.INTERNAL)
            self.assertIn("'cursor'", caught.exception.message)
            self.assertIn("ValueError: no cursor yet", caught.exception.message)
            self.assertEqual(engine.list(), [])  # nothing of the failed save persisted
            engine.unregister("cursor")
            engine.register_state("cursor", lambda: b"x" * 3, wrong_code)
            engine.save(step=2, wait=True)
            with self.assertRaises(frugal.FrugalError) as caught:
                engine.restore()
            self.assertEqual(caught.exception.code, frugal.ErrorCode.DATA_CORRUPTED)
            self.assertIn("cursor blob is garbage", caught.exception.message)

    def test_registrations_check_their_arguments_and_keep_the_object(self):
        with self.store() as store, frugal.CheckpointEngine(store) as engine:
            with self.assertRaises(TypeError):
                engine.register_loss_scaler("scaler", object())
            with self.assertRaises(TypeError):
                engine.register_state("cursor", b"not callable", print)
            scaler = frugal.LossScaler(SCALER)
            engine.register_loss_scaler("scaler", scaler)
            with self.assertRaises(frugal.FrugalError) as caught:
                engine.register_state("scaler", lambda: b"", lambda _data: None)
            self.assertEqual(caught.exception.code, frugal.ErrorCode.ALREADY_EXISTS)
            self.assertIs(engine._registered["scaler"][0], scaler)
            engine.unregister("scaler")
            self.assertNotIn("scaler", engine._registered)
            with self.assertRaises(frugal.FrugalError) as caught:
                engine.unregister("scaler")
            self.assertEqual(caught.exception.code, frugal.ErrorCode.NOT_FOUND)
            scaler.close()
        self.assertEqual(frugal.CKPT_STATE_MAX_SIZE, 256 << 20)

    def test_state_matches_the_restored_step_after_a_kill(self):
        child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", self.root],
                                 stdout=subprocess.PIPE, text=True)
        try:
            saved = 0
            for line in child.stdout:  # the child prints each committed step
                saved = int(line)
                if saved >= 12:
                    break
            time.sleep(0.05)  # mid-way through the saves that follow
        finally:
            child.send_signal(signal.SIGKILL)
            child.communicate(timeout=60)
        self.assertEqual(child.returncode, -signal.SIGKILL)
        self.assertGreaterEqual(saved, 12)
        step = np.zeros(1, dtype=np.int64)
        cursor = Cursor()
        with self.store() as store, frugal.CheckpointEngine(store) as engine, \
                frugal.LossScaler(SCALER) as scaler:
            engine.register("step", step)
            engine.register_loss_scaler("scaler", scaler)
            engine.register_state("cursor", cursor.export_state, cursor.import_state)
            info, metadata = engine.restore()
            restored_scaler = scaler.status()
        self.assertEqual(info.not_restored, ())
        self.assertGreaterEqual(info.step, saved)
        self.assertEqual(int(step[0]), info.step)
        self.assertEqual(metadata, str(info.step).encode())
        self.assertEqual(cursor.position, {"epoch": info.step // 10, "offset": 64 * info.step})
        self.assertEqual(restored_scaler, scaler_after(info.step))


def child_main(root):
    """Saves step after step until killed; prints each step once its checkpoint committed."""
    step = np.zeros(1, dtype=np.int64)
    cursor = Cursor()
    with frugal.Store(context(), "fs", root=root, fsync=False) as store, \
            frugal.CheckpointEngine(store, keep_heartbeats=3) as engine, frugal.LossScaler(SCALER) as scaler:
        engine.register("step", step)
        engine.register_loss_scaler("scaler", scaler)
        engine.register_state("cursor", cursor.export_state, cursor.import_state)
        for current in range(1, 1_000_000):
            scaler.update(found_inf(current))
            cursor.position = {"epoch": current // 10, "offset": 64 * current}
            step[0] = current
            engine.save(step=current, kind=frugal.CheckpointKind.HEARTBEAT, metadata=str(current).encode(),
                        wait=True)
            print(current, flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child_main(sys.argv[2])
    else:
        unittest.main()
