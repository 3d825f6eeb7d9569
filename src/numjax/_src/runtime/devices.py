"""Devices and backends. The CPU platform has N devices, N read when the backend initializes.

The backend registry is filled lazily, on the first call that needs a device, as JAX's
`xla_bridge.backends()` is: so `XLA_FLAGS=--xla_force_host_platform_device_count=N` (or
`NUMJAX_NUM_CPU_DEVICES=N`) set after `import numjax` but before the first `devices()` takes
effect, and set after that is silently ignored (JAX 0.4.30 does the same). `jax_platforms`
(`JAX_PLATFORMS`) names the platforms to initialize; only `cpu` exists, and asking for another
raises JAX's errors. Ecosystem code reads the private names `_backends`, `backends()` and
`get_backend()`; `numjax._src.xla_bridge` re-exports them under JAX's module name.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from numjax._src import config
from numjax._src.runtime import distributed


class Device:
    """One device of a backend.

    >>> import numjax
    >>> numjax.devices()[0]
    CpuDevice(id=0)
    >>> str(numjax.devices()[0])
    'TFRT_CPU_0'
    """

    __slots__ = ("id", "platform", "client", "process_index", "device_kind", "__weakref__")

    def __init__(self, id: int, client: Backend, process_index: int = 0) -> None:
        self.id = id
        self.platform = client.platform
        self.client = client
        self.process_index = process_index
        self.device_kind = "cpu"

    @property
    def host_id(self) -> int:
        return self.process_index

    @property
    def task_id(self) -> int:
        return self.process_index

    @property
    def local_hardware_id(self) -> int:
        return self.id

    def __hash__(self) -> int:
        # By id, as JAX's devices: sets of devices print in id order.
        return self.id

    def __reduce__(self) -> Any:
        # A device is its backend's object: a copy would be a different, unequal device (meshes
        # and shardings compare devices by identity). JAX's devices cannot be pickled either.
        raise TypeError("cannot pickle 'Device' object")

    def __repr__(self) -> str:
        return f"CpuDevice(id={self.id})"

    def __str__(self) -> str:
        return f"TFRT_CPU_{self.id}"


class Backend:
    """A platform's client (JAX's `xla_client.Client`): its devices and its name."""

    def __init__(self, platform: str, num_devices: int, process_index: int = 0,
                 process_count: int = 1) -> None:
        """`num_devices` per process; with several processes (`numjax.distributed`), device
        ids are global: `process * num_devices + i`."""
        self.platform = platform
        self.platform_version = "<unknown>"
        self.runtime_type = "numjax"
        self._process_index = process_index
        self._process_count = process_count
        self._devices = [Device(p * num_devices + i, self, p)
                         for p in range(process_count) for i in range(num_devices)]
        self._local = self._devices[process_index * num_devices:
                                    (process_index + 1) * num_devices]

    def devices(self) -> list[Device]:
        return list(self._devices)

    def local_devices(self) -> list[Device]:
        return list(self._local)

    def device_count(self) -> int:
        return len(self._devices)

    def local_device_count(self) -> int:
        return len(self._local)

    def process_index(self) -> int:
        return self._process_index

    def process_count(self) -> int:
        return self._process_count

    def __repr__(self) -> str:
        return f"<numjax {self.platform} backend with {len(self._devices)} devices>"


# Filled on first use and never rebound (ecosystem code holds on to the dict).
_backends: dict[str, Backend] = {}
_default_backend: Backend | None = None
# Why known platforms failed, when the backends were chosen automatically (no jax_platforms).
_backend_errors: dict[str, str] = {}
_lock = threading.Lock()

# The platforms JAX 0.4.30 knows, and why the ones numjax lacks fail to initialize (recorded
# from JAX 0.4.30 on a CPU-only host without plugins).
_KNOWN_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
_INIT_ERRORS = {
    "cuda": "",
    "rocm": "",
    "tpu": "INTERNAL: Failed to open libtpu.so: libtpu.so: cannot open shared object file: "
           "No such file or directory",
}
_ALIASES = {"gpu": ("cuda", "rocm")}


def _num_cpu_devices() -> int:
    env = os.environ.get("NUMJAX_NUM_CPU_DEVICES")
    if env:
        return int(env)
    flags = os.environ.get("XLA_FLAGS", "")
    match = re.search(r"--xla_force_host_platform_device_count=(\d+)", flags)
    return int(match.group(1)) if match else 1


def _init_backend(platform: str) -> Backend:
    if platform == "cpu":
        state = distributed.state
        if state.process_count > 1:
            return Backend("cpu", _num_cpu_devices(), state.process_index, state.process_count)
        return Backend("cpu", _num_cpu_devices())
    if platform in _INIT_ERRORS:
        raise RuntimeError(_INIT_ERRORS[platform])
    raise RuntimeError(f"Backend '{platform}' is not in the list of known backends: "
                       f"{list(_KNOWN_PLATFORMS)}.")


def backends() -> dict[str, Backend]:
    """The initialized backends by platform name, initializing them on first use."""
    global _default_backend
    if _backends:
        return _backends
    with _lock:
        if _backends:
            return _backends
        requested = config.platforms.value
        names: list[str] = []
        for name in (requested.split(",") if requested else ["cpu"]):
            names.extend(_ALIASES.get(name, (name,)))
        if not requested:
            _backend_errors.update((name, _INIT_ERRORS[name]) for name in _INIT_ERRORS)
        for name in names:
            try:
                backend = _init_backend(name)
            except RuntimeError as err:
                # As in JAX, backends initialized before the failure stay registered, so a
                # later call returns them without raising.
                raise RuntimeError(
                    f"Unable to initialize backend '{name}': {err} (set JAX_PLATFORMS='' to "
                    "automatically choose an available backend)") from None
            _backends[name] = backend
            if _default_backend is None:
                _default_backend = backend
        return _backends


_cpu_backends: dict[int, Backend] = {}


@contextlib.contextmanager
def cpu_device_count(n: int) -> Iterator[Backend]:
    """The CPU backend with `n` devices stands in for the initialized one while the block
    runs (a backend per count, kept: its devices' threads are reused). For tests of several
    device counts in one process; outside tests, set the count before the first `devices()`
    (`XLA_FLAGS=--xla_force_host_platform_device_count=N` or `NUMJAX_NUM_CPU_DEVICES=N`)."""
    global _default_backend
    backends()
    previous, previous_default = _backends.get("cpu"), _default_backend
    backend = previous if previous is not None and len(previous._devices) == n else \
        _cpu_backends.setdefault(n, Backend("cpu", n))
    with _lock:
        _backends["cpu"] = backend
        if previous_default is previous:
            _default_backend = backend
    try:
        yield backend
    finally:
        with _lock:
            if previous is not None:
                _backends["cpu"] = previous
            _default_backend = previous_default


def canonicalize_platform(platform: str) -> str:
    """`gpu` to the GPU platform present (none on numjax); other names unchanged."""
    candidates = _ALIASES.get(platform)
    if candidates is None:
        return platform
    present = backends()
    for name in candidates:
        if name in present:
            return name
    raise RuntimeError(f"Unknown backend: '{platform}' requested, but no platforms that are "
                       f"instances of {platform} are present. Platforms present are: "
                       + ",".join(present))


def get_backend(platform: Any = None) -> Backend:
    """The backend for `platform` (a name, a Backend, or None for the default).

    >>> import numjax
    >>> numjax._src.xla_bridge.get_backend().platform
    'cpu'
    """
    if platform is None:
        backend = _default_backend
        if backend is not None and config.platform_name.value is None:
            return backend
    elif not isinstance(platform, str):
        return platform  # type: ignore[no-any-return]
    name = platform or config.platform_name.value
    present = backends()
    if not name:
        assert _default_backend is not None
        return _default_backend
    name = canonicalize_platform(name)
    backend = present.get(name)
    if backend is None:
        if name in _backend_errors:
            raise RuntimeError(f"Backend '{name}' failed to initialize: "
                               f"{_backend_errors[name]}. Available backends are {list(present)}")
        raise RuntimeError(f"Unknown backend {name}. Available backends are {list(present)}")
    return backend


def devices(backend: Any = None) -> list[Device]:
    """All devices of `backend` (default: the default backend).

    >>> import numjax
    >>> numjax.devices()
    [CpuDevice(id=0)]
    """
    return get_backend(backend).devices()


def local_devices(process_index: int | None = None, backend: Any = None,
                  host_id: int | None = None) -> list[Device]:
    """The devices of this process (or of `process_index`)."""
    index = host_id if process_index is None else process_index
    chosen = get_backend(backend)
    if index is None or index == chosen.process_index():
        return chosen.local_devices()
    if not 0 <= index < chosen.process_count():
        raise ValueError(f"Unknown process_index {index}")
    return [d for d in chosen.devices() if d.process_index == index]


def device_count(backend: Any = None) -> int:
    """The number of devices of `backend` across all processes."""
    return get_backend(backend).device_count()


def local_device_count(backend: Any = None) -> int:
    """The number of devices of `backend` in this process."""
    return get_backend(backend).local_device_count()


def default_backend() -> str:
    """The platform name of the default backend (`"cpu"`)."""
    return get_backend().platform


def process_index(backend: Any = None) -> int:
    """This process's index (0 unless `numjax.distributed.initialize` started several)."""
    return get_backend(backend).process_index()


def process_count(backend: Any = None) -> int:
    """The number of processes (1 unless `numjax.distributed.initialize` started several)."""
    return get_backend(backend).process_count()


def backend_default_device() -> Device:
    """The default backend's first local device: where an uncommitted Array made while no
    `jax_default_device` was set lives."""
    backend = _default_backend
    if backend is None:
        backend = get_backend()
    return backend._local[0]


def default_device() -> Device:
    """Where uncommitted arrays live: `jax_default_device` if set, else the first local
    device."""
    device = config.default_device.value
    if device is None:
        backend = _default_backend
        if backend is None:
            backend = get_backend()
        return backend._local[0]
    if isinstance(device, str):
        return get_backend(device)._local[0]
    return device  # type: ignore[no-any-return]


# JAX's deprecated names for the process functions: they warn, then answer.
def host_count(backend: Any = None) -> int:
    warnings.warn("jax.host_count has been renamed to jax.process_count. This alias will "
                  "eventually be removed; please update your code.", UserWarning, stacklevel=2)
    return process_count(backend)


def host_id(backend: Any = None) -> int:
    warnings.warn("jax.host_id has been renamed to jax.process_index. This alias will "
                  "eventually be removed; please update your code.", UserWarning, stacklevel=2)
    return process_index(backend)


def host_ids(backend: Any = None) -> list[int]:
    warnings.warn("jax.host_ids has been deprecated; please use range(jax.process_count()) "
                  "instead. jax.host_ids will eventually be removed; please update your code.",
                  UserWarning, stacklevel=2)
    return list(range(process_count(backend)))
