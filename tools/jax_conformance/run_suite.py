#!/usr/bin/env python3
"""Port JAX 0.4.30's test files and run them against real JAX and against numjax.

    python run_suite.py --jax-git-dir <fetched jax git dir> \
        --jax-python <jaxref venv>/bin/python --numjax-python <numjax venv>/bin/python \
        [--files api,tree_util,...] [--sides jax,numjax] [-n 2] [--timeout 300] \
        [--file-timeout 5400] [--generate-only] [--report-only] [--out DIR]

Steps:
 1. `git show <rev>:<path>` the test files and JAX's test-support modules out of the fetched
    repository into DIR/raw/ (DIR: --out, a work directory outside the repository).
 2. Port them into DIR/ported/ with port.py: test files keep their names; jax/_src/test_util.py
    becomes jtu_gen.py (with jtu_shim.py appended), public_test_util.py, lax_test_util.py and
    lax_reference.py become *_gen.py; internal_shim.py and conftest_ported.py (as conftest.py)
    are copied beside them, with a pytest.ini carrying JAX's own filterwarnings (= "error").
 3. Run pytest on every file twice: PORT_TARGET=jax with the JAX interpreter, and
    PORT_TARGET=numjax with the numjax interpreter (conftest.py then calls
    numjax.compat.install() before any test imports jax, and checks jax.__name__). Files whose
    JAX tests ask for several CPU devices get XLA_FLAGS=--xla_force_host_platform_device_count=4.
    Per-test reports stream to DIR/results/<side>/<file>.jsonl, so a killed run keeps its
    partial results.
 4. Print a table (collected / passed / failed / errored / skipped per side, and numjax's pass
    rate on the tests that pass under JAX) and write DIR/results/summary.json.

Extra side "numjax-np1" (diagnostic): numjax imported from --numjax-src on a NumPy 1.x
interpreter (default: the JAX one), normally with --rerun-failing numjax, i.e. only on the tests
that pass under JAX and fail under numjax; categorize.py then files the ones that pass there
under "NumPy 2.x environment".

Requirements: both interpreters need pytest, pytest-xdist, pytest-timeout and absl-py; the JAX
one jax==0.4.30/jaxlib==0.4.30; the numjax one numjax installed. Nothing is written outside DIR.

Full measurement, as run on 2026-11-27 (then `python categorize.py` for the categories):
    python run_suite.py --jax-git-dir G --jax-python J --numjax-python N
    python run_suite.py --jax-git-dir G --jax-python J --numjax-src <numjax checkout>/src \
        --sides numjax-np1 --rerun-failing numjax
"""

import argparse
import collections
import functools
import json
import os
import re
import subprocess
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import port  # noqa: E402

REV = "jax-v0.4.30"
FILES = [
    "api",
    "transfer_guard",
    "host_callback",
    "debugging_primitives",
    "python_callback",
    "lax_control_flow",
    "tree_util",
    "random",
    "random_lax",
    "lax_autodiff",
    "lax",
    "lax_numpy",
    "pmap",
    "x64_context",
    "debug_nans",
    "custom_object",
    "checkify",
    "dtypes",
    "lax_vmap",
    "batching",
    "linalg",
    "nn",
]
# setUpModule asks for 2 (pmap: 8) CPU devices in these files.
MULTI_DEVICE = {"debugging_primitives", "host_callback", "python_callback", "pmap"}
DEVICE_FLAG = "--xla_force_host_platform_device_count=4"
SUPPORT_SRC = {
    "jax/_src/test_util.py": "jtu_gen.py",
    "jax/_src/public_test_util.py": "public_test_util_gen.py",
    "jax/_src/internal_test_util/lax_test_util.py": "lax_test_util_gen.py",
    "jax/_src/lax_reference.py": "lax_reference_gen.py",
}
PYTEST_INI = r"""[pytest]
# JAX 0.4.30's own pytest configuration (pyproject.toml): warnings are errors.
filterwarnings =
    error
    default:Error (reading|writing) persistent compilation cache entry for 'jit_equal'
    default:Error (reading|writing) persistent compilation cache entry for 'jit__lambda_'
    default:jax.extend.mlir.dialects.mhlo is deprecated.*:DeprecationWarning
    default:jax.xla_computation is deprecated. Please use the AOT APIs.*:DeprecationWarning
    # numjax silences NumPy's floating-point RuntimeWarnings from its own kernels at import (XLA
    # returns inf/nan silently); pytest re-applies "error" per test, overriding that filter.
    # Same rule as numjax's own pytest configuration; it cannot match anything under real JAX.
    ignore::RuntimeWarning:numjax\._src
markers =
    multiaccelerator: test can use several accelerators
    SlurmMultiNodeGpuTest: multinode GPU CI
"""


def git_show(git_dir, rev, path):
    return subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{rev}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _write(path, text):
    """Atomic write (a pytest run may be importing the previous version)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


def generate(args, files):
    raw, ported = os.path.join(args.out, "raw"), os.path.join(args.out, "ported")
    os.makedirs(ported, exist_ok=True)
    paths = [f"tests/{f}_test.py" for f in files] + list(SUPPORT_SRC)
    for p in paths:
        dst = os.path.join(raw, p)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as fh:
            fh.write(git_show(args.jax_git_dir, args.rev, p))
    for f in files:
        src = open(os.path.join(raw, f"tests/{f}_test.py")).read()
        _write(os.path.join(ported, f"{f}_test.py"), port.port_source(src, f"{f}_test.py"))
    for p, name in SUPPORT_SRC.items():
        text = port.port_source(open(os.path.join(raw, p)).read())
        text = f"# Generated by run_suite.py from JAX's {p} at {args.rev}; do not edit.\n" + text
        if name == "jtu_gen.py":
            text += "\n\n" + open(os.path.join(HERE, "jtu_shim.py")).read()
        _write(os.path.join(ported, name), text)
    for src, dst in (
        ("internal_shim.py", "internal_shim.py"),
        ("conftest_ported.py", "conftest.py"),
    ):
        _write(os.path.join(ported, dst), open(os.path.join(HERE, src)).read())
    if args.jax_python:  # which names are public in real JAX (see jax_public_names.py)
        out = os.path.join(ported, "jax_public_names.json")
        subprocess.run(
            [args.jax_python, os.path.join(HERE, "jax_public_names.py"), out + ".new"], check=True
        )
        os.replace(out + ".new", out)
    _write(os.path.join(ported, "pytest.ini"), PYTEST_INI)
    print(
        f"generated {len(files)} ported test files and {len(SUPPORT_SRC)} support modules "
        f"in {os.path.relpath(ported)}"
    )


def run_one(args, side, f):
    ported = os.path.join(args.out, "ported")
    resdir = os.path.join(args.out, "results", side)
    os.makedirs(resdir, exist_ok=True)
    out = os.path.join(resdir, f"{f}.jsonl")
    envout = os.path.join(resdir, f"{f}.env.jsonl")
    for p in (out, envout):
        if os.path.exists(p):
            os.remove(p)
    py = {
        "jax": args.jax_python,
        "numjax": args.numjax_python,
        "numjax-np1": args.numjax_np1_python or args.jax_python,
    }[side]
    env = dict(
        os.environ,
        PORT_TARGET="numjax" if side.startswith("numjax") else "jax",
        PORT_RESULTS_OUT=os.path.abspath(out),
        PORT_ENV_OUT=os.path.abspath(envout),
        PYTHONDONTWRITEBYTECODE="1",
    )
    if side.startswith("numjax") and args.numjax_src:  # numjax from this source tree
        env["PYTHONPATH"] = args.numjax_src
    env.pop("XLA_FLAGS", None)
    if f in MULTI_DEVICE:
        env["XLA_FLAGS"] = DEVICE_FLAG
    if args.num_generated_cases:
        env["JAX_NUM_GENERATED_CASES"] = str(args.num_generated_cases)
    cmd = [
        "timeout",
        "-k",
        "30",
        str(args.file_timeout),
        py,
        "-m",
        "pytest",
        f"{f}_test.py",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--timeout={args.timeout}",
        f"--timeout-method={args.timeout_method}",
        "-o",
        "console_output_style=classic",
        "--tb=short",
        "-rN",
    ]
    if args.jobs > 1:
        cmd += ["-n", str(args.jobs)]
    if args.k:
        cmd += ["-k", args.k]
    if args.rerun_failing:
        ids = failing_ids(args, args.rerun_failing, f)
        idfile = os.path.join(resdir, f"{f}.only_ids.txt")
        with open(idfile, "w") as fh:
            fh.write("\n".join(ids) + "\n")
        env["PORT_ONLY_IDS"] = os.path.abspath(idfile)
        if not ids:
            print(f"  {side:6s} {f:22s} nothing to rerun", flush=True)
            return
    t0 = time.time()
    with open(os.path.join(resdir, f"{f}.log"), "w") as log:
        rc = subprocess.run(
            cmd, cwd=ported, env=env, stdout=log, stderr=subprocess.STDOUT
        ).returncode
    wall = time.time() - t0
    with open(os.path.join(resdir, f"{f}.meta.json"), "w") as fh:
        json.dump(
            dict(
                rc=rc,
                wall_s=round(wall, 1),
                cmd=cmd[3:],
                xla_flags=env.get("XLA_FLAGS", ""),
                killed=rc in (124, 137),
            ),
            fh,
        )
    print(f"  {side:6s} {f:22s} rc={rc} {wall:7.1f}s", flush=True)


_NP_SCALAR_REPR = re.compile(r"np\.(?:float|int|uint|complex|bool|str|bytes)\w*\(([^()]*)\)")


def norm_id(nodeid):
    """Test ids built from parameter reprs differ between NumPy 1.x and 2.x (numpy.bool_ vs
    numpy.bool, 1.0 vs np.float64(1.0)); map both spellings to one so the two sides join."""
    nodeid = nodeid.replace("numpy.bool_", "numpy.bool")
    nodeid = re.sub(r"bool_(?=\W|$)", "bool", nodeid)
    return _NP_SCALAR_REPR.sub(r"\1", nodeid)


def failing_ids(args, side, f):
    """Ids of tests that pass under JAX but not under `side` (for --rerun-failing)."""
    j, o = load(args, "jax", f), load(args, side, f)
    if j is None or o is None:
        return []
    return sorted(
        k
        for k, t in j["tests"].items()
        if t["outcome"] == "passed" and o["tests"].get(k, {}).get("outcome") != "passed"
    )


def load(args, side, f):
    """Per-test outcome: passed / failed / error / skipped, plus messages."""
    out = args if isinstance(args, str) else args.out
    path = os.path.join(out, "results", side, f"{f}.jsonl")
    tests, collected, coll_errors = {}, 0, []
    if not os.path.exists(path):
        return None
    for line in open(path):
        r = json.loads(line)
        if r["kind"] == "collected":
            collected = max(collected, r["n"])
            continue
        if r["kind"] == "collect_error":
            coll_errors.append(r)
            continue
        t = tests.setdefault(
            norm_id(r["nodeid"]), {"outcome": None, "msg": "", "tb": "", "dur": 0.0}
        )
        t["dur"] += r.get("dur", 0.0)
        w, o = r["when"], r["outcome"]
        if o == "failed":
            if w == "call":
                t["outcome"] = "failed"
            elif t["outcome"] != "failed":
                t["outcome"] = "error"
            if not t["msg"] or w == "call":
                t["msg"], t["tb"], t["when"] = r.get("msg", ""), r.get("tb", ""), w
        elif o == "skipped":
            if t["outcome"] is None:
                t["outcome"] = "skipped"
                t["msg"] = r.get("msg", "")
        elif o == "passed" and w == "call" and t["outcome"] is None:
            t["outcome"] = "passed"
    for t in tests.values():
        if t["outcome"] is None:
            t["outcome"] = "error"  # setup passed, call never reported (worker crash / killed)
    meta_p = os.path.join(out, "results", side, f"{f}.meta.json")
    meta = json.load(open(meta_p)) if os.path.exists(meta_p) else {}
    return dict(
        tests=tests, collected=max(collected, len(tests)), collect_errors=coll_errors, meta=meta
    )


EXCLUSIONS_FILE = os.path.join(HERE, "exclusions.toml")


@functools.cache
def exclusions():
    """[(file, compiled pattern, reason)] from exclusions.toml (see the header there)."""
    with open(EXCLUSIONS_FILE, "rb") as fh:
        entries = tomllib.load(fh)["exclude"]
    return [(e["file"], re.compile(e["pattern"]), e["reason"]) for e in entries]


def exclusion_reason(f, nodeid):
    """The reason a JAX-passing test of file `f` is left out of the comparison, or None."""
    name = nodeid.split("::", 1)[-1]
    for file, pattern, reason in exclusions():
        if file == f and pattern.search(name):
            return reason
    return None


def summarize(args, files):
    rows, summary = [], {}
    for f in files:
        res = {s: load(args, s, f) for s in ("jax", "numjax")}
        row = {"file": f"{f}_test.py"}
        for s, r in res.items():
            if r is None:
                row[s] = None
                continue
            c = collections.Counter(t["outcome"] for t in r["tests"].values())
            row[s] = dict(
                collected=r["collected"],
                passed=c["passed"],
                failed=c["failed"],
                error=c["error"] + len(r["collect_errors"]),
                skipped=c["skipped"],
                not_run=max(0, r["collected"] - len(r["tests"])),
                killed=r["meta"].get("killed", False),
                wall_s=r["meta"].get("wall_s"),
            )
        if res["jax"] and res["numjax"]:
            jp = {k for k, t in res["jax"]["tests"].items() if t["outcome"] == "passed"}
            excluded = {k for k in jp if exclusion_reason(f, k) is not None}
            jp -= excluded
            nt = res["numjax"]["tests"]
            row["jax_pass"] = len(jp)
            row["excluded"] = len(excluded)
            row["nj_pass_on_jax_pass"] = sum(
                1 for k in jp if nt.get(k, {}).get("outcome") == "passed"
            )
            row["nj_outcomes_on_jax_pass"] = dict(
                collections.Counter(nt[k]["outcome"] if k in nt else "absent" for k in jp)
            )
        rows.append(row)
    summary["rows"] = rows
    os.makedirs(os.path.join(args.out, "results"), exist_ok=True)
    with open(os.path.join(args.out, "results", "summary.json"), "w") as fh:
        json.dump(summary, fh, indent=1)
    print_table(rows)


def print_table(rows):
    def cell(d, k):
        return (
            "-" if d is None else str(d[k]) + ("*" if k == "collected" and d.get("killed") else "")
        )

    hdr = (
        "| file | collected (JAX / numjax) | passed | failed | errored | skipped | "
        "excluded | numjax passes / JAX-passing | rate |"
    )
    print(hdr)
    print("|" + "---|" * 9)
    tot = collections.Counter()
    for r in rows:
        j, n = r.get("jax"), r.get("numjax")
        parts = [r["file"]]
        for k in ("collected", "passed", "failed", "error", "skipped"):
            parts.append(f"{cell(j, k)} / {cell(n, k)}")
            for side, d in (("j", j), ("n", n)):
                if d:
                    tot[side + k] += d[k]
        if "jax_pass" in r:
            jp, np_ = r["jax_pass"], r["nj_pass_on_jax_pass"]
            tot["jp"] += jp
            tot["np"] += np_
            tot["ex"] += r["excluded"]
            parts += [str(r["excluded"]), f"{np_} / {jp}", f"{100 * np_ / jp:.1f}%" if jp else "-"]
        else:
            parts += ["-", "-", "-"]
        print("| " + " | ".join(parts) + " |")
    parts = ["**total**"] + [
        f"{tot['j' + k]} / {tot['n' + k]}"
        for k in ("collected", "passed", "failed", "error", "skipped")
    ]
    parts += [
        str(tot["ex"]),
        f"{tot['np']} / {tot['jp']}",
        f"{100 * tot['np'] / max(tot['jp'], 1):.1f}%",
    ]
    print("| " + " | ".join(parts) + " |")
    print("(* = the file run hit the file time limit; its counts are partial)")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--jax-git-dir")
    ap.add_argument("--rev", default=REV)
    ap.add_argument("--out", required=True, help="a work directory outside the repository")
    ap.add_argument("--jax-python")
    ap.add_argument("--numjax-python")
    ap.add_argument(
        "--numjax-np1-python",
        help='side "numjax-np1": a NumPy 1.x interpreter (default: --jax-python) that '
        "imports numjax from --numjax-src; separates NumPy-2 effects of the "
        "reference computations from numjax behaviour",
    )
    ap.add_argument(
        "--numjax-src",
        help="directory holding the numjax package, put first on PYTHONPATH for the numjax "
        "sides (needed for numjax-np1; otherwise the interpreter's installed numjax is used)",
    )
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--sides", default="jax,numjax")
    ap.add_argument("-n", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300, help="per-test limit (s)")
    ap.add_argument(
        "--timeout-method",
        default="thread",
        choices=("thread", "signal"),
        help="pytest-timeout's method: 'thread' ends a test stuck outside Python code too (a "
        "lock, a native call), where 'signal' never fires; with -n 2 only that worker is "
        "replaced",
    )
    ap.add_argument("--file-timeout", type=int, default=5400, help="per-file, per-side limit (s)")
    ap.add_argument(
        "--num-generated-cases",
        type=int,
        default=0,
        help="JAX_NUM_GENERATED_CASES (0: leave JAX's default of 10)",
    )
    ap.add_argument("-k", default="", help="pytest -k expression (sampling)")
    ap.add_argument(
        "--rerun-failing",
        metavar="SIDE",
        default="",
        help="run only the tests that pass under JAX but not under SIDE (e.g. run "
        "side numjax-np1 on numjax's failures)",
    )
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    files = [f.strip() for f in args.files.split(",") if f.strip()]
    if not args.report_only:
        if not args.jax_git_dir:
            ap.error("--jax-git-dir is required unless --report-only")
        generate(args, files)
        if not args.generate_only:
            for f in files:
                for side in args.sides.split(","):
                    run_one(args, side, f)
    if not args.generate_only:
        summarize(args, files)


if __name__ == "__main__":
    main()
