"""The persistent compilation cache: jit programs' generated code kept on disk across processes.

A jitted program's compile is trace -> lower (passes, code generation) -> compile (the
generated source to a code object). With `jax_compilation_cache_dir` set, the lowered and
compiled result is written to that directory after a miss, and a later process that traces
the same program reads it back instead of lowering and compiling (tracing still runs, as it
does in JAX). An entry is one file, `jit_<name>-<sha256>`, written to a temporary file and
renamed into place, holding a NumPy `.npz` archive (never a pickle):

- `meta`: JSON: the key, the generated source, how to remake each global the source reads
  (arrays by index, NumPy and numjax functions by module and name, kernels by primitive name,
  input avals and params), the output avals and the inputs an output may alias;
- `code`: the marshalled code object of the source (the key holds Python's bytecode magic);
- `a0`, `a1`, ...: the program's constants and literals.

The key is a SHA-256 of the traced program (every equation, its params and avals, nested
jaxprs, the constants' bytes), the donated inputs, every option that changes tracing or code
(`config.trace_context()`: x64, default matmul precision, debug_nans/infs, the native tier
mode, ...), numjax's version, NumPy's major version and Python's version. A program that
cannot be keyed or stored soundly is simply not cached: one with a primitive numjax does not
define (its name means nothing in another process), a host callback or any other Python
object in its params, or a global the loader could not remake.

As in JAX 0.4.30, the options are read when the cache is first used (the first jit compile);
`reset_cache()` makes later changes take effect. Entries are written only when lowering and
compiling took at least `jax_persistent_cache_min_compile_time_secs` and the entry has at least
`jax_persistent_cache_min_entry_size_bytes`; `jax_compilation_cache_max_size` bounds the
directory (least recently used entries deleted first). A corrupt or foreign entry is a miss
with a warning (`jax_raise_persistent_cache_errors`: an error).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import importlib
import importlib.util
import io
import json
import logging
import marshal
import os
import re
import sys
import threading
import types
import warnings
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

from numjax._src import config
from numjax._src.compiler.codegen import LoweredModule
from numjax._src.core import trace as core_trace
from numjax._src.core.avals import ShapedArray
from numjax._src.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var
from numjax._src.runtime.array import ArrayImpl

# JAX's loggers: `jax._src.compiler` logs hits and skipped writes, `jax._src.compilation_cache`
# logs writes.
logger = logging.getLogger("numjax._src.compiler")
cache_logger = logging.getLogger("numjax._src.compilation_cache")

# Bumped whenever an entry's layout or what it means changes.
FORMAT = 1

_lock = threading.Lock()
_initialized = False
_path: str | None = None

# Hits, misses and writes of this process (read by tests and benchmarks).
stats = {"hits": 0, "misses": 0, "writes": 0}


class Uncacheable(Exception):
    """A program the persistent cache cannot key or store soundly (it is compiled as usual)."""


# ---- the public functions (numjax.experimental.compilation_cache.compilation_cache) ----------

def set_cache_dir(path: Any) -> None:
    """Set the persistent compilation cache's directory (`jax_compilation_cache_dir`).

    >>> from numjax.experimental.compilation_cache import compilation_cache as cc
    >>> cc.set_cache_dir(None)
    """
    config.config.update("jax_compilation_cache_dir", path)


def initialize_cache(path: Any) -> None:
    """Deprecated form of `set_cache_dir`."""
    warnings.warn("initialize_cache is deprecated; use set_cache_dir instead",
                  DeprecationWarning, stacklevel=2)
    config.config.update("jax_compilation_cache_dir", path)


def is_initialized() -> bool:
    """Deprecated: whether the cache is enabled (`jax_enable_compilation_cache`)."""
    warnings.warn("is_initialized is deprecated; do not use", DeprecationWarning, stacklevel=2)
    return bool(config.enable_compilation_cache.value)


def reset_cache() -> None:
    """Forget the cache's state, so its options are read again at the next compile.

    >>> from numjax.experimental.compilation_cache import compilation_cache as cc
    >>> cc.reset_cache()
    """
    global _initialized, _path
    cache_logger.info("Resetting cache at %s.", _path if _path is not None else "<empty>")
    with _lock:
        _initialized = False
        _path = None


def directory() -> str | None:
    """The cache's directory, or None when the cache is off. The options are read once, at
    the first call (JAX reads them at its first compile)."""
    global _initialized, _path
    if _initialized:
        return _path
    with _lock:
        if _initialized:
            return _path
        _initialized = True
        if not config.enable_compilation_cache.value:
            logger.debug("_initialize_cache: cache is disabled!")
            return None
        path = config.compilation_cache_dir.value
        if not path or config.compilation_cache_max_size.value == 0:
            return None
        os.makedirs(path, exist_ok=True)
        _path = str(path)
        cache_logger.debug("Initialized persistent compilation cache at %s", _path)
        return _path


def module_name(name: str) -> str:
    """JAX's name of a jitted function's module: `jit_f`, `jit__lambda_`."""
    return "jit_" + re.sub(r"[^0-9A-Za-z_]", "_", name)


# ---- keys --------------------------------------------------------------------------------------

def key(closed: ClosedJaxpr, name: str, donated: Sequence[bool]) -> str:
    """The entry name of a traced program: `jit_<name>-<sha256>`. Raises Uncacheable."""
    digest = hashlib.sha256()
    numjax = sys.modules.get("numjax")
    header = [
        f"numjax persistent cache {FORMAT}",
        str(getattr(numjax, "__version__", "?")),
        f"numpy {np.__version__.split('.')[0]}",
        f"python {sys.implementation.name} {sys.version_info[:2]}",
        importlib.util.MAGIC_NUMBER.hex(),
        repr(tuple(bool(d) for d in donated)),
        repr(tuple(zip(config.trace_context_names(), map(repr, config.trace_context()),
                       strict=True))),
    ]
    digest.update("\n".join(header).encode())
    metadata = bool(config.compilation_cache_include_metadata_in_key.value
                    or config.debug_nans.value or config.debug_infs.value)
    parts: list[str] = []
    _fingerprint(closed.jaxpr, closed.consts, parts, digest, metadata)
    digest.update("\n".join(parts).encode())
    return f"{module_name(name)}-{digest.hexdigest()}"


_aval_texts: dict[Any, str] = {}


def _aval_text(aval: Any) -> str:
    text = _aval_texts.get(aval)
    if text is None:
        if type(aval) is ShapedArray:
            text = f"{aval.dtype.str}{aval.dtype.name}{list(aval.shape)}{'w' * aval.weak_type}"
        else:
            text = _object_text(aval)
        _aval_texts[aval] = text
    return text


def _object_text(value: Any) -> str:
    text = repr(value)
    if " at 0x" in text or " object at " in text:
        # An object printed by identity: the same text may name another object in another
        # process (a callback, a Python function in a custom rule).
        raise Uncacheable(f"a {type(value).__name__} in the program")
    if "..." in text:  # a summary (NumPy elides large arrays), not the value
        raise Uncacheable(f"a {type(value).__name__} printed in part")
    return text


def _fingerprint(jaxpr: Jaxpr, consts: Sequence[Any], parts: list[str], digest: Any,
                 metadata: bool) -> None:
    """Append a text of `jaxpr` to `parts` (equations, params, avals; variables numbered
    in order) and hash its constants' bytes into `digest`."""
    names: dict[Any, int] = {}
    for v in [*jaxpr.constvars, *jaxpr.invars]:
        names[v] = len(names)
    parts.append(f"{{ {len(jaxpr.constvars)} {len(jaxpr.invars)} "
                 + " ".join(_aval_text(v.aval) for v in [*jaxpr.constvars, *jaxpr.invars]))
    for c in consts:
        _hash_array(digest, _host_array(c))

    def atom(a: Any) -> str:
        if isinstance(a, Literal):
            return f"L{a.val!r}:{_aval_text(a.aval)}"
        return str(names[a])

    for eqn in jaxpr.eqns:
        primitive = eqn.primitive
        if not primitive.defined_in.startswith("numjax."):
            raise Uncacheable(f"primitive {primitive.name} is not numjax's")
        outs = []
        for v in eqn.outvars:
            if isinstance(v, DropVar):
                outs.append("_" + _aval_text(v.aval))
            else:
                names[v] = len(names)
                outs.append(_aval_text(v.aval))
        parts.append(f"{primitive.name} {' '.join(map(atom, eqn.invars))} -> {' '.join(outs)}")
        ignored = primitive.uncompiled_params
        for k in sorted(eqn.params):
            parts.append(f" {k}=")
            if k not in ignored:
                _param_text(eqn.params[k], parts, digest, metadata)
        if eqn.effects:
            parts.append(" effects=" + " ".join(sorted(map(_object_text, eqn.effects))))
        if metadata and eqn.source_info is not None:
            parts.append(f" @{eqn.source_info}")
    parts.append("-> " + " ".join(map(atom, jaxpr.outvars)) + " }")


def _param_text(value: Any, parts: list[str], digest: Any, metadata: bool) -> None:
    if isinstance(value, ClosedJaxpr):
        _fingerprint(value.jaxpr, value.consts, parts, digest, metadata)
    elif isinstance(value, Jaxpr):
        _fingerprint(value, (), parts, digest, metadata)
    elif type(value) in (tuple, list):
        parts.append("(")
        for item in value:
            _param_text(item, parts, digest, metadata)
            parts.append(",")
        parts.append(")")
    elif isinstance(value, np.ndarray | ArrayImpl):
        parts.append("array")
        _hash_array(digest, _host_array(value))
    else:
        parts.append(_object_text(value))


def _host_array(value: Any) -> np.ndarray:
    buf = getattr(value, "_buf", None)
    return np.asarray(value if buf is None else buf)


def _hash_array(digest: Any, array: np.ndarray) -> None:
    if array.dtype.hasobject:
        raise Uncacheable("an object array in the program")
    digest.update(f"{array.dtype.str}{array.dtype.name}{array.shape}".encode())
    # As bytes: the buffer protocol has no format for bfloat16 and its kin.
    digest.update(np.ascontiguousarray(array).reshape(-1).view(np.uint8).data)


# ---- the globals of generated code, as data -----------------------------------------------------

# Modules whose functions and classes an entry may name; nothing else is ever imported.
_TRUSTED = re.compile(r"^(numjax|numpy|ml_dtypes)(\.|$)|^(math|operator|builtins)$")


def _ref(value: Any) -> list[str]:
    """[module, qualified name] of a function or class importable by them (and only them)."""
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) \
            or not _TRUSTED.match(module) or "<" in qualname:
        raise Uncacheable(f"a global {value!r} that cannot be imported by name")
    try:
        found = _resolve([module, qualname])
    except Exception as error:
        raise Uncacheable(f"a global {value!r} that cannot be imported by name") from error
    if found is not value:
        raise Uncacheable(f"a global {value!r} that cannot be imported by name")
    return [module, qualname]


def _resolve(ref: Sequence[str]) -> Any:
    module, qualname = ref
    if not _TRUSTED.match(module):
        raise ValueError(f"an entry names module {module!r}, which the cache never imports")
    value: Any = importlib.import_module(module)
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def _dtype(name: str) -> np.dtype[Any]:
    dtype: np.dtype[Any]
    try:
        dtype = np.dtype(name)
    except TypeError:  # bfloat16 and the float8 types have no NumPy name
        dtype = np.dtype(getattr(ml_dtypes, name))
    return dtype


class _Encoder:
    """Globals to JSON-able recipes; arrays go to a list stored beside them."""

    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []

    def array(self, value: Any) -> list[Any]:
        """[index, dtype name]: the array is stored as raw unsigned integers of its item size
        (the .npy format has no name for bfloat16 and the other ml_dtypes types)."""
        array = np.asarray(value)
        if array.dtype.hasobject or array.dtype.itemsize not in (1, 2, 4, 8, 16):
            raise Uncacheable(f"an array of dtype {array.dtype}")
        if _dtype(array.dtype.name) != array.dtype:
            raise Uncacheable(f"dtype {array.dtype}")
        # (Not np.ascontiguousarray, which makes a 0-d array 1-d.)
        raw = array if array.flags.c_contiguous else np.array(array, order="C")
        if array.dtype.itemsize == 16:
            raw = raw.reshape(array.shape + (1,)).view(np.uint64)
        else:
            raw = raw.view(f"u{array.dtype.itemsize}")
        self.arrays.append(raw)
        return [len(self.arrays) - 1, array.dtype.name]

    def value(self, value: Any) -> Any:  # noqa: C901
        kind = type(value)
        if value is None or kind in (bool, int, str):
            return value
        if kind is float:
            return {"float": float.hex(value)}  # exact, and nan/inf survive JSON
        if kind is complex:
            return {"complex": [float.hex(value.real), float.hex(value.imag)]}
        if value is np:
            return {"numpy": 1}
        if kind is np.ndarray:
            return {"array": self.array(value)}
        if kind is ArrayImpl:
            return {"array": self.array(_host_array(value))}
        if isinstance(value, np.generic):
            return {"scalar": self.array(value)}
        if isinstance(value, np.dtype):
            if _dtype(value.name) != value:
                raise Uncacheable(f"dtype {value}")
            return {"dtype": value.name}
        if kind is ShapedArray:
            return {"aval": [list(value.shape), self.value(value.dtype), value.weak_type]}
        if kind is ClosedJaxpr:
            return {"closed_jaxpr": [self.jaxpr(value.jaxpr),
                                     [self.value(_host_array(c)) for c in value.consts]]}
        if kind is Jaxpr:
            return {"jaxpr": self.jaxpr(value)}
        if kind in (tuple, list):
            return {kind.__name__: [self.value(v) for v in value]}
        if kind is dict:
            return {"dict": [[self.value(k), self.value(v)] for k, v in value.items()]}
        if isinstance(value, np.ufunc):
            ufunc_name = str(value.__name__)
            if getattr(np, ufunc_name, None) is not value:
                raise Uncacheable(f"ufunc {value!r}")
            return {"ufunc": ufunc_name}
        if isinstance(value, enum.Enum):
            return {"enum": [_ref(kind), value.name]}
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return {"namedtuple": [_ref(kind), [self.value(v) for v in value]]}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {"dataclass": [_ref(kind), [[f.name, self.value(getattr(value, f.name))]
                                               for f in dataclasses.fields(value) if f.init]]}
        if isinstance(value, type) or callable(value):
            return {"ref": _ref(value)}
        raise Uncacheable(f"a global of type {kind.__name__}")

    def params(self, primitive: Any, params: dict[str, Any]) -> Any:
        """A primitive's params; those compiled code never reads (a custom_jvp_call's jvp
        rule) are left out, and are None when read back."""
        if _primitive_or_none(primitive.name) is not primitive:
            raise Uncacheable(f"primitive {primitive.name} is not numjax's")
        ignored = primitive.uncompiled_params
        return self.value({k: None if k in ignored else v for k, v in params.items()})

    def jaxpr(self, jaxpr: Jaxpr) -> Any:
        """A jaxpr a kernel evaluates (a custom_jvp_call's call_jaxpr): variables numbered in
        order of definition, primitives by name, no source locations. Effects are refused."""
        if jaxpr.effects:
            raise Uncacheable("a jaxpr with effects in a kernel's params")
        names: dict[Any, int] = {}

        def define(v: Any) -> Any:
            names[v] = len(names)
            return self.value(v.aval)

        def atom(a: Any) -> Any:
            if isinstance(a, Literal):
                return {"literal": [self.value(a.val), self.value(a.aval)]}
            return names[a]

        constvars = [define(v) for v in jaxpr.constvars]
        invars = [define(v) for v in jaxpr.invars]
        eqns = []
        for eqn in jaxpr.eqns:
            if eqn.effects:
                raise Uncacheable("a jaxpr with effects in a kernel's params")
            ins = [atom(a) for a in eqn.invars]
            outs = [[True, self.value(v.aval)] if isinstance(v, DropVar) else [False, define(v)]
                    for v in eqn.outvars]
            eqns.append([eqn.primitive.name, ins, outs, self.params(eqn.primitive, eqn.params)])
        return [constvars, invars, eqns, [atom(a) for a in jaxpr.outvars]]


def _decode_jaxpr(data: Any, arrays: Any) -> Jaxpr:
    constvars_data, invars_data, eqns_data, outvars_data = data
    defined: list[Var] = []

    def define(aval: Any) -> Var:
        v = Var(_decode(aval, arrays))
        defined.append(v)
        return v

    def atom(a: Any) -> Any:
        if isinstance(a, dict):
            val, aval = a["literal"]
            return Literal(_decode(val, arrays), _decode(aval, arrays))
        return defined[a]

    constvars = [define(a) for a in constvars_data]
    invars = [define(a) for a in invars_data]
    eqns = []
    for prim_name, ins, outs, params in eqns_data:
        invars_e = [atom(a) for a in ins]
        outvars_e = [DropVar(_decode(aval, arrays)) if drop else define(aval)
                     for drop, aval in outs]
        eqns.append(JaxprEqn(invars_e, outvars_e, _primitive(prim_name),
                             _decode(params, arrays)))
    return Jaxpr(constvars, invars, [atom(a) for a in outvars_data], eqns)


def _decode(recipe: Any, arrays: Any) -> Any:  # noqa: C901
    if recipe is None or type(recipe) in (bool, int, str):
        return recipe
    (kind, data), = recipe.items()
    if kind == "float":
        return float.fromhex(data)
    if kind == "complex":
        return complex(float.fromhex(data[0]), float.fromhex(data[1]))
    if kind == "numpy":
        return np
    if kind in ("array", "scalar"):
        index, dtype_name = data
        raw = arrays[f"a{index}"]
        dtype = _dtype(dtype_name)
        array = raw.view(dtype)
        if dtype.itemsize == 16:
            array = array.reshape(raw.shape[:-1])
        return array[()] if kind == "scalar" else array
    if kind == "dtype":
        return _dtype(data)
    if kind == "aval":
        return ShapedArray(tuple(data[0]), _decode(data[1], arrays), data[2])
    if kind == "closed_jaxpr":
        return ClosedJaxpr(_decode_jaxpr(data[0], arrays), [_decode(c, arrays) for c in data[1]])
    if kind == "jaxpr":
        return _decode_jaxpr(data, arrays)
    if kind == "tuple":
        return tuple(_decode(v, arrays) for v in data)
    if kind == "list":
        return [_decode(v, arrays) for v in data]
    if kind == "dict":
        return {_decode(k, arrays): _decode(v, arrays) for k, v in data}
    if kind == "ufunc":
        ufunc = getattr(np, data)
        if not isinstance(ufunc, np.ufunc):
            raise ValueError(f"np.{data} is not a ufunc")
        return ufunc
    if kind == "enum":
        cls = _resolve(data[0])
        if not (isinstance(cls, type) and issubclass(cls, enum.Enum)):
            raise ValueError(f"{data[0]} is not an enum")
        return cls[data[1]]
    if kind == "namedtuple":
        cls = _resolve(data[0])
        if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
            raise ValueError(f"{data[0]} is not a named tuple")
        return cls(*(_decode(v, arrays) for v in data[1]))
    if kind == "dataclass":
        cls = _resolve(data[0])
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            raise ValueError(f"{data[0]} is not a dataclass")
        return cls(**{name: _decode(v, arrays) for name, v in data[1]})
    if kind == "ref":
        return _resolve(data)
    raise ValueError(f"unknown global recipe {kind!r}")


_by_name: dict[str, Any] = {}
_by_name_count = -1


def _primitive(name: str) -> Any:
    """numjax's one primitive of that name (the table is rebuilt when primitives are added)."""
    global _by_name_count
    if _by_name_count != len(core_trace.primitives):
        table: dict[str, Any] = {}
        for p in core_trace.primitives:
            if p.defined_in.startswith("numjax."):
                table[p.name] = None if p.name in table else p  # None: ambiguous
        _by_name.clear()
        _by_name.update(table)
        _by_name_count = len(core_trace.primitives)
    found = _by_name.get(name)
    if found is None:
        raise ValueError(f"no single numjax primitive named {name!r}")
    return found


def _primitive_or_none(name: str) -> Any:
    try:
        return _primitive(name)
    except ValueError:
        return None


# ---- reading and writing entries ----------------------------------------------------------------

_ENTRY = re.compile(r"^jit_\w*-[0-9a-f]{64}$")


class Pending:
    """A miss's key and lowering time, kept on its module until its compile writes the entry."""

    __slots__ = ("key", "lower_seconds")

    def __init__(self, key: str, lower_seconds: float = 0.0) -> None:
        self.key = key
        self.lower_seconds = lower_seconds


def lookup(closed: ClosedJaxpr, name: str, donated: Sequence[bool]
           ) -> tuple[LoweredModule | None, Pending | None]:
    """(the cached module of this traced program, None) on a hit; (None, what writing its
    entry needs) on a miss; (None, None) when the cache is off or the program uncacheable."""
    try:
        path = directory()
    except Exception as error:  # the directory cannot be made: off for this process (as JAX)
        _read_error(name, error)
        return None, None
    if path is None:
        return None, None
    try:
        entry = key(closed, name, donated)
    except Uncacheable as reason:
        logger.debug("Not using the persistent compilation cache for '%s': %s",
                     module_name(name), reason)
        return None, None
    try:
        module = _read(os.path.join(path, entry), entry, name)
    except Exception as error:
        _read_error(name, error)
        module = None
    if module is None:
        stats["misses"] += 1
        return None, Pending(entry)
    stats["hits"] += 1
    logger.debug("Persistent compilation cache hit for '%s'", module_name(name))
    return module, None


def _read_error(name: str, error: Exception) -> None:
    if config.raise_persistent_cache_errors.value:
        raise error
    warnings.warn(f"Error reading persistent compilation cache entry for "
                  f"'{module_name(name)}': {type(error).__name__}: {error}", stacklevel=3)


def _read(file: str, entry: str, name: str) -> LoweredModule | None:
    try:
        with open(file, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    if not data.startswith(b"PK"):
        raise ValueError(f"the file {os.path.basename(file)} is not a cache entry (not an "
                         ".npz archive)")
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        meta = json.loads(archive["meta"].tobytes())
        if meta.get("format") != FORMAT or meta.get("key") != entry:
            raise ValueError(f"the file {os.path.basename(file)} holds another entry "
                             f"(format {meta.get('format')!r}, key {meta.get('key')!r})")
        code = marshal.loads(archive["code"].tobytes())
        if not isinstance(code, types.CodeType):
            raise ValueError("the entry's code is not a code object")
        arrays = {k: archive[k] for k in archive.files if k not in ("meta", "code")}
    env: dict[str, Any] = {}
    for global_name, recipe in meta["globals"].items():
        if isinstance(recipe, dict) and "kernel" in recipe:
            prim_name, in_avals, params = recipe["kernel"]
            env[global_name] = _primitive(prim_name).kernel_for(
                _decode(in_avals, arrays), _decode(params, arrays))
        elif isinstance(recipe, dict) and "lowering" in recipe:
            env[global_name] = _primitive(recipe["lowering"]).lowering.ufunc
        else:
            env[global_name] = _decode(recipe, arrays)
    try:
        os.utime(file)  # the least recently used entries go first
    except OSError:
        pass
    return LoweredModule.restored(name, meta["source"], env, _decode(meta["out_avals"], arrays),
                                  tuple(meta["aliased"]), code)


def write(module: LoweredModule, compile_seconds: float) -> None:
    """Write `module`'s entry after its compile, if the thresholds allow; never raises unless
    `jax_raise_persistent_cache_errors`."""
    pending, module.persist = module.persist, None
    path = directory()
    if pending is None or path is None or module.code is None:
        return
    mname = module_name(module.name)
    seconds = pending.lower_seconds + compile_seconds
    min_seconds = config.persistent_cache_min_compile_time_secs.value
    if seconds < min_seconds:
        logger.debug("Not writing persistent cache entry for '%s' because it took < %.2f "
                     "seconds to compile (%.2fs)", mname, min_seconds, seconds)
        return
    logger.debug("'%s' took at least %.2f seconds to compile (%.2fs)", mname, min_seconds,
                 seconds)
    try:
        data = _entry(module, pending.key)
    except Uncacheable as reason:
        logger.debug("Not writing persistent cache entry for '%s': %s", mname, reason)
        return
    try:
        min_size = config.persistent_cache_min_entry_size_bytes.value
        if len(data) < min_size:
            cache_logger.info("Not writing cache entry with key %s since its size (%d bytes) is "
                              "less than threshold (%d bytes)", pending.key, len(data), min_size)
            return
        cache_logger.info("Writing %s to persistent compilation cache with key %s.", mname,
                          pending.key)
        target = os.path.join(path, pending.key)
        tmp = f"{target}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, target)  # readers see the whole entry or none
        stats["writes"] += 1
        _evict(path)
    except Exception as error:
        if config.raise_persistent_cache_errors.value:
            raise
        warnings.warn(f"Error writing persistent compilation cache entry for '{mname}': "
                      f"{type(error).__name__}: {error}", stacklevel=2)


def _entry(module: LoweredModule, entry: str) -> bytes:
    encoder = _Encoder()
    recipes: dict[str, Any] = {}
    for global_name, value in module.env.items():
        kernel = module.kernels.get(global_name)
        if kernel is not None:
            primitive, in_avals, params = kernel
            if in_avals is None:
                encoder.params(primitive, {})  # numjax's own primitive
                recipes[global_name] = {"lowering": primitive.name}
            else:
                recipes[global_name] = {"kernel": [primitive.name, encoder.value(list(in_avals)),
                                                   encoder.params(primitive, params)]}
        else:
            recipes[global_name] = encoder.value(value)
    meta = {"format": FORMAT, "key": entry, "source": module.source, "globals": recipes,
            "out_avals": encoder.value(list(module.out_avals)),
            "aliased": list(module.aliased_inputs)}
    arrays: dict[str, Any] = {f"a{i}": a for i, a in enumerate(encoder.arrays)}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    arrays["code"] = np.frombuffer(marshal.dumps(module.code), np.uint8)
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def _evict(path: str) -> None:
    """Delete the least recently used entries while the directory holds more than
    `jax_compilation_cache_max_size` bytes of them."""
    limit = config.compilation_cache_max_size.value
    if limit is None or limit < 0:
        return
    entries = []
    for name in os.listdir(path):
        if _ENTRY.match(name):
            stat = os.stat(os.path.join(path, name))
            entries.append((stat.st_mtime, stat.st_size, name))
    total = sum(size for _, size, _ in entries)
    for _, size, name in sorted(entries):
        if total <= limit:
            break
        try:
            os.remove(os.path.join(path, name))
        except FileNotFoundError:
            pass
        total -= size
