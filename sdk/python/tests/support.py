"""What the tests share: the package on sys.path, one context with the built-in plugins, the tour's stream."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import frugal  # noqa: E402

try:
    import numpy
except ImportError:
    numpy = None

try:
    import torch
except ImportError:
    torch = None

#: Why torch tests are skipped, when they are.
NO_TORCH = "torch is not importable (install python3-torch)"
#: Why numpy tests are skipped, when they are.
NO_NUMPY = "numpy is not importable (install python3-numpy)"

#: The cosine schedule's options both the schedule and the scheduler tests use.
COSINE = {"lr": 3e-4, "min_lr": 3e-5, "warmup_steps": 100, "total_steps": 1000}

_context = None


def context():
    """One context for the whole run, with the built-in plugins discovered."""
    global _context
    if _context is None:
        _context = frugal.Context(discover=True)
    return _context


class Lcg:
    """The 64-bit linear congruential stream of samples/README.md."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return self.state >> 33

    def uniform(self):
        return self.next() / 2147483648.0 * 2.0 - 1.0

    def floats(self, count, scale=1.0):
        """``count`` float32 values uniform * scale, as a numpy array."""
        return numpy.array([self.uniform() for _ in range(count)], dtype=numpy.float32) * numpy.float32(scale)
