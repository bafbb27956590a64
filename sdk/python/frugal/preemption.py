"""Process-wide preemption notices (frugal/checkpoint.h).

``install_sigterm()`` makes SIGTERM only record a notice; poll
``pending()`` at a step boundary, take an emergency checkpoint
(CheckpointEngine.emergency_save), then exit. A job of several ranks polls
CheckpointEngine.preemption_agree() instead (ABI 2.3), so that a notice on
any rank makes every rank take it at the same step. All functions are
thread-safe.
"""

from . import _lib
from .errors import check


def install_sigterm():
    """Installs the recording SIGTERM handler (idempotent), replacing the default termination."""
    check(_lib.lib().frugal_preemption_install_sigterm())


def uninstall_sigterm():
    """Restores the SIGTERM disposition in place before install_sigterm()."""
    _lib.lib().frugal_preemption_uninstall_sigterm()


def pending():
    """True once a preemption notice arrived (SIGTERM or notify())."""
    return bool(_lib.lib().frugal_preemption_pending())


def notify():
    """Records a notice learnt another way (e.g. a cloud metadata poll)."""
    _lib.lib().frugal_preemption_notify()


def clear():
    """Clears a recorded notice."""
    _lib.lib().frugal_preemption_clear()
