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
from typing import Optional

from . import _lib
from . import _types as t
from ._handle import Handle
from .errors import ErrorCode, FrugalError, check, encode
from .options import OptionType

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
    COMM = 7


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

# frugal_option_info.flags (FRUGAL_OPTION_DECL_* in frugal/plugin.h); OptionDecl spells them out.
_DECL_REQUIRED = 1 << 0
_DECL_HAS_MIN = 1 << 1
_DECL_HAS_MAX = 1 << 2
_DECL_DIRECTORY = 1 << 3


@dataclasses.dataclass(frozen=True)
class OptionDecl:
    """One option a strategy declares (copied out of the context).

    ``type`` is an :class:`OptionType` (a plain int for a type this binding
    does not name). ``default`` is the value create uses when the option is
    absent, spelt as :meth:`Options.set_parsed` reads it ("0.001"), None when
    there is none (always for a required option). ``min`` and ``max`` are
    inclusive bounds of an INT or DOUBLE option, None when unbounded.
    ``choices`` are the values a STRING option allows, None for any.
    ``directory``: a STRING naming a directory the strategy may create and
    write. Constraints between options (min_lr <= lr) are not declared.
    """

    name: str
    type: OptionType
    required: bool
    default: Optional[str]
    min: Optional[float]
    max: Optional[float]
    choices: Optional[tuple]
    directory: bool
    doc: str


@dataclasses.dataclass(frozen=True)
class StrategyInfo:
    """One strategy of a loaded plugin (copied out of the context).

    ``options``: the :class:`OptionDecl` of every option it declares, in
    declaration order; empty when it declares none.
    """

    kind: int
    flags: int
    name: str
    summary: str
    plugin_name: str
    shadowed: bool
    options: tuple = ()

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
                strategies.append(_strategy_info(strategy, self._declared_options(index, strategy_index, strategy)))
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
        return _strategy_info(info, self._options_of_found(info))

    def strategy_options(self, kind, name):
        """The options strategy ``name`` ("name" or "plugin/name") of ``kind`` declares, as a list of
        :class:`OptionDecl` in declaration order; empty when it declares none. NOT_FOUND as find_strategy."""
        return list(self.find_strategy(kind, name).options)

    def _declared_options(self, plugin_index, strategy_index, strategy):
        """The OptionDecls of a strategy given by index; its strings are copied at once (they die with the context)."""
        lib = _lib.lib()
        result = []
        for option_index in range(strategy.option_count):
            info = t.sized(t.OptionInfo)
            check(lib.frugal_context_strategy_option(self.address, plugin_index, strategy_index, option_index,
                                                     ctypes.byref(info)))
            result.append(_option_decl(info))
        return tuple(result)

    def _options_of_found(self, found):
        """The OptionDecls of a strategy find_strategy described: the core reports no indices for it, so
        its plugin is found by name (unique in a context) and the strategy by kind and name within it."""
        if not found.option_count:
            return ()
        lib = _lib.lib()
        for plugin_index in range(lib.frugal_context_plugin_count(self.address)):
            plugin = t.sized(t.PluginInfo)
            check(lib.frugal_context_plugin_info(self.address, plugin_index, ctypes.byref(plugin)))
            if plugin.name != found.plugin_name:
                continue
            for strategy_index in range(plugin.strategy_count):
                strategy = t.sized(t.StrategyInfo)
                check(lib.frugal_context_strategy_info(self.address, plugin_index, strategy_index,
                                                       ctypes.byref(strategy)))
                if strategy.kind == found.kind and strategy.name == found.name:
                    return self._declared_options(plugin_index, strategy_index, strategy)
        # Plugins never leave a context, so what find_strategy found is listed.
        raise FrugalError(ErrorCode.INTERNAL, f"strategy '{_text(found.name)}' of plugin '{_text(found.plugin_name)}' "
                                              "was found but is not among the loaded plugins' strategies")


def _strategy_info(info, options):
    return StrategyInfo(
        kind=info.kind,
        flags=info.flags,
        name=_text(info.name),
        summary=_text(info.summary),
        plugin_name=_text(info.plugin_name),
        shadowed=bool(info.shadowed),
        options=options,
    )


def _option_decl(info):
    flags, kind, default, choices = info.flags, info.type, info.default_value, info.choices
    return OptionDecl(
        name=_text(info.name),
        type=OptionType(kind) if kind in OptionType._value2member_map_ else kind,
        required=bool(flags & _DECL_REQUIRED),
        default=None if default is None else _text(default),
        min=info.min if flags & _DECL_HAS_MIN else None,
        max=info.max if flags & _DECL_HAS_MAX else None,
        choices=None if choices is None else tuple(_text(choices).split("|")),
        directory=bool(flags & _DECL_DIRECTORY),
        doc=_text(info.doc),
    )
