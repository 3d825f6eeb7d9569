"""numjax.profiler: traces written where TensorBoard looks, in the Chrome trace-event format,
with the user's annotations, the program's Python and C calls and the compiled programs'
executions; JAX's errors for a second trace or a stop without a start."""

from __future__ import annotations

import doctest
import functools
import glob
import gzip
import json
import os
import sys
import threading
import urllib.request

import pytest

import numjax
import numjax.numpy as jnp
from numjax._src import profiler as profiler_impl


def _load(log_dir, name="*.trace.json.gz"):
    files = glob.glob(os.path.join(log_dir, "plugins", "profile", "*", name))
    assert len(files) == 1, files
    with gzip.open(files[0], "rt") as f:
        return files[0], json.load(f)


def _spans(trace):
    return [e for e in trace["traceEvents"] if e["ph"] == "X"]


def test_trace_records_annotations_calls_and_compiled_programs(tmp_path):
    @functools.partial(numjax.profiler.annotate_function, name="the step", kind="train")
    def step(x):
        return numjax.jit(lambda v: jnp.tanh(v) @ v.T)(x)

    with numjax.profiler.trace(tmp_path):
        for i in range(2):
            with numjax.profiler.StepTraceAnnotation("train", step_num=i):
                step(jnp.ones((8, 8))).block_until_ready()
        with numjax.profiler.TraceAnnotation("label", size=3):
            jnp.ones(3) + 1
    assert sys.getprofile() is None
    path, trace = _load(tmp_path)
    assert os.path.basename(path).endswith(".trace.json.gz")
    assert trace["displayTimeUnit"] == "ns" and trace["metadata"]["producer"] == "numjax.profiler"
    spans = _spans(trace)
    by_name = {}
    for e in spans:
        by_name.setdefault(e["name"], []).append(e)
    assert [e["cat"] for e in by_name["train 0"] + by_name["train 1"]] == ["annotation"] * 2
    assert by_name["label"][0]["args"] == {"size": "3"}
    assert len(by_name["the step"]) == 2 and by_name["the step"][0]["args"] == {"kind": "train"}
    # The step's span lies inside its step annotation.
    outer, inner = by_name["train 0"][0], by_name["the step"][0]
    assert outer["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"]
    # The jitted program ran (its generated function) and so did numjax's compiler, once.
    executions = [e for e in spans if e["name"].startswith("numjax jit <lambda>")]
    assert executions and all(e["args"]["file"].startswith("<numjax jit ") for e in executions)
    assert len(by_name["backend_compile"]) >= 1
    assert any(e["cat"] == "c" for e in spans)  # calls into C (NumPy, BLAS)
    assert all(e["dur"] >= 0 for e in spans)
    threads = [e for e in trace["traceEvents"] if e["name"] == "thread_name"]
    assert {"MainThread"} <= {e["args"]["name"] for e in threads}


def test_threads_started_during_a_trace_are_traced(tmp_path):
    def work():
        with numjax.profiler.TraceAnnotation("in the worker"):
            jnp.ones(3).sum()

    with numjax.profiler.trace(tmp_path):
        worker = threading.Thread(target=work, name="worker-thread")
        worker.start()
        worker.join()
    _, trace = _load(tmp_path)
    event, = [e for e in _spans(trace) if e["name"] == "in the worker"]
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e["name"] == "thread_name"}
    assert names[event["tid"]] == "worker-thread"


def test_annotations_do_nothing_without_a_trace(tmp_path):
    with numjax.profiler.TraceAnnotation("ignored"):
        pass
    assert profiler_impl._state.session is None
    assert numjax.profiler.annotate_function(lambda x: x + 1)(1) == 2


def test_one_trace_at_a_time_and_stop_needs_a_start(tmp_path):
    numjax.profiler.start_trace(tmp_path / "a")
    try:
        with pytest.raises(RuntimeError, match="^Profile has already been started. Only one "
                                               "profile may be run at a time.$"):
            numjax.profiler.start_trace(tmp_path / "b")
    finally:
        numjax.profiler.stop_trace()
    with pytest.raises(RuntimeError, match="^No profile started$"):
        numjax.profiler.stop_trace()
    _load(tmp_path / "a")
    assert not os.path.exists(tmp_path / "b")


def test_an_exception_inside_the_trace_still_writes_it(tmp_path):
    with pytest.raises(ZeroDivisionError), numjax.profiler.trace(tmp_path):
        with numjax.profiler.TraceAnnotation("before the error"):
            pass
        raise ZeroDivisionError("inside the trace")
    assert sys.getprofile() is None and profiler_impl._state.session is None
    _, trace = _load(tmp_path)
    assert "before the error" in {e["name"] for e in _spans(trace)}


def test_perfetto_trace_file(tmp_path):
    with numjax.profiler.trace(tmp_path, create_perfetto_trace=True):
        jnp.ones(2) * 2
    _, full = _load(tmp_path)
    _, perfetto = _load(tmp_path, "perfetto_trace.json.gz")
    assert "metadata" not in perfetto
    assert perfetto["traceEvents"] == full["traceEvents"]


def test_perfetto_link_serves_the_file_until_fetched(tmp_path, capsys):
    numjax.profiler.start_trace(tmp_path, create_perfetto_link=True)
    jnp.ones(2) * 2
    stopper = threading.Thread(target=numjax.profiler.stop_trace)
    stopper.start()
    url = None
    for _ in range(200):
        out = capsys.readouterr().out
        if "Open URL in browser: " in out:
            url = out.split("Open URL in browser: ")[1].strip()
            break
        stopper.join(0.05)
    assert url is not None and url.startswith("https://ui.perfetto.dev/#!/?url=http://127.0.0.1:")
    with urllib.request.urlopen(url.split("url=")[1], timeout=10) as response:
        assert response.headers["Access-Control-Allow-Origin"] == "*"
        served = json.loads(gzip.decompress(response.read()))
    stopper.join(10)
    assert not stopper.is_alive()
    jnp.ones(2) * 3  # this thread's hook notices the trace stopped elsewhere and unhooks
    assert sys.getprofile() is None
    assert "metadata" not in served and served["traceEvents"]


def test_what_numjax_cannot_do_says_so():
    with pytest.raises(NotImplementedError, match="no profiler server"):
        numjax.profiler.start_server(9999)
    with pytest.raises(ValueError, match="^No active profiler server.$"):
        numjax.profiler.stop_server()
    with pytest.raises(NotImplementedError, match="memory_analysis"):
        numjax.profiler.device_memory_profile()
    with pytest.raises(NotImplementedError, match="memory_analysis"):
        numjax.profiler.save_device_memory_profile("memory.prof")


def test_docstring_examples():
    result = doctest.testmod(profiler_impl)
    assert result.failed == 0 and result.attempted > 0
