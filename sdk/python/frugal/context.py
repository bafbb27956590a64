"""Contexts: loaded plugins, the strategy registry and the log sink (frugal/context.h).

A :class:`Context` owns loaded plugins. Strategy objects made from it
(schedules, packers, quantizers, routers, stores, schedulers) keep their
plugins loaded on their own and may outlive it.

Thread-safety: every method may be called from any thread (libfrugal
serialises calls on one context) except close(), which must not race any
other call on the context.
"""

import ctypes
import dataclasses
import enum
import threading

from . import _lib
from . import _types as t
from ._handle import Handle
from .errors import check, encode

#: Discovery flag: do not read FRUGAL_PLUGIN_PATH.
DISCOVER_NO_ENV = 1 << 0
#: Discovery flag: skip the built-in plugin directory.
DISCOVER_NO_BUILTIN = 1 << 1


class StrategyKind(enum.IntEnum):
    """frugal_strategy_kind_values: the family a strategy belongs to."""

    ROUTER = 1
    QUANTIZER = 2
    PACKER = 3
    POLICY = 4
    SCHEDULE = 5
    STORE = 6


class LogLevel(enum.IntEnum):
    """frugal_log_level_values; OFF only as a threshold."""

    TRACE = 0
    DEBUG = 1
    INFO = 2
    WARN = 3
    ERROR = 4
    OFF = 1000


#: Strategy flag: calls on one instance may run concurrently.
STRATEGY_THREAD_SAFE = 1 << 0
#: Strategy flag: equal inputs, options and seed give bit-identical outputs.
STRATEGY_DETERMINISTIC = 1 << 1


@dataclasses.dataclass(frozen=True)
class StrategyInfo:
    """One strategy of a loaded plugin (copied out of the context)."""

    kind: int
    flags: int
    name: str
    summary: str
    plugin_name: str
    shadowed: bool

    @property
    def kind_name(self):
        """The kind's stable lower-case name ("schedule", ...)."""
        return kind_name(self.kind)


@dataclasses.dataclass(frozen=True)
class PluginInfo:
    """One loaded plugin and its strategies (copied out of the context)."""

    name: str
    version: str
    vendor: str
    license: str
    description: str
    path: str
    abi_major: int
    abi_minor: int
    strategies: tuple


@dataclasses.dataclass(frozen=True)
class LoadFailure:
    """A file or directory that failed to load, and why."""

    path: str
    message: str
    code: int


def _text(raw):
    return raw.decode("utf-8", "replace") if raw is not None else ""


def kind_name(kind):
    """Stable lower-case name of a strategy kind, or "unknown"."""
    return _lib.lib().frugal_strategy_kind_name(int(kind)).decode("ascii")


# Log callbacks must outlive every plugin the context loaded (see
# frugal_context_set_log_callback), which may be after the context object
# is gone; the ctypes trampolines are therefore kept for the process.
_log_trampolines = []
_log_trampolines_lock = threading.Lock()


class Context(Handle):
    """An owned libfrugal context.

    ``Context(discover=True)`` also discovers plugins (FRUGAL_PLUGIN_PATH,
    then the built-in directory next to libfrugal).
    """

    _what = "context"

    def __init__(self, discover=False):
        out = ctypes.c_void_p()
        check(_lib.lib().frugal_context_create(ctypes.byref(out)))
        super().__init__(out.value)
        if discover:
            self.discover_plugins()

    def _release(self, address):
        _lib.lib().frugal_context_destroy(address)

    def discover_plugins(self, flags=0):
        """Loads plugins from the search path; returns how many were newly loaded.

        Files that fail are recorded (see :meth:`load_failures`), never raised.
        """
        loaded = ctypes.c_size_t()
        check(_lib.lib().frugal_context_discover_plugins(self.address, flags, ctypes.byref(loaded)))
        return loaded.value

    def add_plugin_dir(self, path):
        """Adds a directory that discovery scans after the built-in one."""
        check(_lib.lib().frugal_context_add_plugin_dir(self.address, encode(str(path), "path")))

    def load_plugin(self, path):
        """Loads one plugin file; raises FrugalError naming the file and the reason."""
        check(_lib.lib().frugal_context_load_plugin(self.address, encode(str(path), "path")))

    def set_log_callback(self, callback, min_level=LogLevel.WARN):
        """Routes log messages to ``callback(level, source, message)``, or silences them (None).

        The callback may run on any thread that calls into frugal (a
        checkpoint's background thread, for one) and must not call back into
        this context. Exceptions it raises are printed and dropped.
        """
        if callback is None:
            check(_lib.lib().frugal_context_set_log_callback(self.address, t.LogFn(), None, int(min_level)))
            return

        def trampoline(_user_data, level, source, message):
            callback(LogLevel(level) if level in LogLevel._value2member_map_ else level, _text(source), _text(message))

        function = t.LogFn(trampoline)
        with _log_trampolines_lock:
            _log_trampolines.append(function)
        check(_lib.lib().frugal_context_set_log_callback(self.address, function, None, int(min_level)))

    def plugins(self):
        """Every loaded plugin, in load order, with its strategies."""
        lib = _lib.lib()
        result = []
        for index in range(lib.frugal_context_plugin_count(self.address)):
            info = t.sized(t.PluginInfo)
            check(lib.frugal_context_plugin_info(self.address, index, ctypes.byref(info)))
            strategies = []
            for strategy_index in range(info.strategy_count):
                strategy = t.sized(t.StrategyInfo)
                check(lib.frugal_context_strategy_info(self.address, index, strategy_index, ctypes.byref(strategy)))
                strategies.append(_strategy_info(strategy))
            result.append(
                PluginInfo(
                    name=_text(info.name),
                    version=_text(info.version),
                    vendor=_text(info.vendor),
                    license=_text(info.license),
                    description=_text(info.description),
                    path=_text(info.path),
                    abi_major=info.abi_major,
                    abi_minor=info.abi_minor,
                    strategies=tuple(strategies),
                )
            )
        return result

    def plugin_names(self):
        """Names of the loaded plugins, in load order."""
        return [plugin.name for plugin in self.plugins()]

    def load_failures(self):
        """Every recorded load failure, oldest first."""
        lib = _lib.lib()
        result = []
        for index in range(lib.frugal_context_load_failure_count(self.address)):
            info = t.sized(t.LoadFailureInfo)
            check(lib.frugal_context_load_failure(self.address, index, ctypes.byref(info)))
            result.append(LoadFailure(_text(info.path), _text(info.message), info.code))
        return result

    def find_strategy(self, kind, name):
        """Looks a strategy up by kind and "name" or "plugin/name"; FrugalError NOT_FOUND lists what exists."""
        info = t.sized(t.StrategyInfo)
        check(_lib.lib().frugal_context_find_strategy(self.address, int(kind), encode(name, "name"), ctypes.byref(info)))
        return _strategy_info(info)


def _strategy_info(info):
    return StrategyInfo(
        kind=info.kind,
        flags=info.flags,
        name=_text(info.name),
        summary=_text(info.summary),
        plugin_name=_text(info.plugin_name),
        shadowed=bool(info.shadowed),
    )
