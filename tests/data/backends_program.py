"""A JAX program about backend initialization, run unmodified by JAX 0.4.30 (to record
tests/data/backends_golden.txt) and by numjax (tests/runtime/test_devices.py). Its output is one
line per check."""

import os

import jax
from jax._src import xla_bridge


def show(label, thunk):
    try:
        out = thunk()
    except Exception as e:
        out = f"{type(e).__name__}: {e}"
    print(f"{label}: {out}")


# Read when the backend initializes: setting the flag after `import jax` still counts.
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=3"
show("registry before init", lambda: dict(xla_bridge._backends))
for platforms in ["foo", "gpu", "tpu", "CPU", "cpu,foo"]:
    jax.config.update("jax_platforms", platforms)
    show(f"jax_platforms={platforms}", lambda: jax.devices())
show("after a partial init", lambda: jax.devices())
jax.config.update("jax_platforms", "foo")
show("jax_platforms after init is ignored", lambda: jax.devices())
jax.config.update("jax_platforms", None)
# Too late: the backend has initialized, the flag is silently ignored.
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
show("counts", lambda: (jax.device_count(), jax.local_device_count(), jax.process_count(),
                        jax.process_index(), jax.default_backend()))
show("devices", lambda: (jax.devices(), jax.devices("cpu"), jax.local_devices(),
                         jax.local_devices(process_index=0)))
d = jax.devices()[2]
show("device", lambda: (repr(d), str(d), d.id, d.platform, d.device_kind, d.process_index,
                        d.host_id, d.task_id, d.client.platform, d.client.process_index()))
for name in ["gpu", "cuda", "tpu", "foo"]:
    show(f"devices({name!r})", lambda name=name: jax.devices(name))
show("local_devices(process_index=1)", lambda: jax.local_devices(process_index=1))
show("registry", lambda: (list(xla_bridge._backends), list(xla_bridge.backends()),
                          xla_bridge.get_backend() is xla_bridge._backends["cpu"],
                          xla_bridge.get_backend("cpu").platform,
                          jax.lib.xla_bridge.get_backend().platform,
                          jax.devices()[0].client is xla_bridge.get_backend()))
