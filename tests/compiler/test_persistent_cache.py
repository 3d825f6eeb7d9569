"""The persistent compilation cache (`jax_compilation_cache_dir`): options and functions as JAX
0.4.30 has them, a second process reading what the first wrote, keys that change with the
options, corrupt and foreign entries, thresholds, and programs it must not store."""

from __future__ import annotations

import json
import logging
import os
import pathlib
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.compiler import native_tier, persistent_cache
from numjax.experimental.compilation_cache import compilation_cache as cc

SRC = str(pathlib.Path(__file__).resolve().parents[2] / "src")

# JAX 0.4.30's defaults (jax.config.<name>).
DEFAULTS = [
    ("jax_compilation_cache_dir", None),
    ("jax_persistent_cache_min_compile_time_secs", 1.0),
    ("jax_persistent_cache_min_entry_size_bytes", 0),
    ("jax_enable_compilation_cache", True),
    ("jax_raise_persistent_cache_errors", False),
    ("jax_compilation_cache_max_size", -1),
    ("jax_compilation_cache_include_metadata_in_key", False),
    ("jax_explain_cache_misses", False),
]

# Options the tests set, restored afterwards.
_OPTIONS = [name for name, _ in DEFAULTS if name != "jax_explain_cache_misses"]


@pytest.fixture
def cache_dir(tmp_path):
    """An empty cache directory in use, every entry written (no minimum compile time)."""
    saved = {name: jax.config.read(name) for name in _OPTIONS}
    path = tmp_path / "cache"
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    cc.reset_cache()
    jax.clear_caches()
    try:
        yield path
    finally:
        for name, value in saved.items():
            jax.config.update(name, value)
        cc.reset_cache()
        jax.clear_caches()


def _entries(path):
    return sorted(p for p in os.listdir(path) if p.startswith("jit_")) if path.exists() else []


def _stats():
    return dict(persistent_cache.stats)


def _delta(before):
    return {k: persistent_cache.stats[k] - before[k] for k in before}


def f(x):
    return jnp.sin(x) * 2 + 1


@pytest.mark.parametrize("name,default", DEFAULTS)
def test_options_have_jax_defaults(name, default):
    value = jax.config.read(name)
    assert value == default and type(value) is type(default)


def test_options_read_from_the_environment():
    env = dict(os.environ, PYTHONPATH=SRC, JAX_COMPILATION_CACHE_DIR="/x",
               JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0.5",
               JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="7")
    code = ("import numjax as jax; c = jax.config; print(c.jax_compilation_cache_dir, "
            "c.jax_persistent_cache_min_compile_time_secs, "
            "c.jax_persistent_cache_min_entry_size_bytes)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ["/x", "0.5", "7"]  # JAX: /x 0.5 7


def test_public_functions(tmp_path):
    saved = jax.config.read("jax_compilation_cache_dir")
    try:
        cc.set_cache_dir(str(tmp_path))
        assert jax.config.jax_compilation_cache_dir == str(tmp_path)
        with pytest.warns(DeprecationWarning,
                          match="^initialize_cache is deprecated; use set_cache_dir instead$"):
            cc.initialize_cache(str(tmp_path / "b"))
        assert jax.config.jax_compilation_cache_dir == str(tmp_path / "b")
        with pytest.warns(DeprecationWarning, match="^is_initialized is deprecated; do not use$"):
            assert cc.is_initialized() is True
        with _option("jax_enable_compilation_cache", False), pytest.warns(DeprecationWarning):
            assert cc.is_initialized() is False
    finally:
        jax.config.update("jax_compilation_cache_dir", saved)
        cc.reset_cache()


class _option:
    """Set an option globally for a block."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __enter__(self):
        self.saved = jax.config.read(self.name)
        jax.config.update(self.name, self.value)

    def __exit__(self, *exc):
        jax.config.update(self.name, self.saved)


_PROGRAM = textwrap.dedent("""
    import json, logging, sys
    import numpy as np
    import numjax as jax, numjax.numpy as jnp
    from numjax import lax
    from numjax._src.compiler import persistent_cache
    logging.basicConfig(level=logging.DEBUG, format="%(name)s: %(message)s")

    def step(params, x, y):
        def loss(p):
            h = jax.nn.relu(x @ p["w1"] + p["b1"])
            return jnp.mean((jnp.tanh(h @ p["w2"]) - y) ** 2)
        return jax.value_and_grad(loss)(params)

    def loops(x, key):
        carry, ys = lax.scan(lambda c, r: (c * 0.5 + r, jnp.cumsum(c)), jnp.zeros(4), x)
        n = lax.while_loop(lambda s: s[0] < 5, lambda s: (s[0] + 1, s[1] * 1.5), (0, carry))
        picked = x[jnp.array([2, 0]), 1:3].at[0, 1].add(1.0)
        noise = jax.random.normal(key, (3,))
        branch = lax.cond(x.sum() > 0, jnp.sin, jnp.cos, carry)
        return ys, n[1], picked, noise, branch, jnp.sort(x, axis=0)

    rng = np.random.default_rng(0)
    params = {"w1": rng.normal(size=(5, 8)).astype(np.float32), "b1": np.zeros(8, np.float32),
              "w2": rng.normal(size=(8, 2)).astype(np.float32)}
    x = rng.normal(size=(6, 5)).astype(np.float32)
    y = rng.normal(size=(6, 2)).astype(np.float32)
    outs = [jax.jit(step)(params, x, y), jax.jit(loops)(x[:, :4], jax.random.PRNGKey(3))]
    leaves = [np.asarray(v) for v in jax.tree_util.tree_leaves(outs)]
    print(json.dumps({"stats": persistent_cache.stats,
                      "values": [[v.dtype.str, v.shape, v.tobytes().hex()] for v in leaves]}))
""")


def _run_program(path):
    env = dict(os.environ, PYTHONPATH=SRC, JAX_COMPILATION_CACHE_DIR=str(path),
               JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0", NUMJAX_NATIVE="off")
    done = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1]), done.stderr


def test_a_second_process_reads_what_the_first_wrote(tmp_path):
    first, _ = _run_program(tmp_path)
    assert first["stats"] == {"hits": 0, "misses": 2, "writes": 2}
    assert len(_entries(tmp_path)) == 2
    second, log = _run_program(tmp_path)
    assert second["stats"] == {"hits": 2, "misses": 0, "writes": 0}
    assert second["values"] == first["values"]  # bit for bit
    # JAX's debug line for a hit (logger jax._src.compiler).
    assert "numjax._src.compiler: Persistent compilation cache hit for 'jit_step'" in log
    assert "Persistent compilation cache hit for 'jit_loops'" in log


def test_entries_are_named_as_jax_names_them(cache_dir):
    jax.jit(f)(jnp.arange(3.0))
    jax.jit(lambda x: x + 1)(jnp.arange(3.0))
    names = _entries(cache_dir)
    assert len(names) == 2
    for name, prefix in zip(names, ["jit__lambda_-", "jit_f-"], strict=True):
        assert name.startswith(prefix) and len(name) == len(prefix) + 64


@pytest.mark.parametrize("change", [
    "x64", "debug_nans", "debug_infs", "matmul_precision", "donation", "shape", "dtype",
    "constant",
])
def test_what_changes_the_program_changes_the_key(cache_dir, change):
    x = jnp.arange(6.0).reshape(2, 3)

    def g(x, c=np.float32(2.0)):
        return jnp.dot(x, x.T) * c

    def compile_and_run(x=x, c=np.float32(2.0), **jit_options):
        jax.clear_caches()
        return jax.jit(lambda x: g(x, c), **jit_options)(x)

    expected = compile_and_run()
    before = _stats()
    assert np.array_equal(compile_and_run(), expected)
    assert _delta(before) == {"hits": 1, "misses": 0, "writes": 0}
    before = _stats()
    if change == "x64":
        with jax.experimental.enable_x64():
            compile_and_run()
    elif change in ("debug_nans", "debug_infs"):
        with getattr(jax, change)(True):
            compile_and_run()
    elif change == "matmul_precision":
        with jax.default_matmul_precision("float32"):
            compile_and_run()
    elif change == "donation":
        with pytest.warns(UserWarning, match="Some donated buffers were not usable"):
            compile_and_run(jnp.arange(6.0).reshape(2, 3), donate_argnums=0)
    elif change == "shape":
        compile_and_run(jnp.arange(8.0).reshape(2, 4))
    elif change == "dtype":
        compile_and_run(jnp.arange(6).reshape(2, 3))
    else:
        compile_and_run(c=np.float32(3.0))
    assert _delta(before) == {"hits": 0, "misses": 1, "writes": 1}


def _write_entry(cache_dir, fn, x):
    jax.clear_caches()
    expected = jax.jit(fn)(x)
    (name,) = _entries(cache_dir)
    return cache_dir / name, expected


def test_a_corrupt_entry_is_a_miss_with_a_warning_and_is_rewritten(cache_dir):
    x = jnp.arange(4.0)
    entry, expected = _write_entry(cache_dir, f, x)
    entry.write_bytes(b"garbage")
    jax.clear_caches()
    with pytest.warns(UserWarning, match="^Error reading persistent compilation cache entry "
                                         "for 'jit_f': ValueError: the file jit_f-[0-9a-f]{64} "
                                         "is not a cache entry"):
        assert np.array_equal(jax.jit(f)(x), expected)
    jax.clear_caches()
    before = _stats()
    assert np.array_equal(jax.jit(f)(x), expected)
    assert _delta(before)["hits"] == 1


def test_a_truncated_entry_is_a_miss(cache_dir):
    x = jnp.arange(4.0)
    entry, expected = _write_entry(cache_dir, f, x)
    entry.write_bytes(entry.read_bytes()[:100])
    jax.clear_caches()
    with pytest.warns(UserWarning, match="^Error reading persistent compilation cache entry "
                                         "for 'jit_f': BadZipFile: "):
        assert np.array_equal(jax.jit(f)(x), expected)


def test_raise_persistent_cache_errors(cache_dir):
    x = jnp.arange(4.0)
    entry, _ = _write_entry(cache_dir, f, x)
    entry.write_bytes(b"garbage")
    jax.clear_caches()
    with _option("jax_raise_persistent_cache_errors", True), \
            pytest.raises(ValueError, match="is not a cache entry"):
        jax.jit(f)(x)


def test_an_entry_of_another_program_is_refused(cache_dir):
    x = jnp.arange(4.0)
    entry, expected = _write_entry(cache_dir, f, x)
    jax.clear_caches()
    jax.jit(lambda x: x - 1)(x)
    (other,) = [n for n in _entries(cache_dir) if n.startswith("jit__lambda_")]
    entry.write_bytes((cache_dir / other).read_bytes())
    jax.clear_caches()
    with pytest.warns(UserWarning, match="for 'jit_f': ValueError: the file jit_f-.* holds "
                                         "another entry"):
        assert np.array_equal(jax.jit(f)(x), expected)


def test_a_directory_that_cannot_be_made_warns_once_and_turns_the_cache_off(cache_dir):
    # JAX 0.4.30: "Error reading persistent compilation cache entry for 'jit__lambda_':
    # FileNotFoundError: [Errno 2] No such file or directory: '/proc/nope'", then no cache.
    blocker = cache_dir.parent / "a_file"
    blocker.write_text("")
    with _option("jax_compilation_cache_dir", str(blocker / "cache")):
        cc.reset_cache()
        with pytest.warns(UserWarning, match="^Error reading persistent compilation cache entry "
                                             "for 'jit_f': NotADirectoryError: "):
            assert np.array_equal(jax.jit(f)(jnp.arange(3.0)), f(jnp.arange(3.0)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            jax.jit(lambda x: x + 2)(jnp.arange(3.0))
    cc.reset_cache()


def test_min_compile_time(cache_dir, caplog):
    caplog.set_level(logging.DEBUG, logger="numjax._src.compiler")
    with _option("jax_persistent_cache_min_compile_time_secs", 1e9):
        jax.jit(f)(jnp.arange(3.0))
    assert _entries(cache_dir) == []
    assert any(r.getMessage().startswith(
        "Not writing persistent cache entry for 'jit_f' because it took < 1000000000.00 "
        "seconds to compile (") for r in caplog.records)


def test_min_entry_size(cache_dir, caplog):
    caplog.set_level(logging.INFO, logger="numjax._src.compilation_cache")
    with _option("jax_persistent_cache_min_entry_size_bytes", 1 << 40):
        jax.jit(f)(jnp.arange(3.0))
    assert _entries(cache_dir) == []
    (message,) = [r.getMessage() for r in caplog.records if "Not writing" in r.getMessage()]
    assert message.startswith("Not writing cache entry with key jit_f-")
    assert message.endswith(f"bytes) is less than threshold ({1 << 40} bytes)")


def test_writes_are_logged_as_jax_logs_them(cache_dir, caplog):
    caplog.set_level(logging.INFO, logger="numjax._src.compilation_cache")
    jax.jit(f)(jnp.arange(3.0))
    (name,) = _entries(cache_dir)
    assert f"Writing jit_f to persistent compilation cache with key {name}." in [
        r.getMessage() for r in caplog.records]


def test_max_size_keeps_the_most_recently_used_entries(cache_dir):
    x = jnp.arange(3.0)
    jax.jit(f)(x)
    (first,) = _entries(cache_dir)
    size = os.path.getsize(cache_dir / first)
    with _option("jax_compilation_cache_max_size", size + size // 2):
        jax.jit(lambda x: x * 3.0)(x)
        names = _entries(cache_dir)
    assert len(names) == 1 and names[0].startswith("jit__lambda_-")


def test_max_size_zero_and_disabled_cache_write_nothing(cache_dir):
    for name, value in [("jax_compilation_cache_max_size", 0),
                        ("jax_enable_compilation_cache", False)]:
        with _option(name, value):
            cc.reset_cache()
            jax.clear_caches()
            jax.jit(f)(jnp.arange(3.0))
        assert _entries(cache_dir) == []
    cc.reset_cache()


def test_options_are_read_at_the_first_compile_until_reset(tmp_path):
    """As in JAX 0.4.30: a directory set after the cache was first used (a jit compile with
    no directory) takes effect only after reset_cache()."""
    saved = {name: jax.config.read(name) for name in _OPTIONS}
    try:
        jax.config.update("jax_compilation_cache_dir", None)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        cc.reset_cache()
        jax.jit(lambda x: x * 3)(jnp.ones(3))
        cc.set_cache_dir(str(tmp_path))
        jax.jit(lambda x: x * 4)(jnp.ones(3))
        assert _entries(tmp_path) == []
        cc.reset_cache()
        jax.jit(lambda x: x * 5)(jnp.ones(3))
        assert len(_entries(tmp_path)) == 1
    finally:
        for name, value in saved.items():
            jax.config.update(name, value)
        cc.reset_cache()


def test_eager_operations_do_not_read_the_options(tmp_path):
    """A deliberate difference (docs/differences.md): in JAX 0.4.30 an eager operation is a
    compile that freezes the options, so the directory set after `jnp.ones(3) + 1` stays
    unused until reset_cache(); numjax's eager operations leave them unread."""
    saved = {name: jax.config.read(name) for name in _OPTIONS}
    try:
        jax.config.update("jax_compilation_cache_dir", None)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        cc.reset_cache()
        jnp.ones(3) + 1
        cc.set_cache_dir(str(tmp_path))
        jax.jit(lambda x: x * 6)(jnp.ones(3))
        assert len(_entries(tmp_path)) == 1
    finally:
        for name, value in saved.items():
            jax.config.update(name, value)
        cc.reset_cache()


my_double_p = jax.core.Primitive("my_double")
my_double_p.def_impl(lambda x: x * 2)
my_double_p.def_abstract_eval(lambda x: x)


@pytest.mark.parametrize("name,fn", [
    ("pure_callback", lambda x: jax.pure_callback(lambda a: a * 2, x, x)),
    ("debug_callback", lambda x: (jax.debug.callback(lambda a: None, x), x + 1)[1]),
    ("a primitive numjax does not define", lambda x: my_double_p.bind(x) + 1),
])
def test_programs_it_cannot_store_compile_as_usual(cache_dir, name, fn):
    x = jnp.arange(3.0)
    expected = fn(x)
    before = _stats()
    assert np.array_equal(jax.jit(fn)(x), expected)
    assert _entries(cache_dir) == []
    assert _delta(before) == {"hits": 0, "misses": 0, "writes": 0}


_X = jnp.arange(12.0).reshape(3, 4)
_I = jnp.array([2, 0, 1])


def _relu_vjp():
    g = jax.custom_vjp(lambda x: jnp.maximum(x, 0.0))
    g.defvjp(lambda x: (jnp.maximum(x, 0.0), x), lambda x, ct: (ct * (x > 0),))
    return g


# Programs whose kernels (gather dimension numbers, precisions, jaxprs of custom rules,
# bfloat16, PRNG) are read back from an entry: the hit's results equal the miss's bit for bit.
ROUND_TRIPS = {
    "gather": (lambda x, i: x[i, 1:3], (_X, _I)),
    "scatter_add": (lambda x, i: x.at[i, 0].add(1.0), (_X, _I)),
    "dot_highest": (lambda x: jnp.dot(x, x.T, precision=lax.Precision.HIGHEST), (_X,)),
    "cumsum_sort": (lambda x: jnp.sort(jnp.cumsum(x, 1), axis=0)[::-1], (_X,)),
    "argmax": (lambda x: jnp.argmax(x, 1), (_X,)),
    "rfft": (lambda x: jnp.fft.rfft(x), (_X,)),
    "conv": (lambda x: lax.conv_general_dilated(x[None, None], jnp.ones((1, 1, 2, 2)), (1, 1),
                                                 "SAME"), (_X,)),
    "cond": (lambda x: lax.cond(x.sum() > 3, jnp.sin, jnp.cos, x), (_X,)),
    "scan": (lambda x: lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(4), x), (_X,)),
    "fori_loop": (lambda x: lax.fori_loop(0, 3, lambda k, c: c * 2 + k, x), (_X,)),
    "random": (lambda k: jax.random.normal(k, (3,)), (jax.random.PRNGKey(1),)),
    "solve": (lambda x: jnp.linalg.solve(x[:, :3] + 3 * jnp.eye(3), x[:, 0]), (_X,)),
    "reduce_precision": (lambda x: lax.reduce_precision(x, 5, 10), (_X,)),
    "bfloat16": (lambda x: (x.astype(jnp.bfloat16) * 3).sum(), (_X,)),
    "custom_jvp": (lambda x: jax.nn.relu(x) + jax.nn.softplus(x), (_X,)),
    "custom_vjp": (lambda x: _relu_vjp()(x - 5.0), (_X,)),
    "grad": (jax.grad(lambda x: jnp.sum(jnp.tanh(x) ** 2)), (_X,)),
    "integer": (lambda x: (x.astype(jnp.int32) // 3) << 2, (_X,)),
    "special_functions": (lambda x: (lax.digamma(x + 1), lax.lgamma(x + 1),
                                     lax.igamma(x + 1, x + 2)), (_X,)),
    "scalar_constants": (lambda x: (jnp.sum(x), jnp.asarray(2.0), np.float32(3.0) * x[0, 0]),
                         (_X,)),
    "fused_large": (lambda s: jnp.tanh(jnp.full((1200, 1000), s)) * 2 + 1, (jnp.float32(0.5),)),
}


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_a_hit_computes_what_the_miss_did(cache_dir, name):
    fn, args = ROUND_TRIPS[name]
    miss = jax.jit(fn)(*args)
    assert len(_entries(cache_dir)) == 1
    jax.clear_caches()
    before = _stats()
    hit = jax.jit(fn)(*args)
    assert _delta(before) == {"hits": 1, "misses": 0, "writes": 0}
    for a, b in zip(jax.tree_util.tree_leaves(miss), jax.tree_util.tree_leaves(hit),
                    strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_aot_stages_of_a_hit(cache_dir):
    x = jnp.arange(3.0)
    text = jax.jit(f).lower(x).as_text()
    jax.clear_caches()
    lowered = jax.jit(f).lower(x)
    assert lowered.as_text() == text
    assert np.array_equal(lowered.compile()(x), f(x))


def test_log_compiles_on_a_hit(cache_dir, caplog):
    jax.jit(f)(jnp.arange(3.0))
    jax.clear_caches()
    caplog.set_level(logging.DEBUG, logger="numjax._src.compiler")
    with jax.log_compiles(True):
        jax.jit(f)(jnp.arange(3.0))
    messages = [r.getMessage() for r in caplog.records]
    assert "Persistent compilation cache hit for 'jit_f'" in messages
    assert any(m.startswith("Finished compilation of jit(f) in ") for m in messages)


def test_native_modules_live_in_the_cache_directory(cache_dir, monkeypatch):
    monkeypatch.delenv("NUMJAX_NATIVE_CACHE_DIR", raising=False)
    assert native_tier.cache_dir() == os.path.join(str(cache_dir), "numjax-native")
    monkeypatch.setenv("NUMJAX_NATIVE_CACHE_DIR", str(cache_dir / "elsewhere"))
    assert native_tier.cache_dir() == str(cache_dir / "elsewhere")


@pytest.mark.skipif(not native_tier.available, reason="numba is not installed")
def test_a_hit_keeps_its_native_tier(cache_dir, monkeypatch):
    monkeypatch.delenv("NUMJAX_NATIVE_CACHE_DIR", raising=False)

    def body(x):
        return lax.fori_loop(0, 10, lambda i, c: jnp.sin(c) + i, x)

    x = jnp.arange(3.0)
    with native_tier.native_mode("force"):
        miss = jax.jit(body)(x)
        jax.clear_caches()
        before = _stats()
        wrapped = jax.jit(body)
        hit = wrapped(x)
        assert _delta(before)["hits"] == 1
        compiled = wrapped.lower(x).compile()
        assert native_tier.is_native(compiled._call.executable)
    np.testing.assert_allclose(np.asarray(hit), np.asarray(miss), rtol=1e-6)
    assert os.listdir(cache_dir / "numjax-native")


def test_no_warnings_from_a_clean_round_trip(cache_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jax.jit(f)(jnp.arange(3.0))
        jax.clear_caches()
        jax.jit(f)(jnp.arange(3.0))
