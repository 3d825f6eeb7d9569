"""Tracebacks through numjax's API leave out its internal frames (`jax_traceback_filtering`):
an error raised in a user's function, or by a `jnp` function it calls, shows the user's frames
and the `jnp` frame, not the tracing and compiling machinery between them."""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from collections.abc import Callable
from typing import Any

import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src import traceback_util
from numjax.errors import SimplifiedTraceback

SRC = os.path.dirname(os.path.abspath(traceback_util.__file__))
INTERNAL = [os.path.join(SRC, d) + os.sep for d in
            ("api", "compiler", "control_flow", "core", "interpreters", "lax", "runtime")]


def _files(exc: BaseException) -> list[str]:
    return [frame.filename for frame in traceback.extract_tb(exc.__traceback__)]


def _internal(files: list[str]) -> list[str]:
    return [f for f in files if f.startswith(tuple(INTERNAL)) or f.startswith("<numjax ")]


def _raise_in_user_code(x: Any) -> Any:
    raise ValueError("bad value from user code")


def _catch(fn: Callable[[], Any], kind: type[BaseException] = Exception) -> BaseException:
    with pytest.raises(kind) as info:
        fn()
    return info.value


x3 = jnp.ones(3)

# (entry point, call raising ValueError in _raise_in_user_code below it)
ENTRY_POINTS: dict[str, Callable[[], Any]] = {
    "jit": lambda: numjax.jit(_raise_in_user_code)(x3),
    "jit disabled": lambda: _with_jit_disabled(lambda: numjax.jit(_raise_in_user_code)(x3)),
    "jit lower": lambda: numjax.jit(_raise_in_user_code).lower(x3),
    "jit trace": lambda: numjax.jit(_raise_in_user_code).trace(x3),
    "jit eval_shape": lambda: numjax.jit(_raise_in_user_code).eval_shape(x3),
    "grad": lambda: numjax.grad(_raise_in_user_code)(1.0),
    "value_and_grad": lambda: numjax.value_and_grad(_raise_in_user_code)(1.0),
    "vmap": lambda: numjax.vmap(_raise_in_user_code)(x3),
    "jvp": lambda: numjax.jvp(_raise_in_user_code, (1.0,), (1.0,)),
    "vjp": lambda: numjax.vjp(_raise_in_user_code, 1.0),
    "linearize": lambda: numjax.linearize(_raise_in_user_code, 1.0),
    "jacfwd": lambda: numjax.jacfwd(_raise_in_user_code)(x3),
    "jacrev": lambda: numjax.jacrev(_raise_in_user_code)(x3),
    "hessian": lambda: numjax.hessian(_raise_in_user_code)(x3),
    "make_jaxpr": lambda: numjax.make_jaxpr(_raise_in_user_code)(x3),
    "eval_shape": lambda: numjax.eval_shape(_raise_in_user_code, x3),
    "checkpoint": lambda: numjax.checkpoint(_raise_in_user_code)(x3),
    "cond": lambda: lax.cond(True, _raise_in_user_code, lambda x: x, x3),
    "switch": lambda: lax.switch(0, [_raise_in_user_code, lambda x: x], x3),
    "while_loop": lambda: lax.while_loop(lambda c: c < 3, _raise_in_user_code, 0),
    "fori_loop": lambda: lax.fori_loop(0, 3, lambda i, c: _raise_in_user_code(c), 0.0),
    "scan": lambda: lax.scan(lambda c, x: _raise_in_user_code(c), 0.0, x3),
    "map": lambda: lax.map(_raise_in_user_code, x3),
    "associative_scan": lambda: lax.associative_scan(lambda a, b: _raise_in_user_code(a), x3),
    "custom_jvp": lambda: _custom_jvp_raising()(x3),
    "custom_vjp": lambda: _custom_vjp_raising()(x3),
    "jit of grad of vmap": lambda: numjax.jit(numjax.grad(
        lambda x: numjax.vmap(_raise_in_user_code)(x).sum()))(x3),
}


def _with_jit_disabled(fn: Callable[[], Any]) -> Any:
    with numjax.disable_jit():
        return fn()


def _custom_jvp_raising() -> Any:
    f = numjax.custom_jvp(_raise_in_user_code)
    f.defjvp(lambda primals, tangents: (primals[0], tangents[0]))
    return f


def _custom_vjp_raising() -> Any:
    f = numjax.custom_vjp(_raise_in_user_code)
    f.defvjp(lambda x: (x, None), lambda _, g: (g,))
    return f


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_user_error_keeps_user_frames_only(name):
    err = _catch(ENTRY_POINTS[name], ValueError)
    assert str(err) == "bad value from user code"
    files = _files(err)
    assert files[0] == __file__  # the test's own call
    assert traceback.extract_tb(err.__traceback__)[-1].name == "_raise_in_user_code"
    assert _internal(files) == []
    assert err.__notes__ == [traceback_util.NOTE]


def test_jnp_frame_stays_visible():
    # The error comes from lax's shape rule; the jnp function that called it is the last frame
    # shown, as in JAX.
    err = _catch(lambda: numjax.jit(lambda x: jnp.dot(x, jnp.ones(3)))(jnp.ones(2)), TypeError)
    frames = traceback.extract_tb(err.__traceback__)
    assert frames[-1].name == "dot"
    assert frames[-1].filename.endswith(os.path.join("numpy", "lax_numpy.py"))
    assert _internal([f.filename for f in frames]) == []
    assert "contracting dimensions to have the same shape" in str(err)


def test_note_added_once_through_nested_boundaries():
    err = _catch(lambda: numjax.jit(numjax.grad(
        lambda x: lax.scan(lambda c, _: (_raise_in_user_code(c), None), x, x3)[0]))(1.0))
    assert err.__notes__ == [traceback_util.NOTE]


def test_off_keeps_every_frame():
    numjax.config.update("jax_traceback_filtering", "off")
    try:
        err = _catch(ENTRY_POINTS["jit of grad of vmap"], ValueError)
    finally:
        numjax.config.update("jax_traceback_filtering", "auto")
    assert _internal(_files(err))
    assert not hasattr(err, "__notes__")


def test_context_manager_form():
    with _option("off"):
        err = _catch(ENTRY_POINTS["jit"], ValueError)
    assert _internal(_files(err))


def _option(value: str) -> Any:
    from numjax._src import config as config_mod
    return config_mod.traceback_filtering(value)


def test_remove_frames_chains_the_unfiltered_traceback():
    with _option("remove_frames"):
        err = _catch(ENTRY_POINTS["jit of grad of vmap"], ValueError)
    assert _internal(_files(err)) == []
    assert not hasattr(err, "__notes__")
    cause = err.__cause__
    assert isinstance(cause, traceback_util.UnfilteredStackTrace)
    assert str(cause).startswith("ValueError: bad value from user code\n")
    full = _files(cause)
    assert _internal(full)  # the machinery is all there
    assert __file__ in full


def test_tracebackhide_marks_internal_frames():
    with _option("tracebackhide"):
        err = _catch(ENTRY_POINTS["jit"], ValueError)
    marked, unmarked = [], []
    tb = err.__traceback__
    while tb is not None:
        hidden = tb.tb_frame.f_locals.get("__tracebackhide__", False)
        (marked if hidden else unmarked).append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert _internal(unmarked) == []
    assert marked and _internal(marked) == marked
    assert not hasattr(err, "__notes__")


def test_chained_cause_is_kept():
    # A failing callback inside compiled code: the runtime error stays chained to the Python
    # exception that caused it.
    def boom(x):
        raise ZeroDivisionError("inside the callback")

    def f(x):
        return numjax.pure_callback(boom, numjax.ShapeDtypeStruct((3,), jnp.float32), x)

    err = _catch(lambda: numjax.jit(f)(x3))
    assert isinstance(err.__cause__, ZeroDivisionError)
    assert _internal(_files(err)) == []


def test_errors_outside_any_boundary_are_untouched():
    err = _catch(lambda: jnp.ones(3) + jnp.ones(2), TypeError)
    assert not hasattr(err, "__notes__")


def test_bad_option_value():
    with pytest.raises(ValueError, match="jax_traceback_filtering"):
        numjax.config.update("jax_traceback_filtering", "sometimes")
    assert numjax.config.jax_traceback_filtering == "auto"


def test_environment_variable():
    code = ("import numjax\n"
            "print(numjax.config.jax_traceback_filtering)\n"
            "try:\n"
            "    numjax.jit(lambda x: x + 'a')(1.0)\n"
            "except TypeError as e:\n"
            "    print(hasattr(e, '__notes__'))\n")
    env = dict(os.environ, JAX_TRACEBACK_FILTERING="off")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["off", "False"]


def test_simplified_traceback_class():
    assert SimplifiedTraceback.__module__ == "numjax.errors"
    assert "JAX_TRACEBACK_FILTERING=off" in str(SimplifiedTraceback())


def test_register_exclusion(tmp_path):
    lib = tmp_path / "mylib.py"
    lib.write_text("def helper(x):\n    raise KeyError('from the library')\n")
    sys.path.insert(0, str(tmp_path))
    saved = list(traceback_util._exclusions), traceback_util._prefixes
    try:
        import mylib  # type: ignore[import-not-found]
        before = _files(_catch(lambda: numjax.jit(mylib.helper)(x3), KeyError))
        traceback_util.register_exclusion(str(tmp_path))
        after = _files(_catch(lambda: numjax.jit(mylib.helper)(x3), KeyError))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("mylib", None)
        traceback_util._exclusions[:], traceback_util._prefixes = saved
    assert str(lib) in before
    assert str(lib) not in after


def test_docstring_example():
    import doctest
    result = doctest.testmod(traceback_util)
    assert result.failed == 0 and result.attempted > 0
