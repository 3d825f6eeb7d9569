"""Devices and backends. The CPU platform has N devices, N read when the backend initializes."""

from __future__ import annotations

import os
import re
import threading
from typing import Any


class Device:
    """One device of a backend.

    >>> import numjax
    >>> numjax.devices()[0]
    CpuDevice(id=0)
    """

    __slots__ = ("id", "platform", "client", "process_index", "device_kind", "__weakref__")

    def __init__(self, id: int, client: Backend) -> None:
        self.id = id
        self.platform = client.platform
        self.client = client
        self.process_index = 0
        self.device_kind = "cpu"

    @property
    def host_id(self) -> int:
        return self.process_index

    @property
    def task_id(self) -> int:
        return self.process_index

    def __repr__(self) -> str:
        return f"CpuDevice(id={self.id})"

    def __str__(self) -> str:
        return f"TFRT_CPU_{self.id}"


class Backend:
    """A platform's client: its devices and its name (`platform`)."""

    def __init__(self, platform: str, num_devices: int) -> None:
        self.platform = platform
        self.platform_version = "numjax"
        self._devices = [Device(i, self) for i in range(num_devices)]

    def devices(self) -> list[Device]:
        return list(self._devices)

    def local_devices(self) -> list[Device]:
        return list(self._devices)

    def device_count(self) -> int:
        return len(self._devices)

    def local_device_count(self) -> int:
        return len(self._devices)

    def process_index(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"<numjax {self.platform} backend with {len(self._devices)} devices>"


_lock = threading.Lock()
_backends: dict[str, Backend] = {}


def _num_cpu_devices() -> int:
    env = os.environ.get("NUMJAX_NUM_CPU_DEVICES")
    if env:
        return int(env)
    flags = os.environ.get("XLA_FLAGS", "")
    match = re.search(r"--xla_force_host_platform_device_count=(\d+)", flags)
    return int(match.group(1)) if match else 1


def get_backend(platform: Any = None) -> Backend:
    """The backend for `platform` (a name, a Backend, or None for the default)."""
    if isinstance(platform, Backend):
        return platform
    name = "cpu" if platform is None else str(platform).lower()
    if name != "cpu":
        raise RuntimeError(f"Unknown backend {name}")
    backend = _backends.get(name)
    if backend is None:
        with _lock:
            backend = _backends.get(name)
            if backend is None:
                backend = _backends[name] = Backend("cpu", _num_cpu_devices())
    return backend


def devices(backend: Any = None) -> list[Device]:
    return get_backend(backend).devices()


def local_devices(process_index: int | None = None, backend: Any = None) -> list[Device]:
    return get_backend(backend).local_devices()


def device_count(backend: Any = None) -> int:
    return get_backend(backend).device_count()


def local_device_count(backend: Any = None) -> int:
    return get_backend(backend).local_device_count()


def default_backend() -> str:
    return get_backend().platform


def process_index(backend: Any = None) -> int:
    return 0


def process_count(backend: Any = None) -> int:
    return 1


def default_device() -> Device:
    return get_backend().devices()[0]
