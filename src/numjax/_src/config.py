"""Configuration: JAX's option names, env vars, global values and thread-local overrides.

Every option is a `State`. Its value is the thread-local override when one is active in the
current thread, else the global value. A new thread sees only global values.

Options that change what tracing produces are marked `traced=True`; their values form the
*trace context*, one tuple per thread that compile caches key on. It is rebuilt only when an
option changes (a global generation counter invalidates every thread's cached tuple), so a cache
lookup reads one attribute instead of every option.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

_tls = threading.local()
_unset: Any = object()

# Bumped whenever any traced option changes globally or in any thread; each thread caches its
# trace context together with the generation it was built at.
_generation = 0
_traced_states: list[State] = []
_states: dict[str, State] = {}


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "t", "yes", "y", "on"):
        return True
    if lowered in ("0", "false", "f", "no", "n", "off", ""):
        return False
    raise ValueError(f"invalid truth value {text!r}")


class State:
    """One configuration option: a global value plus per-thread overrides.

    Calling a State returns a context manager that overrides the value in this thread:

    >>> import numjax
    >>> with numjax.debug_nans(True):
    ...     numjax.config.jax_debug_nans
    True
    """

    __slots__ = ("name", "help", "_global", "_validator", "_traced", "_on_update", "_parse",
                 "_on_use", "context_check")

    def __init__(
        self,
        name: str,
        default: Any,
        help: str,
        *,
        parse: Callable[[str], Any] | None = None,
        validator: Callable[[Any], Any] | None = None,
        traced: bool = False,
        env_var: str | None = None,
        on_update: Callable[[Any], None] | None = None,
    ) -> None:
        self.name = name
        self.help = help
        self._validator = validator
        self._traced = traced
        self._on_update = on_update
        # Called with every value the option is given, globally or in a thread's context: lets
        # a subsystem keep a cheap "ever enabled" flag off the hot paths' config reads.
        self._on_use: Callable[[Any], None] | None = None
        # Called on a value given to the context manager only (JAX checks
        # `with jax.default_device(...)` but not `config.update`).
        self.context_check: Callable[[Any], None] | None = None
        self._parse = parse
        env_name = env_var if env_var is not None else name.upper()
        env_text = os.environ.get(env_name)
        if env_text is not None and parse is not None:
            default = parse(env_text)
        self._global = self._validate(default)
        if traced:
            _traced_states.append(self)
        _states[name] = self

    def _validate(self, value: Any) -> Any:
        if self._validator is not None:
            return self._validator(value)
        return value

    @property
    def value(self) -> Any:
        # A dict lookup on the thread-local's __dict__: ~0.2 us, where getattr with a default
        # costs ~1.2 us because a missing attribute raises internally.
        local = _tls.__dict__.get(self.name, _unset)
        return self._global if local is _unset else local

    def _set_global(self, value: Any) -> None:
        global _generation
        self._global = self._validate(value)
        if self._traced:
            _generation += 1
        if self._on_update is not None:
            self._on_update(self._global)
        if self._on_use is not None:
            self._on_use(self._global)

    @contextlib.contextmanager
    def __call__(self, new_value: Any = True) -> Iterator[None]:
        global _generation
        new_value = self._validate(new_value)
        if self.context_check is not None:
            self.context_check(new_value)
        if self._on_use is not None:
            self._on_use(new_value)
        previous = getattr(_tls, self.name, _unset)
        setattr(_tls, self.name, new_value)
        if self._traced:
            _generation += 1
        try:
            yield
        finally:
            if previous is _unset:
                delattr(_tls, self.name)
            else:
                setattr(_tls, self.name, previous)
            if self._traced:
                _generation += 1

    def __bool__(self) -> bool:
        return bool(self.value)

    def __repr__(self) -> str:
        return f"State({self.name}={self.value!r})"


def trace_context() -> tuple[Any, ...]:
    """The values of every option that changes tracing, as one hashable tuple (cached)."""
    cached = getattr(_tls, "_trace_context", None)
    if cached is not None and cached[0] == _generation:
        return cached[1]  # type: ignore[no-any-return]
    return _read_trace_context()[1]


def trace_context_id() -> int:
    """A number naming `trace_context()`'s value: equal numbers, equal contexts. Dispatch
    caches key on it — an int hashes at once, where the tuple's 17 entries are hashed on every
    call."""
    cached = getattr(_tls, "_trace_context", None)
    if cached is not None and cached[0] == _generation:
        return cached[2]  # type: ignore[no-any-return]
    return _read_trace_context()[2]


# Each trace context seen, numbered in order (`trace_context_id`).
_context_ids: dict[tuple[Any, ...], int] = {}
_next_context_id = itertools.count()


def _read_trace_context() -> tuple[int, tuple[Any, ...], int]:
    context = tuple(state.value for state in _traced_states)
    ident = _context_ids.get(context)
    if ident is None:  # setdefault: a thread adding the same context at once gets one number
        ident = _context_ids.setdefault(context, next(_next_context_id))
    _tls._trace_context = cached = (_generation, context, ident)
    return cached


def trace_context_names() -> tuple[str, ...]:
    """Option names in the order of `trace_context()`'s entries."""
    return tuple(state.name for state in _traced_states)


class Config:
    """The `numjax.config` object: `update(name, value)`, `read(name)`, attribute reads."""

    def update(self, name: str, value: Any) -> None:
        """Set an option's global value.

        >>> import numjax
        >>> numjax.config.update("jax_log_compiles", False)
        """
        state = _states.get(name)
        if state is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        state._set_global(value)

    def read(self, name: str) -> Any:
        state = _states.get(name)
        if state is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        return state.value

    @property
    def values(self) -> dict[str, Any]:
        return {name: state.value for name, state in _states.items()}

    @property
    def x64_enabled(self) -> bool:
        return bool(enable_x64.value)

    def __getattr__(self, name: str) -> Any:
        state = _states.get(name)
        if state is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        return state.value

    def parse_flags_with_absl(self) -> None:
        """Accepted for compatibility; numjax reads flags from the environment."""

    def config_with_absl(self) -> None:
        """Accepted for compatibility; numjax reads flags from the environment."""


config = Config()


def _one_of(name: str, choices: tuple[Any, ...]) -> Callable[[Any], Any]:
    def validate(value: Any) -> Any:
        if value not in choices:
            raise ValueError(
                f"Invalid value {value!r} for JAX flag {name}; expected one of {list(choices)}"
            )
        return value

    return validate


def _bool(name: str, default: bool, help: str, *, traced: bool = False,
          env_var: str | None = None) -> State:
    return State(name, default, help, parse=_parse_bool, validator=bool, traced=traced,
                 env_var=env_var)


def _optional_str(value: Any) -> Any:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"expected a string or None, got {value!r}")
    return value


def _identity(text: str) -> str:
    return text


# ---- options that change what tracing produces: they are part of the trace context ----
enable_x64 = _bool("jax_enable_x64", False, "Enable 64-bit types.", traced=True)
numpy_rank_promotion = State(
    "jax_numpy_rank_promotion", "allow", "Rank promotion in numpy ops: allow, warn or raise.",
    parse=_identity, validator=_one_of("jax_numpy_rank_promotion", ("allow", "warn", "raise")),
    traced=True,
)
numpy_dtype_promotion = State(
    "jax_numpy_dtype_promotion", "standard", "Dtype promotion: standard or strict.",
    parse=_identity, validator=_one_of("jax_numpy_dtype_promotion", ("standard", "strict")),
    traced=True,
)
# As in JAX 0.4.30: `config.update` takes any value (a product reading one that names no
# lax.Precision raises then), the context manager only None and these three.
default_matmul_precision = State(
    "jax_default_matmul_precision", None, "Default precision of matmul-like ops.",
    parse=_identity, traced=True,
)
_MATMUL_PRECISIONS = ["bfloat16", "tensorfloat32", "float32"]


def _check_matmul_precision(value: Any) -> None:
    if value is not None and value not in _MATMUL_PRECISIONS:
        raise ValueError(f"new enum value must be None or in {_MATMUL_PRECISIONS}, got {value} "
                         f"of type {type(value)}.")


default_matmul_precision.context_check = _check_matmul_precision
threefry_partitionable = _bool(
    "jax_threefry_partitionable", False, "Use the partitionable threefry bit layout.", traced=True
)
default_prng_impl = State(
    "jax_default_prng_impl", "threefry2x32", "Default PRNG implementation.", parse=_identity,
    validator=_one_of("jax_default_prng_impl", ("threefry2x32", "rbg", "unsafe_rbg")),
    traced=True,
)
random_seed_offset = State(
    "jax_random_seed_offset", 0, "Offset to all random seeds (e.g. argument to jax.random.key()).",
    parse=int, validator=int, traced=True,
)
legacy_prng_key = State(
    "jax_legacy_prng_key", "allow",
    "Specify the behavior when raw PRNG keys are passed to jax.random APIs.", parse=_identity,
    validator=_one_of("jax_legacy_prng_key", ("allow", "warn", "error")),
)
enable_custom_prng = _bool(
    "jax_enable_custom_prng", False,
    "Return typed key arrays from jax.random functions given raw keys (and warn about them).",
)
check_collectives = _bool(
    "numjax_check_collectives", False,
    "Before every collective of a pmap across processes, check that every process reached the "
    "same collective with the same shape and dtype (one small extra MPI call each). Without "
    "it the check runs on each compiled program's first call only.",
    env_var="NUMJAX_CHECK_COLLECTIVES")
debug_nans = _bool("jax_debug_nans", False, "Raise FloatingPointError on NaN outputs.", traced=True)
debug_infs = _bool("jax_debug_infs", False, "Raise FloatingPointError on Inf outputs.", traced=True)
xla_runtime_errors = _bool(
    "jax_experimental_unsafe_xla_runtime_errors", False,
    "checkify.check in jitted code without checkify raises XlaRuntimeError when it fails "
    "(instead of the functionalization error at compile time).", traced=True)
default_device = State("jax_default_device", None, "Default device for uncommitted arrays.",
                       traced=True)


def _check_default_device(value: Any) -> None:
    # A device, not a platform name; any object whose type is named like a device passes, as
    # in JAX (devices of other runtimes).
    if value is not None and "Device" not in str(type(value)):
        raise ValueError("jax.default_device must be passed a Device object (e.g. "
                         f"`jax.devices('cpu')[0]`), got: {value!r}")


default_device.context_check = _check_default_device
dynamic_shapes = _bool("jax_dynamic_shapes", False, "Dynamic shapes (not supported).", traced=True)
host_callback_outfeed = _bool(
    "jax_host_callback_outfeed", False, "Run host_callback taps on a receiver thread.", traced=True
)

# ---- options that do not change the traced program ----
disable_jit = _bool("jax_disable_jit", False, "Run jitted functions op by op.")
eager_pmap = _bool(
    "jax_eager_pmap", True,
    "Under disable_jit, run the pmapped function's Python on every call (no cached trace), "
    "as JAX's op-by-op pmap does.")
pmap_shmap_merge = _bool(
    "jax_pmap_shmap_merge", False,
    "Accepted for compatibility; numjax's pmap always runs its own per-device programs.")
log_compiles = _bool("jax_log_compiles", False, "Log each compilation with its function and avals.")
explain_cache_misses = _bool(
    "jax_explain_cache_misses", False, "Log why each compile-cache miss happened."
)
check_tracer_leaks = _bool("jax_check_tracer_leaks", False, "Check for leaked tracers.")
log_checkpoint_residuals = _bool(
    "jax_log_checkpoint_residuals", False,
    "Log what checkpoint saves for the backward pass as warnings (else as debug records).")
enable_checks = _bool("jax_enable_checks", False, "Type-check jaxprs as they are built.")
softmax_custom_jvp = _bool(
    "jax_softmax_custom_jvp", False,
    "Differentiate nn.softmax by its own rule (y * (dx - sum(y * dx))), which keeps only the "
    "output as residual, rather than through its operations.", traced=True)
custom_vjp_disable_shape_check = _bool(
    "jax_custom_vjp_disable_shape_check", False,
    "Let a custom_vjp bwd rule return cotangents whose shapes differ from the primal inputs' "
    "(they are passed on as they are).")
debug_key_reuse = _bool(
    "jax_debug_key_reuse", False,
    "Accepted for compatibility (flax's tests toggle it); numjax does not check PRNG key reuse.")
platforms = State("jax_platforms", None, "Comma-separated platforms to initialize.",
                  parse=_identity, validator=_optional_str)
platform_name = State("jax_platform_name", None, "Deprecated alias of jax_platforms.",
                      parse=_identity, validator=_optional_str)
host_callback_inline = _bool("jax_host_callback_inline", False, "Inline host_callback calls.")
traceback_filtering = State(
    "jax_traceback_filtering", "auto",
    "How tracebacks through numjax's API leave out its internal frames: off, tracebackhide, "
    "remove_frames, quiet_remove_frames or auto.",
    parse=_identity,
    validator=_one_of("jax_traceback_filtering",
                      ("off", "tracebackhide", "remove_frames", "quiet_remove_frames", "auto")),
)

# ---- the persistent compilation cache (`compiler/persistent_cache.py`) ----
# As in JAX 0.4.30, the numeric options take any value they are given (no validation).
enable_compilation_cache = _bool(
    "jax_enable_compilation_cache", True,
    "If False, the persistent compilation cache is off whatever its directory.")
compilation_cache_dir = State(
    "jax_compilation_cache_dir", None,
    "Directory of the persistent compilation cache (set_cache_dir() sets it too); None: off. "
    "Read when the cache is first used; reset_cache() makes a change take effect.",
    parse=_identity, validator=_optional_str)
persistent_cache_min_compile_time_secs = State(
    "jax_persistent_cache_min_compile_time_secs", 1.0,
    "Programs whose lowering and compile took less than this many seconds are not written "
    "to the persistent cache.", parse=float)
persistent_cache_min_entry_size_bytes = State(
    "jax_persistent_cache_min_entry_size_bytes", 0,
    "Entries smaller than this many bytes are not written to the persistent cache (0: no "
    "minimum; -1: none, and no override).", parse=int)
compilation_cache_max_size = State(
    "jax_compilation_cache_max_size", -1,
    "Bytes the persistent cache may hold; the least recently used entries are deleted beyond "
    "it. 0 disables the cache, -1 sets no limit.", parse=int)
raise_persistent_cache_errors = _bool(
    "jax_raise_persistent_cache_errors", False,
    "Raise errors reading or writing the persistent cache instead of warning.")
compilation_cache_include_metadata_in_key = _bool(
    "jax_compilation_cache_include_metadata_in_key", False,
    "Include source locations in the persistent cache's keys.")

_TRANSFER_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")


def _transfer_level(name: str) -> Callable[[Any], Any]:
    check = _one_of(name, (None, *_TRANSFER_LEVELS))
    return check


transfer_guard = State("jax_transfer_guard", None, "Transfer guard for all directions.",
                       parse=_identity, validator=_transfer_level("jax_transfer_guard"))
transfer_guard_host_to_device = State(
    "jax_transfer_guard_host_to_device", None, "Transfer guard for host-to-device transfers.",
    parse=_identity, validator=_transfer_level("jax_transfer_guard_host_to_device"),
)
transfer_guard_device_to_device = State(
    "jax_transfer_guard_device_to_device", None, "Transfer guard for device-to-device transfers.",
    parse=_identity, validator=_transfer_level("jax_transfer_guard_device_to_device"),
)
transfer_guard_device_to_host = State(
    "jax_transfer_guard_device_to_host", None, "Transfer guard for device-to-host transfers.",
    parse=_identity, validator=_transfer_level("jax_transfer_guard_device_to_host"),
)
transfer_guard_cpu_exempt = _bool(
    "jax_transfer_guard_cpu_exempt", True,
    "Exempt device-to-host fetches from CPU devices from the transfer guard (numjax option).",
    env_var="NUMJAX_TRANSFER_GUARD_CPU_EXEMPT",
)
