"""conftest.py for the ported JAX tests (run_suite.py copies it next to the ported files).

PORT_TARGET=numjax : `numjax.compat.install()` runs before any test module imports jax, so
                     `import jax` and every `jax.*` submodule are numjax's.
PORT_TARGET=jax    : the real jax.
PORT_ENV_OUT=path  : where to write a JSON line describing what `jax` really was in this run.
"""

import json
import os
import sys

_TARGET = os.environ.get("PORT_TARGET", "jax")
if _TARGET == "numjax":
    import numjax.compat

    numjax.compat.install()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

if _TARGET == "numjax":
    assert jax.__name__ == "numjax" and jnp.__name__ == "numjax.numpy", (jax.__name__, jnp.__name__)
else:
    assert jax.__name__ == "jax" and jnp.__name__ == "jax.numpy", (jax.__name__, jnp.__name__)


import internal_shim  # noqa: E402  (after install(): it imports jax)

internal_shim.lenient_all()

# absl raises NoTestsError at import time when a parameter list comes out empty (e.g. a list
# comprehension over dtypes that the package compares differently from JAX). That would abort
# the whole file; instead the decorated test becomes one failing test.
from absl.testing import parameterized as _absl_parameterized  # noqa: E402

_orig_parameter_decorator = _absl_parameterized._parameter_decorator


def _parameter_decorator(naming_type, testcases):
    import collections.abc

    cases = testcases
    if (
        isinstance(cases, tuple)
        and len(cases) == 1
        and not isinstance(cases[0], tuple)
        and not isinstance(cases[0], collections.abc.Mapping)
    ):
        cases = cases[0]  # absl unwraps a single iterable argument the same way
        try:
            cases = list(cases)
        except TypeError:
            cases = None
        if cases is not None:
            testcases = (cases,)  # absl unwraps this again
    if isinstance(cases, (list, tuple)) and len(cases) == 0:
        import functools

        def deco(f):
            @functools.wraps(f)
            def failing(self, *a, **k):
                raise AssertionError(
                    "port: parameterized decorator generated no test cases "
                    "(its parameter list came out empty under this package)"
                )

            return failing

        return deco
    return _orig_parameter_decorator(naming_type, testcases)


_absl_parameterized._parameter_decorator = _parameter_decorator


def pytest_sessionstart(session):
    out = os.environ.get("PORT_ENV_OUT")
    if not out:
        return
    info = dict(
        target=_TARGET,
        worker=os.environ.get("PYTEST_XDIST_WORKER", "main"),
        jax_name=jax.__name__,
        jax_file=os.path.basename(os.path.dirname(jax.__file__)),
        jax_path=os.path.dirname(jax.__file__),
        jnp_name=jnp.__name__,
        jax_version=getattr(jax, "__version__", "?"),
        numpy=np.__version__,
        python=sys.version.split()[0],
        devices=len(jax.devices()),
        backend=jax.default_backend(),
        xla_flags=os.environ.get("XLA_FLAGS", ""),
        num_generated_cases=os.environ.get("JAX_NUM_GENERATED_CASES", "10"),
    )
    with open(out, "a") as f:
        f.write(json.dumps(info) + "\n")


def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("PORT_ENV_OUT")
    jtu = sys.modules.get("jtu_gen")
    unknown = sorted(getattr(jtu, "UNKNOWN_CONFIG", ()) or ())
    reads = sorted(internal_shim.UNKNOWN_CONFIG_READS)
    if out and (unknown or reads):
        with open(out, "a") as f:
            f.write(
                json.dumps(
                    dict(
                        target=_TARGET, unknown_config=unknown, unknown_config_reads_at_import=reads
                    )
                )
                + "\n"
            )


# ---- per-test results, streamed as JSON lines to $PORT_RESULTS_OUT by the controlling process
# (with xdist, workers' reports reach the controller), so that a killed run keeps its results.


def _controller():
    return "PYTEST_XDIST_WORKER" not in os.environ


def _emit(rec):
    out = os.environ.get("PORT_RESULTS_OUT")
    if out:
        with open(out, "a") as f:
            f.write(json.dumps(rec) + "\n")


def _crash_message(report):
    lr = report.longrepr
    if lr is None:
        return ""
    if isinstance(lr, tuple):  # skip: (path, lineno, reason)
        return str(lr[2])[:1000]
    crash = getattr(lr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)[:2000]
    return str(lr).strip().splitlines()[-1][:2000] if str(lr).strip() else ""


def pytest_runtest_logreport(report):
    if not _controller():
        return
    rec = dict(
        kind="test",
        nodeid=report.nodeid,
        when=report.when,
        outcome=report.outcome,
        dur=round(report.duration, 3),
    )
    if report.failed or report.skipped:
        rec["msg"] = _crash_message(report)
    if report.failed:
        rec["tb"] = str(report.longrepr)[-4000:]
    _emit(rec)


def pytest_collectreport(report):
    if report.failed and _controller():
        _emit(dict(kind="collect_error", nodeid=report.nodeid, msg=str(report.longrepr)[-4000:]))


def pytest_collection_modifyitems(session, config, items):
    """PORT_ONLY_IDS=<file of test ids>: run only those tests (run_suite.py --rerun-failing)."""
    path = os.environ.get("PORT_ONLY_IDS")
    if not path:
        return
    import re

    scalar = re.compile(r"np\.(?:float|int|uint|complex|bool|str|bytes)\w*\(([^()]*)\)")
    norm = lambda s: scalar.sub(r"\1", s.replace("numpy.bool_", "numpy.bool"))
    with open(path) as fh:  # closed at once: an unclosed file warns, and warnings are errors
        wanted = set(norm(line.rstrip("\n")) for line in fh if line.strip())
    keep = [it for it in items if norm(it.nodeid) in wanted]
    drop = [it for it in items if norm(it.nodeid) not in wanted]
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep


def pytest_collection_finish(session):
    internal_shim.TEST_PHASE = True  # poison and lenient modules are strict from now on
    if _controller():
        _emit(dict(kind="collected", n=len(session.items)))


try:
    import xdist  # noqa: F401

    def pytest_xdist_node_collection_finished(node, ids):
        _emit(dict(kind="collected", n=len(ids)))
except ImportError:
    pass
