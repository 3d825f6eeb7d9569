"""numjax's dtype system against golden data recorded from JAX 0.4.30.

tests/data/jax_dtypes_golden.json was written by a generator run in a JAX 0.4.30 environment (kept
outside the repository): the promotion of every pair of lattice nodes under each configuration,
jnp.promote_types, weakly typed values of every dtype, random triples, and cases of dtype(),
canonicalize_dtype, check_user_dtype_supported, scalar_type_of, issubdtype and isdtype. Its
"cells" entry documents the table encoding. The tests rebuild the same inputs and compare.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from numjax import dtypes as public_dtypes
from numjax._src import config, dtypes

GOLDEN = json.loads((Path(__file__).parent.parent / "data" / "jax_dtypes_golden.json").read_text())
NODES: list[str] = GOLDEN["lattice_nodes"]
STRONG = [n for n in NODES if not n.startswith("weak_")]
WEAK_SCALARS = {"weak_int": 1, "weak_float": 1.0, "weak_complex": 1j}
WEAK_TYPES = {"weak_int": int, "weak_float": float, "weak_complex": complex}
CONFIGS: list[str] = GOLDEN["configs"]


class WeakValue:
    """A weakly typed value of any dtype, as numjax arrays carry it (a `weak_type` attribute)."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.weak_type = True
        self.shape = ()


class AvalWeakValue:
    """A weakly typed value that keeps the flag on its aval, as JAX arrays do."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.aval = WeakValue(dtype)


def value(name: str) -> Any:
    """The golden generator's representative of a node name."""
    if name in WEAK_SCALARS:
        return WEAK_SCALARS[name]
    if name == "None":
        return None
    if name.startswith("weak:"):
        return WeakValue(name.removeprefix("weak:"))
    return np.zeros((), dtype=name)


@contextlib.contextmanager
def configured(key: str) -> Iterator[None]:
    """Run under a golden configuration such as "strict/x64"."""
    mode, bits = key.split("/")
    with config.enable_x64(bits == "x64"), config.numpy_dtype_promotion(mode):
        yield


def sorted_nodes(message: str) -> tuple[str, str | None]:
    """The message with its 'Input dtypes (...)' tuple replaced by {dtypes}, and that tuple
    sorted (JAX prints it in set order, so only its contents are comparable)."""
    m = re.search(r"Input dtypes (\(.*?\)) have", message)
    if m is None:
        return message, None
    nodes = str(tuple(sorted(ast.literal_eval(m.group(1)))))
    return message[: m.start(1)] + "{dtypes}" + message[m.end(1) :], nodes


def cell(golden: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """fn(*args, **kwargs)'s outcome in the golden encoding, messages resolved to text (for
    readable diffs) and node tuples included where `golden` records them."""
    try:
        out = fn(*args, **kwargs)
    except Exception as e:  # every outcome, errors included, is compared
        template, nodes = sorted_nodes(str(e))
        with_nodes = golden.count(":") >= 2  # only result_type_pairs records the tuple
        return f"!{type(e).__name__}:{template}" + (f":{nodes}" if with_nodes else "")
    if isinstance(out, tuple):
        return str(out[0]) + ("*" if out[1] else "")
    return str(out)


def resolve(golden: str) -> str:
    """A golden cell with its message index replaced by the message text."""
    if not golden.startswith("!"):
        return golden
    name, index, *nodes = golden.split(":", 2)
    return f"{name}:{GOLDEN['messages'][int(index)]}" + (f":{nodes[0]}" if nodes else "")


# ---- promotion tables -----------------------------------------------------------------------


@pytest.mark.parametrize("key", CONFIGS)
@pytest.mark.parametrize("a", NODES)
def test_result_type_pairs(key: str, a: str) -> None:
    golden = GOLDEN["result_type_pairs"][key][NODES.index(a)]
    with configured(key):
        got = [
            cell(g, dtypes.result_type, value(a), value(b), return_weak_type_flag=True)
            for b, g in zip(NODES, golden, strict=True)
        ]
    assert got == [resolve(g) for g in golden]


@pytest.mark.parametrize("key", CONFIGS)
@pytest.mark.parametrize("a", NODES)
def test_promote_types_pairs(key: str, a: str) -> None:
    golden = GOLDEN["promote_types_pairs"][key][NODES.index(a)]

    def as_type(name: str) -> Any:
        return WEAK_TYPES.get(name) or np.dtype(name)

    with configured(key):
        got = [
            cell(g, dtypes.promote_types, as_type(a), as_type(b))
            for b, g in zip(NODES, golden, strict=True)
        ]
    assert got == [resolve(g) for g in golden]


# JAX 0.4.30 raises KeyError('V') for a lone weakly typed int4/uint4 (ml_dtypes gives them kind
# "V", which its weak-default table lacks); numjax gives the default int/uint, as for every other
# integer width.
WEAK_VALUE_DEVIATIONS = {("int4", "alone"): "int{bits}*", ("uint4", "alone"): "uint{bits}*"}


@pytest.mark.parametrize("key", CONFIGS)
@pytest.mark.parametrize("w", STRONG)
def test_result_type_weak_values(key: str, w: str) -> None:
    golden = GOLDEN["result_type_weak_values"][key][STRONG.index(w)]
    columns = GOLDEN["weak_variant_columns"]
    expected = [resolve(g) for g in golden]
    bits = "64" if key.endswith("x64") else "32"
    for i, b in enumerate(columns):
        if (w, b) in WEAK_VALUE_DEVIATIONS:
            assert golden[i].startswith("!KeyError")
            expected[i] = WEAK_VALUE_DEVIATIONS[w, b].format(bits=bits)
    with configured(key):
        got = [
            cell(
                g,
                dtypes.result_type,
                value("weak:" + w),
                *([] if b == "alone" else [value(b)]),
                return_weak_type_flag=True,
            )
            for b, g in zip(columns, golden, strict=True)
        ]
    assert got == expected


@pytest.mark.parametrize("key", CONFIGS)
def test_result_type_triples(key: str) -> None:
    column = CONFIGS.index(key) + 3
    rows = GOLDEN["result_type_triples"]
    with configured(key):
        got = [
            cell(row[column], dtypes.result_type, *map(value, row[:3]), return_weak_type_flag=True)
            for row in rows
        ]
    assert got == [resolve(row[column]) for row in rows]


@pytest.mark.parametrize("key", CONFIGS)
def test_result_type_of_specs_and_scalars(key: str) -> None:
    column = CONFIGS.index(key) - len(CONFIGS)
    rows = GOLDEN["result_type_exprs"]
    with configured(key):
        got = [
            cell(
                row[column],
                dtypes.result_type,
                *[eval(e, namespace()) for e in row[: -len(CONFIGS)]],
                return_weak_type_flag=True,
            )
            for row in rows
        ]
    assert got == [resolve(row[column]) for row in rows]


def test_weak_type_on_aval_counts() -> None:
    assert dtypes.result_type(AvalWeakValue("int16"), np.uint8(1)) == np.dtype("uint8")
    assert dtypes.is_weakly_typed(AvalWeakValue("float32"))


@pytest.mark.parametrize("name", [n for n in STRONG])
@pytest.mark.parametrize("x64", [False, True])
def test_fast_path_agrees_with_lattice(name: str, x64: bool) -> None:
    dt = np.dtype(name)
    with config.enable_x64(x64):
        assert dtypes._shared_strong_dtype((np.zeros(2, dt), dt, np.zeros((), dt)[()])) is dt
        assert dtypes._lattice_result_type([(dt, False), (dt, False)], "standard") == (dt, False)
        assert dtypes.result_type(np.zeros(2, dt), dt, return_weak_type_flag=True) == (
            dtypes.canonicalize_dtype(dt),
            False,
        )


def test_fast_path_skips_weak_and_mixed_values() -> None:
    f4 = np.dtype("float32")
    assert dtypes._shared_strong_dtype((np.zeros(2, f4), WeakValue(f4))) is None
    assert dtypes._shared_strong_dtype((np.zeros(2, f4), 1.0)) is None
    assert dtypes._shared_strong_dtype((np.zeros(2, f4), np.zeros(2, "f2"))) is None
    assert dtypes.result_type(WeakValue(f4), WeakValue(f4), return_weak_type_flag=True) == (
        f4,
        True,
    )


@given(
    st.lists(
        st.sampled_from(NODES + ["None", "weak:int16", "weak:bfloat16", "weak:uint64"]),
        min_size=1,
        max_size=5,
    ),
    st.randoms(),
    st.sampled_from(CONFIGS),
)
def test_result_type_ignores_argument_order(names: list[str], rnd: Any, key: str) -> None:
    # JAX promotes the *set* of inputs, so any permutation must agree (up to message order).
    shuffled = list(names)
    rnd.shuffle(shuffled)

    def outcome(order: list[str]) -> Any:
        try:
            return dtypes.result_type(*map(value, order), return_weak_type_flag=True)
        except ValueError as e:  # TypePromotionError is a ValueError
            return type(e), sorted_nodes(str(e))

    with configured(key):
        assert outcome(names) == outcome(shuffled)


def test_strict_mode_error() -> None:
    with (
        config.numpy_dtype_promotion("strict"),
        pytest.raises(
            dtypes.TypePromotionError,
            match=re.escape(
                "Input dtypes ('int32', 'float32') have no available implicit dtype "
                "promotion path when jax_numpy_dtype_promotion=strict. Try explicitly "
                "casting inputs to the desired output type, or set "
                "jax_numpy_dtype_promotion=standard."
            ),
        ),
    ):
        dtypes.result_type(np.int32(1), np.float32(1))
    assert issubclass(dtypes.TypePromotionError, ValueError)


def test_result_type_needs_arguments() -> None:
    with pytest.raises(ValueError, match="at least one array or dtype is required"):
        dtypes.result_type()


def test_x64_is_read_per_thread() -> None:
    seen = {}

    def worker() -> None:
        seen["thread"] = dtypes.result_type(1.0)

    with config.enable_x64(True):
        assert dtypes.result_type(1.0) == np.dtype("float64")
        assert dtypes.canonicalize_dtype(np.int64) == np.dtype("int64")
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen["thread"] == np.dtype("float32")  # a new thread sees only the global value
    assert dtypes.canonicalize_dtype(np.int64) == np.dtype("int32")


# ---- dtype(), canonicalization and user dtypes ----------------------------------------------


def namespace() -> dict[str, Any]:
    return {
        "np": np,
        "ml_dtypes": ml_dtypes,
        "float0": dtypes.float0,
        "extended": dtypes.extended,
        "prng_key": dtypes.prng_key,
    }


def run_case(fn: Callable[..., Any], expr: str, *args: Any, **kwargs: Any) -> list[Any]:
    """fn(eval(expr), *args, **kwargs) as recorded: [result, [[warning class, message], ...],
    error class, error message]."""
    err: list[str | None] = [None, None]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(eval(expr, namespace()), *args, **kwargs)
        except Exception as e:  # every outcome, errors included, is compared
            out, err = None, [type(e).__name__, str(e)]
    if isinstance(out, np.dtype):
        out = str(out)
    elif isinstance(out, type):
        out = out.__name__
    return [out, [[w.category.__name__, str(w.message)] for w in caught], *err]


# JAX 0.4.30's dtype() returns np.dtype(x) for any NumPy scalar type before its validity check and
# before canonicalization, so dtype(np.float64, canonicalize=True) is float64 with x64 off and
# dtype(np.str_) is '<U0'. numjax treats scalar types like every other input.
DTYPE_DEVIATIONS: dict[tuple[str, str, bool], list[Any]] = {
    ("standard/x32", "np.float64", True): ["float32", [], None, None],
    ("standard/x32", "np.uint64", True): ["uint32", [], None, None],
    **{
        (key, "np.str_", canon): [
            None,
            [],
            "TypeError",
            "Value '<class 'numpy.str_'>' with dtype <U0 is not a valid JAX "
            "array type. Only arrays of numeric types are supported by JAX.",
        ]
        for key in ("standard/x32", "standard/x64")
        for canon in (False, True)
    },
}


@pytest.mark.parametrize("key", ["standard/x32", "standard/x64"])
def test_dtype_of_values(key: str) -> None:
    rows = GOLDEN["dtype"][key]
    with configured(key):
        got = [run_case(dtypes.dtype, expr, canonicalize=canon) for expr, canon, *_ in rows]
    expected = [DTYPE_DEVIATIONS.get((key, expr, canon), rest) for expr, canon, *rest in rows]
    assert got == expected


@pytest.mark.parametrize("key", ["standard/x32", "standard/x64"])
def test_canonicalize_dtype(key: str) -> None:
    rows = GOLDEN["canonicalize_dtype"][key]
    with configured(key):
        got = [run_case(dtypes.canonicalize_dtype, expr) for expr, *_ in rows]
        again = [run_case(dtypes.canonicalize_dtype, expr) for expr, *_ in rows]  # memo hits
    assert got == again == [rest for _, *rest in rows]


@pytest.mark.parametrize("key", ["standard/x32", "standard/x64"])
def test_check_user_dtype_supported(key: str) -> None:
    rows = GOLDEN["check_user_dtype_supported"][key]
    with configured(key):
        got = [run_case(dtypes.check_user_dtype_supported, expr, name) for expr, name, *_ in rows]
    assert got == [rest for _, _, *rest in rows]


def test_x64_truncation_warning_text() -> None:
    def zeros() -> None:  # an API function validating its dtype= argument
        dtypes.check_user_dtype_supported(np.dtype("float64"), "zeros")

    with pytest.warns(UserWarning) as record:
        zeros()
    assert str(record[0].message) == (
        "Explicitly requested dtype float64 requested in zeros is not available, and will be "
        "truncated to dtype float32. To enable more dtypes, set the jax_enable_x64 configuration "
        "option or the JAX_ENABLE_X64 shell environment variable. See "
        "https://github.com/google/jax#current-gotchas for more."
    )
    assert record[0].filename == __file__  # the warning points at the API function's caller


def test_array_as_dtype_argument_is_deprecated() -> None:
    with pytest.warns(DeprecationWarning, match="instead of dtype=arr use dtype=arr.dtype"):
        dtypes.check_user_dtype_supported(AvalWeakValue("float32"), "zeros")


@pytest.mark.parametrize("key", ["standard/x32", "standard/x64"])
def test_scalar_type_of(key: str) -> None:
    rows = GOLDEN["scalar_type_of"][key]
    with configured(key):
        got = [run_case(dtypes.scalar_type_of, expr) for expr, *_ in rows]
    assert got == [rest for _, *rest in rows]


def test_issubdtype() -> None:
    columns = GOLDEN["issubdtype_columns"]
    for a, golden in GOLDEN["issubdtype"].items():
        got = [
            cell(g, dtypes.issubdtype, eval(a, namespace()), eval(b, namespace()))
            for b, g in zip(columns, golden, strict=True)
        ]
        assert got == [resolve(g) for g in golden], a


def test_isdtype() -> None:
    columns = GOLDEN["isdtype_columns"]
    for a, golden in GOLDEN["isdtype"].items():
        got = [
            cell(g, dtypes.isdtype, a, eval(k, namespace()))
            for k, g in zip(columns, golden, strict=True)
        ]
        assert got == [resolve(g) for g in golden], a


def test_python_scalars() -> None:
    assert [dtypes.is_weakly_typed(x) for x in (1, 1.0, 1j, True, np.float64(1), int)] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    assert [dtypes.is_python_scalar(x) for x in (1, True, np.float32(1), WeakValue("int8"))] == [
        True,
        True,
        False,
        True,
    ]
    assert dtypes.coerce_to_array(1).dtype == np.dtype("int32")
    with pytest.raises(OverflowError, match="Python int 2147483648 too large to convert to int32"):
        dtypes.coerce_to_array(2**31)


def test_defaults_follow_x64() -> None:
    defaults = (
        dtypes.default_int_dtype,
        dtypes.default_uint_dtype,
        dtypes.default_float_dtype,
        dtypes.default_complex_dtype,
    )
    assert [f().name for f in defaults] == ["int32", "uint32", "float32", "complex64"]
    with config.enable_x64(True):
        assert [f().name for f in defaults] == ["int64", "uint64", "float64", "complex128"]


def test_finfo_and_iinfo_cover_ml_dtypes() -> None:
    assert dtypes.finfo(dtypes.bfloat16).bits == 16
    assert float(dtypes.finfo(dtypes.float8_e4m3fn).max) == 448.0
    assert (dtypes.iinfo(dtypes.int4).min, dtypes.iinfo(dtypes.int4).max) == (-8, 7)


# ---- extended dtypes ------------------------------------------------------------------------


class KeyDType(dtypes.ExtendedDType):
    """A stand-in typed PRNG key dtype."""

    @property
    def type(self) -> type:
        return dtypes.prng_key

    def __repr__(self) -> str:
        return "key<test>"


class Key:
    def __init__(self) -> None:
        self.dtype = KEY_DTYPE
        self.shape = ()


KEY_DTYPE = KeyDType()


def test_extended_dtypes() -> None:
    assert dtypes.issubdtype(KEY_DTYPE, dtypes.prng_key)
    assert dtypes.issubdtype(KEY_DTYPE, dtypes.extended)
    assert dtypes.issubdtype(KEY_DTYPE, np.generic)
    assert dtypes.issubdtype(KEY_DTYPE, KEY_DTYPE)
    assert not dtypes.issubdtype(KEY_DTYPE, np.floating)
    assert not dtypes.issubdtype(np.float32, KEY_DTYPE)
    assert dtypes.canonicalize_dtype(KEY_DTYPE, allow_extended_dtype=True) is KEY_DTYPE
    with pytest.raises(ValueError, match="canonicalize_dtype called on extended dtype key<test>"):
        dtypes.canonicalize_dtype(KEY_DTYPE)
    assert dtypes.dtype(Key()) is KEY_DTYPE
    assert dtypes.result_type(Key(), Key()) is KEY_DTYPE
    with pytest.raises(
        ValueError, match=re.escape("dtype=key<test> is not a valid dtype for JAX type promotion.")
    ):
        dtypes.result_type(Key(), 1)
    dtypes.check_user_dtype_supported(KEY_DTYPE, "zeros")  # accepted silently


def test_public_module_matches_jax_dtypes() -> None:
    # The names `jax.dtypes` exposes in JAX 0.4.30.
    assert sorted(n for n in vars(public_dtypes) if not n.startswith("_")) == [
        "bfloat16",
        "canonicalize_dtype",
        "extended",
        "finfo",
        "float0",
        "iinfo",
        "issubdtype",
        "prng_key",
        "result_type",
        "scalar_type_of",
    ]
    assert public_dtypes.float0 == np.dtype([("float0", np.void, 0)])
