"""Running unmodified JAX programs: `numjax run`, `python -m numjax run`, `numjax.compat`."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

import numjax
from numjax import compat
from numjax.__main__ import main

JAX_PROGRAM = textwrap.dedent(
    """
    import sys

    import jax
    import jax.numpy as jnp
    from jax import grad, jit, vmap
    from jax.tree_util import tree_map


    def loss(params, x):
        w, b = params["w"], params["b"]
        return jnp.sum(jnp.tanh(x @ w + b) ** 2)


    params = {"w": jnp.ones((3, 2)) * 0.1, "b": jnp.zeros(2)}
    x = jnp.arange(12.0).reshape(4, 3) / 10
    grads = jit(grad(loss))(params, x)
    per_example = vmap(loss, in_axes=(None, 0))(params, x)
    params = tree_map(lambda p, g: p - 0.5 * g, params, grads)
    print("module", jax.__name__, jnp.__name__)
    print("argv", sys.argv[1:])
    print("shapes", per_example.shape, grads["w"].shape)
    print(f"loss {float(loss(params, x)):.4f}")
    """
)


@pytest.fixture
def clean_jax_modules() -> Any:
    """Leave no `jax` alias behind: later tests must see an un-aliased interpreter."""
    assert "jax" not in sys.modules
    yield
    compat.uninstall()
    assert not compat.installed()
    assert not [name for name in sys.modules if name == "jax" or name.startswith("jax.")]


def _expected_loss() -> str:
    import numjax.numpy as jnp

    params = {"w": jnp.ones((3, 2)) * 0.1, "b": jnp.zeros(2)}
    x = jnp.arange(12.0).reshape(4, 3) / 10

    def loss(params: Any, x: Any) -> Any:
        return jnp.sum(jnp.tanh(x @ params["w"] + params["b"]) ** 2)

    grads = numjax.grad(loss)(params, x)
    params = numjax.tree_util.tree_map(lambda p, g: p - 0.5 * g, params, grads)
    return f"loss {float(loss(params, x)):.4f}"


def _check_output(stdout: str) -> None:
    lines = stdout.splitlines()
    assert lines[0] == "module numjax numjax.numpy"
    assert lines[1] == "argv ['--flag', 'value']"
    assert lines[2] == "shapes (4,) (3, 2)"
    assert lines[3] == _expected_loss()


def test_python_m_numjax_run_executes_an_unmodified_jax_program(tmp_path: pathlib.Path) -> None:
    prog = tmp_path / "prog.py"
    prog.write_text(JAX_PROGRAM)
    result = subprocess.run(
        [sys.executable, "-m", "numjax", "run", str(prog), "--flag", "value"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    _check_output(result.stdout)


@pytest.mark.skipif(shutil.which("numjax") is None, reason="console script not on PATH")
def test_console_script(tmp_path: pathlib.Path) -> None:
    prog = tmp_path / "prog.py"
    prog.write_text(JAX_PROGRAM)
    result = subprocess.run(
        ["numjax", "run", str(prog), "--flag", "value"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    _check_output(result.stdout)


def test_program_errors_and_exit_codes_propagate(tmp_path: pathlib.Path) -> None:
    prog = tmp_path / "prog.py"
    prog.write_text("import sys\nimport jax.no_such_module\n")
    result = subprocess.run(
        [sys.executable, "-m", "numjax", "run", str(prog)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert "ModuleNotFoundError: No module named 'jax.no_such_module'" in result.stderr
    prog.write_text("import sys, jax\nsys.exit(3)\n")
    result = subprocess.run([sys.executable, "-m", "numjax", "run", str(prog)])
    assert result.returncode == 3


def test_run_in_process_sets_argv_main_and_sibling_imports(tmp_path: pathlib.Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           clean_jax_modules: Any) -> None:
    (tmp_path / "helper.py").write_text("import jax.numpy as jnp\nVALUE = jnp.float32(2.5)\n")
    prog = tmp_path / "prog.py"
    prog.write_text(
        "import sys, helper, jax\n"
        "if __name__ == '__main__':\n"
        "    print(sys.argv, float(helper.VALUE), jax is sys.modules['numjax'])\n"
    )
    argv, path = list(sys.argv), list(sys.path)
    assert main(["run", str(prog), "x"]) == 0
    assert capsys.readouterr().out == f"{[str(prog), 'x']} 2.5 True\n"
    assert sys.argv == argv and sys.path == path
    sys.modules.pop("helper", None)


def test_run_names_the_script_as_python_does(tmp_path: pathlib.Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str],
                                             clean_jax_modules: Any) -> None:
    # `python prog.py`: __file__ and the code's file name are absolute, argv[0] is as typed,
    # __package__ and __spec__ are None, and classes defined there pickle.
    (tmp_path / "prog.py").write_text(
        "import pickle, sys\n"
        "class A: pass\n"
        "print(__file__, sys._getframe().f_code.co_filename, sys.argv[0], __package__,\n"
        "      __spec__, type(pickle.loads(pickle.dumps(A()))).__name__)\n")
    monkeypatch.chdir(tmp_path)
    main_module = sys.modules["__main__"]
    assert main(["run", "prog.py"]) == 0
    path = str(tmp_path / "prog.py")
    assert capsys.readouterr().out == f"{path} {path} prog.py None None A\n"
    assert sys.modules["__main__"] is main_module


def test_run_module(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str], clean_jax_modules: Any) -> None:
    (tmp_path / "jaxprog_as_module.py").write_text(
        "import sys, jax.numpy as jnp\nprint(sys.argv[1:], int(jnp.arange(5).sum()))\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["run", "-m", "jaxprog_as_module", "a"]) == 0
    assert capsys.readouterr().out == "['a'] 10\n"
    sys.modules.pop("jaxprog_as_module", None)


def test_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path) -> None:
    assert main([]) == 2
    assert main(["--help"]) == 0
    assert "numjax run PROGRAM.py" in capsys.readouterr().out
    assert main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err
    assert main(["run"]) == 2
    assert main(["run", str(tmp_path / "missing.py")]) == 2
    assert "can't open file" in capsys.readouterr().err
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"numjax {numjax.__version__}\n"


def test_compat_install_in_process(clean_jax_modules: Any) -> None:
    compat.install()
    compat.install()  # idempotent
    import jax
    import jax.numpy as jnp
    import jax.tree_util
    from jax import lax

    assert jax is numjax and jnp is numjax.numpy and lax is numjax.lax
    assert jax.tree_util is numjax.tree_util and jax.numpy is jnp
    assert sys.modules["jax.numpy"] is numjax.numpy
    assert float(jax.grad(lambda x: jnp.sin(x) * 2)(0.0)) == 2.0
    import jax.experimental
    import jax.test_util

    assert jax.experimental.restrict_backends is numjax.experimental.restrict_backends
    assert jax.test_util is sys.modules["numjax.test_util"]
    with pytest.raises(ModuleNotFoundError, match="No module named 'jax.no_such_module'"):
        import jax.no_such_module
    # Names that merely start with "jax" are not aliased.
    with pytest.raises(ModuleNotFoundError, match="jaxfoo_not_a_module"):
        import jaxfoo_not_a_module  # noqa: F401


def test_uninstall_removes_aliases(clean_jax_modules: Any) -> None:
    compat.install()
    import jax.numpy

    compat.uninstall()
    assert "jax" not in sys.modules and "jax.numpy" not in sys.modules
    assert "numjax.numpy" in sys.modules
    with pytest.raises(ModuleNotFoundError):
        import jax  # noqa: F401


def test_install_refuses_when_real_jax_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    with pytest.raises(ImportError, match="real `jax` is already imported"):
        compat.install()
    assert not compat.installed()


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.slow
@pytest.mark.skipif(not (EXAMPLES / "data" / "digits.npz").exists(), reason="no example data")
def test_digits_example_as_a_jax_program(tmp_path: pathlib.Path) -> None:
    """examples/mnist_digits.py with `import jax` (as written for JAX) under `numjax run`."""
    source = (EXAMPLES / "mnist_digits.py").read_text()
    source = source.replace("import numjax as jax\n", "import jax\n")
    source = source.replace("import numjax.numpy as jnp\n", "import jax.numpy as jnp\n")
    assert not [line for line in source.splitlines() if line.startswith("import numjax")]
    (tmp_path / "mnist_digits.py").write_text(source)
    shutil.copytree(EXAMPLES / "data", tmp_path / "data")
    result = subprocess.run(
        [sys.executable, "-W", "error", "-m", "numjax", "run", "mnist_digits.py", "--epochs", "3"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "digits: 1437 train / 360 test images, MLP [64, 128, 64, 10]"
    assert lines[3].startswith("epoch   3/3 [#####")
    test_accuracy = float(lines[5].removeprefix("test accuracy "))
    assert test_accuracy > 0.85
