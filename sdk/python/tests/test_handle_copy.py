"""Objects owning C memory refuse copy, deepcopy and pickling with a TypeError.

A copy would hold the same C pointer: both would free it (a double free,
a segfault), and an unpickled one would point into another process. The
checks run in a child process so that an object that does copy shows up
as a failed test, not as a crash of the whole run.
"""

import array
import copy
import io
import json
import pickle
import shutil
import subprocess
import sys
import tempfile
import unittest
from multiprocessing.reduction import ForkingPickler

from support import COSINE, context, frugal, torch


def every_owner(root):
    """(object, name) for each public class whose objects own C memory; ``root`` is a scratch directory."""
    ctx = context()
    x = array.array("f", [0.5, -2.0, 3.0, 1.25])
    quantizer = frugal.Quantizer(ctx, "quant_fp8", format="e4m3", recipe="current")
    router = frugal.Router(ctx, "topk_softmax", experts=4, k=1)
    packer = frugal.Packer(ctx, "packer_seq", max_len=16)
    store = frugal.Store(ctx, "fs", root=root)
    owners = [
        ctx,
        frugal.Options({"max_len": 16}),
        frugal.Schedule(ctx, "cosine", **COSINE),
        frugal.Scheduler(ctx, schedule="cosine", schedule_options=COSINE),
        packer,
        packer.pack([3, 5, 7]),
        packer.stream(),
        quantizer,
        quantizer.quantize(x),
        router,
        router.new_plan(2),
        store,
        frugal.CheckpointEngine(store),
        frugal.LossScaler(),
        frugal.Tensor.zeros((2, 3)),
        frugal.Comm(ctx, "local"),
    ]
    return [(owner, type(owner).__name__) for owner in owners]


def copy_attempts():
    """(name, function) for every way a program copies an object: copy, deepcopy, pickle, spawn, torch.save."""
    attempts = [("copy.copy", copy.copy), ("copy.deepcopy", copy.deepcopy)]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        attempts.append((f"pickle protocol {protocol}", lambda o, p=protocol: pickle.dumps(o, protocol=p)))
    # What DataLoader's spawn workers and multiprocessing use to send a dataset.
    attempts.append(("ForkingPickler", ForkingPickler.dumps))
    if torch is not None:
        attempts.append(("torch.save", lambda o: torch.save({"held": o}, io.BytesIO())))
    return attempts


def child(root):
    """Prints one JSON line [class, attempt, outcome, message] per attempt, then closes everything."""
    owners = every_owner(root)
    for owner, name in owners:
        for attempt, function in copy_attempts():
            try:
                function(owner)
                outcome, message = "copied", ""
            except TypeError as error:
                outcome, message = "refused", str(error)
            print(json.dumps([name, attempt, outcome, message]), flush=True)
    for owner, _ in reversed(owners):
        owner.close()
    context().close()


def public_owner_classes():
    """Names of the public frugal classes whose objects own C memory (those with close())."""
    return {name for name in frugal.__all__
            if isinstance(getattr(frugal, name), type) and callable(getattr(getattr(frugal, name), "close", None))}


class HandleCopyTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="frugal-copy-")
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)

    def test_every_owner_refuses_every_copy(self):
        run = subprocess.run([sys.executable, __file__, "--child", self.root], capture_output=True, text=True,
                             timeout=120)
        lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("[")]
        self.assertEqual(run.returncode, 0, f"the child exited with {run.returncode} after {len(lines)} attempts "
                                            f"(a negative code is a signal: the copy freed the C object twice); "
                                            f"last lines: {lines[-3:]}; stderr: {run.stderr[-2000:]}")
        seen = {name for name, _, _, _ in lines}
        self.assertEqual(seen, public_owner_classes())
        attempts = [attempt for attempt, _ in copy_attempts()]
        self.assertEqual(len(lines), len(seen) * len(attempts))
        for name, attempt, outcome, message in lines:
            with self.subTest(owner=name, attempt=attempt):
                self.assertEqual(outcome, "refused")
                self.assertIn(f"frugal.{name} cannot be copied or pickled", message)
                if hasattr(getattr(frugal, name), "export_state"):
                    self.assertIn("export_state()", message)
                    self.assertIn("import_state()", message)

    def test_the_message_says_what_to_do_instead(self):
        # pickle.dumps makes no second object, so before the fix this fails without crashing.
        with frugal.LossScaler() as scaler, self.assertRaises(TypeError) as caught:
            pickle.dumps(scaler)
        self.assertEqual(str(caught.exception),
                         "frugal.LossScaler cannot be copied or pickled: it owns a C object that a copy would "
                         "free twice; save its state with export_state() and load it into a new LossScaler with "
                         "import_state()")
        with frugal.Options({"max_len": 16}) as options, self.assertRaises(TypeError) as caught:
            pickle.dumps(options)
        self.assertIn("build another with Options(options.to_dict())", str(caught.exception))


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    child(sys.argv[2])
