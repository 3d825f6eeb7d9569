"""Stand-ins for the JAX-internal modules (`jax._src.*`, `jax.interpreters.*`, `jax.lib.*`)
that the JAX 0.4.30 test files import. `port.py` rewrites every such import into

    name = _mod('jax._src.core')                 # from jax._src import core
    name = _attr('jax._src.util', 'safe_zip')    # from jax._src.util import safe_zip

Each module name resolves to a `_Proxy`. A proxy answers an attribute from, in order:
  1. an explicit mapping onto public API (or onto a tiny public-API re-implementation here);
  2. a *public* module of the same era (`jax._src.core` -> `jax.core`, `jax._src.api` -> `jax`,
     ...). If the public module lacks the name, the result is a `MissingAPI` object: using it
     raises `MissingAPIError` (a test failure, not a skip), because the name is public in JAX;
  3. otherwise an `_Unavail` poison: using it raises `unittest.SkipTest('uses internal ...')`.
     The same ported file therefore skips the same internal-only tests on real JAX and on the
     package under test, and those tests drop out of the comparison.

Everything here must behave the same whichever package is imported as `jax`: it only touches
`jax`'s public API, NumPy and ml_dtypes. Works against real `jax` or a package aliased as `jax`.
"""

import contextlib
import importlib
import os
import sys
import unittest

import jax
import jax.numpy as jnp
import numpy as np

# ---------------------------------------------------------------------------------------------
# poison objects

_PORTED_DIR = os.path.dirname(os.path.abspath(__file__))
_SELF = os.path.abspath(__file__)


def _load_public_names():
    import json

    p = os.path.join(_PORTED_DIR, "jax_public_names.json")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return {k: set(v) for k, v in json.load(f).items() if isinstance(v, list)}


# public names of JAX 0.4.30's public modules (written by jax_public_names.py under real JAX)
JAX_PUBLIC = _load_public_names()


def is_public_in_jax(module, name):
    """Whether `module.name` is public API in real JAX (True if no manifest is available)."""
    if JAX_PUBLIC is None:
        return True
    return name in JAX_PUBLIC.get(module, ())


def _in_ported_file(f):
    if f is None:
        return False
    fn = os.path.abspath(f.f_code.co_filename)
    return fn != _SELF and os.path.dirname(fn) == _PORTED_DIR


def _call_repr(a, k):
    parts = [repr(x) for x in a] + [f"{kk}={vv!r}" for kk, vv in k.items()]
    r = ", ".join(parts)
    return r if len(r) <= 80 else r[:80] + "..."


def _poison_decorated(obj, exc_type, msg):
    """What a poison used as a decorator at import time turns `obj` into: a test that raises
    `exc_type(msg)` when it runs (so only that test skips/fails, not the whole file)."""
    import functools
    import inspect

    try:
        from absl.testing.parameterized import _ParameterizedTestIter
    except ImportError:  # pragma: no cover
        _ParameterizedTestIter = ()

    def make_failing(f):
        @functools.wraps(f)
        def failing(*a, **k):
            raise exc_type(msg)

        return failing

    if _ParameterizedTestIter and isinstance(obj, _ParameterizedTestIter):
        obj._test_method = make_failing(obj._test_method)
        return obj
    if inspect.isclass(obj):

        def setUp(self, *a, **k):
            raise exc_type(msg)

        obj.setUp = setUp
        return obj
    if callable(obj):
        return make_failing(obj)
    return None


def _collecting():
    """True while pytest collects (imports) the ported files; conftest.py sets TEST_PHASE once
    collection is over. Poison is lenient while collecting, so that an internal or missing name in
    a parameter list or decorator costs only the tests that use it, not the whole file."""
    return not TEST_PHASE


TEST_PHASE = False


class _Unavail:
    """Lazy poison for JAX internals. Attribute chains build more poison. Inside a test, any real
    use skips the test (`unittest.SkipTest('uses internal ...')`). While the files are being
    collected, uses are lenient: a call returns more poison (or, used as a decorator, turns the test
    into one that skips when run), iteration yields one poison element, comparisons are False."""

    _skip_exc = unittest.SkipTest

    def __init__(self, name):
        object.__setattr__(self, "_n", name)
        object.__setattr__(self, "__name__", name.rsplit(".", 1)[-1])
        object.__setattr__(self, "__qualname__", name.rsplit(".", 1)[-1])

    def __getattr__(self, a):
        if a.startswith("__") and a.endswith("__"):
            raise AttributeError(a)
        return type(self)(f"{self._n}.{a}")

    def __setattr__(self, a, v):
        object.__setattr__(self, a, v)

    def _msg(self):
        return f"uses internal {self._n}"

    def _fail(self, *a, **k):
        raise self._skip_exc(self._msg())

    def __call__(self, *a, **k):
        if _collecting():
            if len(a) == 1 and not k and callable(a[0]) and not isinstance(a[0], _Unavail):
                r = _poison_decorated(a[0], self._skip_exc, self._msg())
                if r is not None:
                    return r
            return type(self)(f"{self._n}({_call_repr(a, k)})")
        self._fail()

    def __iter__(self):
        if _collecting():
            return iter([type(self)(f"{self._n}[0]")])
        self._fail()

    def __getitem__(self, key):
        if _collecting():
            return type(self)(f"{self._n}[{key!r}]")
        self._fail()

    def __setitem__(self, key, value):
        if _collecting():
            return  # e.g. `core.pytype_aval_mappings[T] = ...` at module level: dropped
        self._fail()

    def __len__(self):
        if _collecting():
            return 1
        self._fail()

    def __bool__(self):
        if _collecting():
            return False
        self._fail()

    def __contains__(self, x):
        if _collecting():
            return False
        self._fail()

    def _op(self, *a):
        if _collecting():
            return type(self)(f"{self._n}<op>")
        self._fail()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __neg__ = _op
    __or__ = __ror__ = __and__ = __rand__ = _op

    def _cmp(self, o):
        if _collecting():
            return False
        self._fail()

    __lt__ = __le__ = __gt__ = __ge__ = _cmp

    def __eq__(self, o):
        if _collecting():
            return self is o
        self._fail()

    def __ne__(self, o):
        if _collecting():
            return self is not o
        self._fail()

    __enter__ = __exit__ = __index__ = __int__ = __float__ = __array__ = _fail

    def __instancecheck__(self, inst):
        self._fail()

    def __mro_entries__(self, bases):
        # `class Foo(internal.Base):` at import time: give a class whose instantiation fails/skips.
        name, exc = self._msg(), self._skip_exc

        class _PoisonBase:
            def __init__(self, *a, **k):
                raise exc(name)

            def __init_subclass__(cls, **kw):
                pass

        return (_PoisonBase,)

    def __hash__(self):
        return hash(self._n)

    def __repr__(self):
        return f"<internal {self._n}>"


class MissingAPIError(AttributeError):
    """A public JAX name that the package imported as `jax` does not have."""


class MissingAPI(_Unavail):
    """Poison for a *public* JAX name the package under test lacks: using it inside a test raises
    MissingAPIError (a failure, not a skip)."""

    _skip_exc = MissingAPIError

    def _msg(self):
        return f"missing public API: {self._n}"

    def __repr__(self):
        return f"<missing public API {self._n}>"


# ---------------------------------------------------------------------------------------------
# lenient public modules: a public name the package lacks, read while a ported file is being
# imported (module level / class body, e.g. `@jax.legacy_prng_key('allow')` on a test method or
# `lax.psum_scatter` in a parameter list), becomes a MissingAPI poison instead of an
# AttributeError that would abort collection of the whole file. Inside a test the attribute
# error is raised as usual.


def _jax_label(modname):
    root = jax.__name__
    return "jax" + modname[len(root) :] if modname.startswith(root) else modname


def make_lenient(m):
    if not hasattr(m, "__dict__") or m.__dict__.get("__port_lenient__"):
        return
    orig = m.__dict__.get("__getattr__")
    label = _jax_label(getattr(m, "__name__", "?"))

    def __getattr__(name):
        if orig is not None:
            try:
                return orig(name)
            except AttributeError:
                if (
                    name.startswith("_")
                    or not _lenient_frame()
                    or not is_public_in_jax(label, name)
                ):
                    raise
                return MissingAPI(f"{label}.{name}")
        if not name.startswith("_") and _lenient_frame() and is_public_in_jax(label, name):
            return MissingAPI(f"{label}.{name}")
        raise AttributeError(f"module {m.__name__!r} has no attribute {name!r}")

    try:
        m.__getattr__ = __getattr__
        m.__port_lenient__ = True
    except (AttributeError, TypeError):
        pass


def _lenient_frame():
    return _collecting() and _in_ported_file(sys._getframe(2))


def lenient_all():
    """Make every loaded module of the package imported as `jax` lenient (idempotent)."""
    root = jax.__name__
    for m in list(sys.modules.values()):
        if m is not None and (
            getattr(m, "__name__", "") == root or getattr(m, "__name__", "").startswith(root + ".")
        ):
            make_lenient(m)


# ---------------------------------------------------------------------------------------------
# guarded public imports (used by port.py for top-level `import jax.X` / `from jax.X import y`)


def _guard_import(modname):
    """`import modname` (a public jax module); a MissingAPI poison if it cannot be imported."""
    try:
        m = importlib.import_module(modname)
    except ImportError:
        return MissingAPI(modname)
    lenient_all()
    return m


def _guard_from(modname, attr):
    """`from modname import attr`; a MissingAPI poison if neither the attribute nor the submodule
    exists."""
    try:
        mod = importlib.import_module(modname)
    except ImportError:
        return MissingAPI(f"{modname}.{attr}")
    lenient_all()
    try:
        v = mod.__dict__[attr] if attr in mod.__dict__ else getattr(mod, attr)
        if not isinstance(v, MissingAPI):
            return v
    except AttributeError:
        pass
    try:
        v = importlib.import_module(f"{modname}.{attr}")
        lenient_all()
        return v
    except ImportError:
        return MissingAPI(f"{modname}.{attr}")


# ---------------------------------------------------------------------------------------------
# module proxies


class _Proxy:
    def __init__(self, name, mapping=None, public=None, deny=()):
        self._n, self._m, self._public, self._deny = name, dict(mapping or {}), public, set(deny)

    def __getattr__(self, a):
        if a.startswith("__") and a.endswith("__"):
            raise AttributeError(a)
        if a in self._m:
            v = self._m[a]
            if getattr(v, "_lazy", False):
                v = v()
            return v
        if (
            self._public is not None
            and a not in self._deny
            and not a.startswith("_")
            and is_public_in_jax(self._public, a)
        ):
            try:
                pub = importlib.import_module(self._public)
            except ImportError:
                return MissingAPI(f"{self._public}.{a}")
            try:
                return getattr(pub, a)
            except AttributeError:
                return MissingAPI(f"{self._public}.{a}")
        return _Unavail(f"{self._n}.{a}")

    def __repr__(self):
        return f"<internal_shim proxy for {self._n}>"


def _lazy(f):
    f._lazy = True
    return f


def _public(modname, attr):
    """Lazy public attribute: resolved on first use, MissingAPI if absent."""
    return _lazy(lambda: _guard_from(modname, attr))


_MODULES = {}


def _register(name, proxy):
    _MODULES[name] = proxy
    return proxy


def _mod(fullname):
    """The stand-in for module `fullname` (poison for unknown internals)."""
    p = _MODULES.get(fullname)
    if p is None:
        p = _register(fullname, _Proxy(fullname))
    return p


def _attr(modname, attr):
    """The stand-in for `from modname import attr`."""
    full = f"{modname}.{attr}"
    if full in _MODULES:
        return _MODULES[full]
    return getattr(_mod(modname), attr)


# ---------------------------------------------------------------------------------------------
# jax._src.config

FLAGS = {}  # flags that jax._src.test_util defines with config.DEFINE_* (not on jax.config)
UNKNOWN_CONFIG_READS = set()
_JAX_DEFAULTS = {
    "jax_enable_custom_prng": False,
    "jax_threefry_partitionable": False,
    "jax_softmax_custom_jvp": False,
    "jax_pmap_shmap_merge": False,
    "jax_eager_pmap": True,
    "jax_pmap_no_rank_reduction": True,
    "jax_default_dtype_bits": "64",
    "jax_xla_runtime_errors": False,
    "jax_legacy_prng_key": "allow",
    "jax_random_seed_offset": 0,
}


class _Holder:
    """What `config.DEFINE_*` returns in jax._src.test_util: a flag with a `.value`."""

    def __init__(self, name, value):
        self.name, self.value = name, value


def _bool_env(varname, default):
    val = os.getenv(varname, str(default)).lower()
    if val in ("y", "yes", "t", "true", "on", "1"):
        return True
    if val in ("n", "no", "f", "false", "off", "0"):
        return False
    raise ValueError(f"invalid truth value {val!r} for environment {varname!r}")


class _StateCtx(contextlib.ContextDecorator):
    def __init__(self, key, val):
        self.key, self.val = key, val

    def __enter__(self):
        self.old = getattr(jax.config, self.key)
        jax.config.update(self.key, self.val)

    def __exit__(self, *exc):
        jax.config.update(self.key, self.old)
        return False


class _State:
    """`jax._src.config.<name>`: `.value` and `with config.<name>(v):`, on `jax_<name>`."""

    def __init__(self, key):
        self.key = key

    @property
    def value(self):
        try:
            return getattr(jax.config, self.key)
        except AttributeError:
            # Reading, through the *internal* config module, an option the package lacks (e.g.
            # random_lax_test's KS helper reads enable_custom_prng): JAX 0.4.30's default value, and
            # the read is recorded. Setting such an option (`with config.X(v):`) still fails.
            if self.key in _JAX_DEFAULTS:
                UNKNOWN_CONFIG_READS.add(self.key)
                return _JAX_DEFAULTS[self.key]
            raise

    def __call__(self, val):
        return _StateCtx(self.key, val)

    def __repr__(self):
        return f"<config state {self.key}>"


# config names whose public context manager exists on `jax` itself
_PUBLIC_CTX = {
    "disable_jit",
    "debug_nans",
    "debug_infs",
    "log_compiles",
    "default_matmul_precision",
    "numpy_rank_promotion",
    "numpy_dtype_promotion",
    "transfer_guard",
    "default_prng_impl",
    "enable_checks",
    "legacy_prng_key",
    "threefry_partitionable",
    "softmax_custom_jvp",
    "enable_custom_prng",
    "default_device",
    "check_tracer_leaks",
    "checking_leaks",
}


class _Config(_Proxy):
    def __getattr__(self, a):
        if a in ("update",):
            return jax.config.update
        if a == "parse_flags_with_absl":
            return lambda: None
        if (
            a == "DEFINE_string"
            or a == "DEFINE_integer"
            or a == "DEFINE_bool"
            or a == "DEFINE_enum"
        ):

            def define(name, default, *args, **kw):
                FLAGS[name] = h = _Holder(name, default)
                return h

            return define
        if a == "bool_env":
            return _bool_env
        if a == "int_env":
            return lambda name, default: int(os.getenv(name, str(default)))
        if a == "_read":
            return lambda name: FLAGS[name].value if name in FLAGS else getattr(jax.config, name)
        if a == "values":
            return jax.config.values
        if a.startswith("jax_"):
            return getattr(jax.config, a)
        if a.startswith("_") or a in ("config",):
            return _Unavail(f"jax._src.config.{a}")
        return _State(_OPTION_NAMES.get(a, "jax_" + a))


# Internal config names whose option is not `jax_<name>` in JAX 0.4.30.
_OPTION_NAMES = {"xla_runtime_errors": "jax_experimental_unsafe_xla_runtime_errors"}


_register("jax._src.config", _Config("jax._src.config"))


# ---------------------------------------------------------------------------------------------
# jax._src.dtypes


def _ml():
    import ml_dtypes

    return ml_dtypes


def _canonicalize_dtype(dtype, allow_extended_dtype=False):
    return jax.dtypes.canonicalize_dtype(dtype, allow_extended_dtype=allow_extended_dtype)


def _is_weakly_typed(x):
    if type(x) in (bool, int, float, complex):
        return True
    return bool(getattr(x, "weak_type", False))


def _to_inexact_dtype(dtype):
    if jnp.issubdtype(dtype, jnp.inexact):
        return np.dtype(dtype)
    with jax.numpy_dtype_promotion("standard"):
        return jnp.promote_types(dtype, jnp.float_)


def _type_promotion_error():
    """The exception class the package raises for a strict-mode promotion error (JAX:
    jax._src.dtypes.TypePromotionError, not exported publicly in 0.4.30)."""
    try:
        with jax.numpy_dtype_promotion("strict"):
            jnp.add(jnp.ones(1, jnp.float32), jnp.ones(1, jnp.int32))
    except Exception as e:
        return type(e)
    return MissingAPI("TypePromotionError (strict promotion raised nothing)")


_register(
    "jax._src.dtypes",
    _Proxy(
        "jax._src.dtypes",
        {
            "python_scalar_dtypes": {
                bool: np.dtype("bool"),
                int: np.dtype("int64"),
                float: np.dtype("float64"),
                complex: np.dtype("complex128"),
            },
            "_default_types": {
                "b": np.bool_,
                "i": np.int64,
                "u": np.uint64,
                "f": np.float64,
                "c": np.complex128,
            },
            "int_": np.int64,
            "uint": np.uint64,
            "float_": np.float64,
            "complex_": np.complex128,
            "bool_": np.bool_,
            "canonicalize_dtype": _canonicalize_dtype,
            "is_weakly_typed": _is_weakly_typed,
            "promote_types": _lazy(lambda: jnp.promote_types),
            "isdtype": _lazy(lambda: jnp.isdtype),
            "to_inexact_dtype": _to_inexact_dtype,
            "bfloat16": _lazy(lambda: _ml().bfloat16),
            "int4": _lazy(lambda: _ml().int4),
            "uint4": _lazy(lambda: _ml().uint4),
            "float8_e4m3b11fnuz": _lazy(lambda: _ml().float8_e4m3b11fnuz),
            "float8_e4m3fn": _lazy(lambda: _ml().float8_e4m3fn),
            "float8_e4m3fnuz": _lazy(lambda: _ml().float8_e4m3fnuz),
            "float8_e5m2": _lazy(lambda: _ml().float8_e5m2),
            "float8_e5m2fnuz": _lazy(lambda: _ml().float8_e5m2fnuz),
            "TypePromotionError": _lazy(lambda: _type_promotion_error()),
        },
        public="jax.dtypes",
    ),
)


# ---------------------------------------------------------------------------------------------
# jax._src.core -> public jax.core (0.4.30 re-exports most of it), errors -> jax.errors

_register(
    "jax._src.core",
    _Proxy(
        "jax._src.core",
        {
            "ConcretizationTypeError": _public("jax.errors", "ConcretizationTypeError"),
            "UnexpectedTracerError": _public("jax.errors", "UnexpectedTracerError"),
            "TracerIntegerConversionError": _public("jax.errors", "TracerIntegerConversionError"),
            "TracerArrayConversionError": _public("jax.errors", "TracerArrayConversionError"),
            "TracerBoolConversionError": _public("jax.errors", "TracerBoolConversionError"),
        },
        public="jax.core",
        deny={
            # internal-only even though jax.core re-exported them in 0.4.30: trace-state machinery
            "thread_local_state",
            "trace_state_clean",
            "extend_axis_env",
            "pytype_aval_mappings",
            "raise_to_shaped_mappings",
            "check_jaxpr",
            "JaxprTypeError",
            "subjaxprs",
            "lattice_join",
            "eval_context",
            "call",
            "call_p",
            "physical_aval",
            "primal_dtype_to_tangent_dtype",
            "aval_property",
            "Token",
            "AbstractValue",
            "ConcreteArray",
            "raise_to_shaped",
        },
    ),
)


# ---------------------------------------------------------------------------------------------
# other internal modules with public equivalents

_register("jax._src.api", _Proxy("jax._src.api", {}, public="jax", deny={"xla_computation"}))
_register("jax._src.tree_util", _Proxy("jax._src.tree_util", {}, public="jax.tree_util"))
_register(
    "jax._src.custom_derivatives",
    _Proxy("jax._src.custom_derivatives", {}, public="jax.custom_derivatives"),
)
_register("jax._src.stages", _Proxy("jax._src.stages", {}, public="jax.stages"))
_register(
    "jax._src.checkify",
    _Proxy("jax._src.checkify", {}, public="jax.experimental.checkify", deny={"ErrorEffect"}),
)
_register("jax._src.lax.linalg", _Proxy("jax._src.lax.linalg", {}, public="jax.lax.linalg"))
_register(
    "jax._src.array",
    _Proxy(
        "jax._src.array",
        {
            "ArrayImpl": _lazy(lambda: jax.Array),
            "make_array_from_callback": _public("jax", "make_array_from_callback"),
        },
    ),
)
_register(
    "jax._src.debugging",
    _Proxy(
        "jax._src.debugging",
        {
            "debug_print": _public("jax.debug", "print"),
            "debug_callback": _public("jax.debug", "callback"),
            "visualize_sharding": _public("jax.debug", "visualize_array_sharding"),
            "inspect_array_sharding": _public("jax.debug", "inspect_array_sharding"),
        },
    ),
)
_register(
    "jax._src.ad_checkpoint",
    _Proxy(
        "jax._src.ad_checkpoint",
        {
            "checkpoint": _public("jax", "checkpoint"),
            "checkpoint_name": _public("jax.ad_checkpoint", "checkpoint_name"),
            "everything_saveable": _lazy(lambda: jax.checkpoint_policies.everything_saveable),
            "nothing_saveable": _lazy(lambda: jax.checkpoint_policies.nothing_saveable),
            "save_any_names_but_these": _lazy(
                lambda: jax.checkpoint_policies.save_any_names_but_these
            ),
        },
    ),
)


def _safe_map(f, *args):
    args = list(map(list, args))
    n = len(args[0])
    for arg in args[1:]:
        assert len(arg) == n, f"length mismatch: {list(map(len, args))}"
    return list(map(f, *args))


def _safe_zip(*args):
    args = list(map(list, args))
    n = len(args[0])
    for arg in args[1:]:
        assert len(arg) == n, f"length mismatch: {list(map(len, args))}"
    return list(zip(*args, strict=False))


def unzip2(xys):
    xs, ys = [], []
    for x, y in xys:
        xs.append(x)
        ys.append(y)
    return tuple(xs), tuple(ys)


def _unzip3(xyzs):
    xs, ys, zs = [], [], []
    for x, y, z in xyzs:
        xs.append(x)
        ys.append(y)
        zs.append(z)
    return tuple(xs), tuple(ys), tuple(zs)


_ComplexWarning = getattr(getattr(np, "exceptions", np), "ComplexWarning", None)
_register(
    "jax._src.util",
    _Proxy(
        "jax._src.util",
        {
            "safe_map": _safe_map,
            "safe_zip": _safe_zip,
            "unzip2": unzip2,
            "unzip3": _unzip3,
            "NumpyComplexWarning": _ComplexWarning,
        },
    ),
)


class _XlaRuntimeErrorStandIn(Exception):
    pass


def _jax_runtime_error():
    # JAX 0.4.30 exports the class as jax.lib.xla_extension.XlaRuntimeError (later versions
    # also as jax.errors.JaxRuntimeError).
    e = getattr(jax.errors, "JaxRuntimeError", None)
    if e is None:
        e = getattr(getattr(getattr(jax, "lib", None), "xla_extension", None),
                    "XlaRuntimeError", None)
    return e if e is not None else MissingAPI("jax.lib.xla_extension.XlaRuntimeError")


_register(
    "jax._src.lib.xla_extension",
    _Proxy("jax._src.lib.xla_extension", {"XlaRuntimeError": _lazy(_jax_runtime_error)}),
)
_register(
    "jax._src.lib",
    _Proxy(
        "jax._src.lib",
        {
            "xla_extension_version": 271,  # jaxlib 0.4.30's value; tests branch on it
            "version_str": "0.4.30",
            "version": (0, 4, 30),
            "xla_extension": _mod("jax._src.lib.xla_extension"),
            # lax.fft's transform kinds, public as jax.lib.xla_client.FftType
            "xla_client": _Proxy(
                "jax._src.lib.xla_client",
                {"FftType": _lazy(lambda: _guard_from("jax.lib", "xla_client").FftType)},
            ),
        },
    ),
)
_MODULES["jax._src.lib.xla_extension_version"] = 271
_register(
    "jax._src.cloud_tpu_init", _Proxy("jax._src.cloud_tpu_init", {"running_in_cloud_tpu_vm": False})
)


class _Backend:
    @property
    def platform(self):
        return jax.default_backend()

    platform_version = "<unknown>"

    def __getattr__(self, a):
        return _Unavail(f"xla_bridge.get_backend().{a}")


class _GetBackend:
    def cache_clear(self):
        pass

    def __call__(self, *a, **k):
        return _Backend()


_register(
    "jax._src.xla_bridge",
    _Proxy(
        "jax._src.xla_bridge",
        {
            "using_pjrt_c_api": lambda: False,
            "backend_pjrt_c_api_version": lambda *a, **k: None,
            "get_backend": _GetBackend(),
        },
    ),
)


class _RuntimeTokens:
    def clear(self):
        jax.effects_barrier()


class _CacheInfo:
    misses = 0
    hits = 0


class _NeutralCache:
    def cache_clear(self):
        pass

    def cache_info(self):
        return _CacheInfo()


_register(
    "jax._src.dispatch",
    _Proxy(
        "jax._src.dispatch",
        {
            "runtime_tokens": _RuntimeTokens(),
            # jtu._CompileAndCheck compares two readings of this cache: a constant makes it neutral.
            "xla_primitive_callable": _NeutralCache(),
        },
    ),
)
_register(
    "jax._src.lax.control_flow",
    _Proxy(
        "jax._src.lax.control_flow",
        {
            "_initial_style_open_jaxpr": _NeutralCache(),
            "_initial_style_jaxpr": _NeutralCache(),
            "_initial_style_jaxprs_with_common_consts": _NeutralCache(),
        },
    ),
)
_register(
    "jax._src.interpreters.mlir",
    _Proxy(
        "jax._src.interpreters.mlir", {"_platforms_with_donation": ["cpu", "cuda", "rocm", "tpu"]}
    ),
)


def _promote_dtypes(*args):
    """jax._src.numpy.util.promote_dtypes, through public API only (weak types dropped). JAX uses
    the standard lattice here whatever jax_numpy_dtype_promotion says, hence the context."""
    if len(args) < 2:
        return [jnp.asarray(a) for a in args]
    with jax.numpy_dtype_promotion("standard"):
        dt = jnp.result_type(*args)
    return [jnp.asarray(a, dtype=dt) for a in args]


def _promote_dtypes_inexact(*args):
    with jax.numpy_dtype_promotion("standard"):
        dt = jnp.result_type(*args)
        if not jnp.issubdtype(dt, jnp.inexact):
            dt = jnp.promote_types(dt, jnp.float_)  # default float, as jax does
    dt = jax.dtypes.canonicalize_dtype(dt)
    return [jnp.asarray(a, dtype=dt) for a in args]


_register(
    "jax._src.numpy.util",
    _Proxy(
        "jax._src.numpy.util",
        {"promote_dtypes": _promote_dtypes, "promote_dtypes_inexact": _promote_dtypes_inexact},
    ),
)


class _PrngImplStub(_Unavail):
    pass


_register(
    "jax._src.prng",
    _Proxy(
        "jax._src.prng",
        {
            # random_test parametrizes over the names; the impl objects themselves are internal.
            "prngs": {
                "threefry2x32": _PrngImplStub("prng.threefry_prng_impl"),
                "rbg": _PrngImplStub("prng.rbg_prng_impl"),
                "unsafe_rbg": _PrngImplStub("prng.unsafe_rbg_prng_impl"),
            },
        },
    ),
)


def _hcb_get(a):
    from jax.experimental import host_callback as h

    return getattr(h, a)


class _Legacy:
    @property
    def value(self):
        return bool(getattr(jax.config, "jax_host_callback_legacy", True))


class _HcbProxy(_Proxy):
    def __getattr__(self, a):
        if a == "_HOST_CALLBACK_LEGACY":
            return _Legacy()
        if a.startswith("_"):
            return _Unavail(f"jax.experimental.host_callback.{a}")
        try:
            return _hcb_get(a)
        except (ImportError, AttributeError):
            return MissingAPI(f"jax.experimental.host_callback.{a}")


def _hcb_deprecated_id_print():
    """`from jax.experimental.host_callback import _deprecated_id_print`: id_print without the
    deprecation warning; falls back to the public `id_print` if the private name is absent."""
    try:
        from jax.experimental import host_callback as h
    except ImportError:
        return MissingAPI("jax.experimental.host_callback")
    f = h.__dict__.get("_deprecated_id_print")
    if f is not None:
        return f
    import warnings

    with warnings.catch_warnings():  # reading id_print warns (as in JAX); this read is ours
        warnings.simplefilter("ignore", DeprecationWarning)
        return getattr(h, "id_print", None) or MissingAPI("jax.experimental.host_callback.id_print")


def _hcb_bind():
    """`from jax.experimental import host_callback as hcb`: import it now (as the original import
    did: it defines config options, and jtu checks that no test changes the set of options), and
    hand out the proxy that keeps private attributes internal."""
    try:
        import jax.experimental.host_callback  # noqa: F401
    except ImportError:
        pass
    return hcb_public


hcb_public = _register(
    "jax.experimental.host_callback(public)", _HcbProxy("jax.experimental.host_callback")
)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Unavail(name)
