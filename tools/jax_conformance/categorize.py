#!/usr/bin/env python3
"""Group numjax's failures (on tests that pass under real JAX) into categories.

    python categorize.py [--out DIR] [--dump] [--signatures N]

Reads DIR/results/{jax,numjax}/<file>.jsonl (written by run_suite.py). A category is the first
rule in RULES whose regex matches "<message>\n<traceback>" of the numjax failure; the rest fall
into 'other: <normalised message>'. Writes DIR/results/categories.json and prints counts.
"""

import argparse
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_suite  # noqa: E402

# (category, regex over "<test name>\n<message>\n<traceback>"). First match wins.
RULES = [
    # -- missing API ------------------------------------------------------------------------------
    (
        "missing API: jax.pmap (and pmap-only options such as jax_eager_pmap)",
        r"has no attribute 'pmap'|missing public API: jax\.pmap|jax_eager_pmap|jax_pmap_|_cpp_pmap",
    ),
    ("missing API: jax.experimental.checkify", r"jax\.experimental\.checkify|checkify"),
    (
        "missing API: sharding (Mesh, NamedSharding, PartitionSpec, pjit, shard_map, "
        "with_sharding_constraint, inspect/visualize_array_sharding)",
        r"jax\.sharding\.|numjax\.sharding' has no attribute|jax\.experimental\.(pjit|shard_map)"
        r"|with_sharding_constraint|inspect_array_sharding|visualize_array_sharding|make_mesh",
    ),
    ("missing API: PRNG implementations rbg / unsafe_rbg", r"implements only the threefry"),
    (
        "missing API: PRNG options (jax.legacy_prng_key, jax.debug_key_reuse, "
        "jax_random_seed_offset, custom PRNG)",
        r"legacy_prng_key|debug_key_reuse|enable_custom_prng|random_seed_offset",
    ),
    (
        "missing API: PRNG key arrays (attributes, key dtypes in jnp/eval_shape/custom_vjp)",
        r"'PRNGKeyArray' object has no attribute|key<fry>|PRNGKeyArray",
    ),
    (
        "missing API: jax.custom_batching (custom_vmap) / jax.custom_transpose",
        r"custom_batching|custom_transpose|custom_vmap|at_least_vspace",
    ),
    (
        "missing API: lax collectives (psum_scatter, pdot) / all_to_all with a vmap axis name",
        r"psum_scatter|'pdot'|unbound axis name",
    ),
    (
        "missing API: AOT/compiled-object details, xla_computation, print_environment_info",
        r"'(Lowered|Compiled|LoweredModule|Backend)' object has no attribute|xla_computation"
        r"|print_environment_info|lowering_platforms|create_token",
    ),
    (
        "missing API: lax functions (betainc, conv_general_dilated_patches/_local, index_take, "
        "ragged_dot, rng_bit_generator, linalg.tridiagonal ...)",
        r"module 'numjax\.[\w.]+' has no attribute",
    ),
    (
        "missing API: keyword arguments / options (device=, qr modes, interp extrapolate, polyfit "
        "full/cov, poly of a matrix, ShapeDtypeStruct named_shape)",
        r"unexpected keyword argument|UnboundLocalError: cannot access local variable 'out'"
        r"|mode of jnp\.linalg\.qr|Unsupported QR decomposition mode|Cannot determine dtype of "
        r"(extrapolate|interpolate)|polyfit with full|jnp\.poly of a matrix",
    ),
    ("missing API: other config options", r"Unrecognized config option"),
    (
        "missing API: tracer array attributes (nbytes, itemsize, tobytes)",
        r"'StagingTracer' object has no attribute",
    ),
    (
        "missing API: tree_util (PyTreeDef.walk, serialize_using_proto)",
        r"'PyTreeDef' object has no attribute",
    ),
    ("missing API (other public names)", r"missing public API|MissingAPIError"),
    # -- behaviour --------------------------------------------------------------------------------
    (
        "test inspects JAX-internal objects (vjp closure .func/.args, jaxpr equation lists, "
        "ArrayImpl._arrays, HLO text)",
        r"object has no attribute '(func|args|_arrays|shape)'|JaxprEqn\(|Var\(id=|mhlo\."
        r"|stablehlo\."
        r"|Precision\.(DEFAULT|HIGH)' not found|\[convert_element_type|\[dot_general\]",
    ),
    (
        "strict promotion: a NumPy float64/complex128 input is not canonicalized (x64 off) before "
        "the strict check",
        r"TypePromotionError: Input dtypes \(.*'(float64|complex128)'",
    ),
    (
        "strict promotion raised inside numjax library code (implicit promotion in jnp/scipy "
        "internals, jax_numpy_dtype_promotion=strict)",
        r"TypePromotionError",
    ),
    (
        "rank promotion raised inside numjax library code (jax_numpy_rank_promotion=raise)",
        r"jax_numpy_rank_promotion='raise'",
    ),
    (
        "complex inputs rejected (comparisons/ordering, logaddexp, searchsorted, interp, isfinite)",
        r"does not accept dtype complex|requires arguments to have the same dtypes, got "
        r"(float\d+, complex|complex\d+, float)",
    ),
    (
        "mixed operand dtypes rejected by lax ops (dot_general, add/mul with preferred types)",
        r"dot_general requires operands of the same dtype"
        r"|lax\.\w+ requires arguments to have the same dtypes",
    ),
    (
        "operand ranks not broadcast by numjax (random samplers, lax ops)",
        r"arrays must have same number of dimensions",
    ),
    (
        "AD through jax.checkpoint/remat fails (bilinear transpose, tracer conversion, "
        "custom_jvp_call transpose, internal TypeError)",
        r"(?s)^[^\n]*(remat|checkpoint|Remat)[^\n]*\n.*(TracerArrayConversionError|bilinear|custom_jvp_call"
        r"|bytes-like)|bilinear, not linear",
    ),
    (
        "linear_call / custom_vjp_call transpose not implemented",
        r"Transpose rule .* for '(custom_vjp_call|custom_jvp_call|gt)' not implemented",
    ),
    (
        "reduce_window: differentiation with a non-identity init value / generic computation",
        r"Differentiation rule for 'reduce_window'|reduce_window: the computation must return",
    ),
    ("float0 (integer-input tangents) handling", r"float0|dtype void|'V'\)"),
    (
        "size-0 arrays: gather / conv on an empty (batch) axis fail",
        r"ZeroDivisionError|must be a positive integer, got 0|must be within \[0, 0 \+ 1\)",
    ),
    (
        "jnp scalar types do not compare equal to NumPy dtypes (parameter list comes out empty)",
        r"parameterized decorator generated no test cases",
    ),
    (
        "JAX 0.4.30 deprecation/future warnings not emitted (complex hypot/clip, complex "
        "astype ...)",
        r"Warning not triggered",
    ),
    ("expected exception not raised (missing validation or checks)", r"not raised"),
    ("error message text differs", r"does not match|Regex didn't match"),
    (
        "numerical mismatch: NaN/Inf where JAX is finite or vice versa",
        r"nan location mismatch|inf location mismatch|does not transpose JVP: .*nan",
    ),
    (
        "numerical mismatch (beyond the test tolerance)",
        r"Not equal to tolerance|Arrays are not equal|Mismatched elements|does not transpose JVP",
    ),
    ("result shape differs", r"Tuples differ"),
    (
        "tracer conversion / concretization error where JAX traces fine (jnp.insert, place, "
        "eye(k=), unravel_index ...)",
        r"Tracer\w*Error|ConcretizationTypeError",
    ),
    (
        "printed output / jaxpr text differs",
        r"Found\n|AssertionError: \n|AssertionError: \'[^\n]*\n",
    ),
    ("warning escalated to error (RuntimeWarning/DeprecationWarning)", r"Warning:"),
    ("test timed out", r"Timeout"),
    ("NotImplementedError (other)", r"NotImplementedError"),
    ("TypeError raised by numjax (other)", r"(?m)^(E\s+)?TypeError"),
    ("ValueError raised by numjax (other)", r"(?m)^(E\s+)?ValueError"),
    (
        "other assertion (caching/retracing counts, donation, hashability, logging, object "
        "identity ...)",
        r"AssertionError|assert ",
    ),
]


def norm(msg):
    m = msg.strip().splitlines()[0] if msg.strip() else ""
    m = re.sub(r"0x[0-9a-f]+", "0x?", m)
    m = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", m)
    m = re.sub(r"'[^']{25,}'", "'...'", m)
    return m[:160]


def load(out, side, f):
    r = run_suite.load(out, side, f)
    return None if r is None else r["tests"]


def main():  # noqa: C901
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="a work directory outside the repository")
    ap.add_argument("--dump", action="store_true", help="print every failure with its category")
    ap.add_argument(
        "--signatures", type=int, default=0, help="print the N most common raw signatures"
    )
    args = ap.parse_args()
    resdir = os.path.join(args.out, "results", "jax")
    files = sorted(f[:-6] for f in os.listdir(resdir) if f.endswith(".jsonl") and ".env" not in f)
    cats = collections.defaultdict(list)
    sigs = collections.Counter()
    np1_cat = (
        "NumPy 2.x environment: passes when the same numjax runs on NumPy 1.26 "
        "(reference-NumPy or NumPy-2 behaviour difference)"
    )
    for f in files:
        jt, nt = load(args.out, "jax", f), load(args.out, "numjax", f)
        n1 = load(args.out, "numjax-np1", f) or {}
        if jt is None or nt is None:
            continue
        for k, t in jt.items():
            if t["outcome"] != "passed" or run_suite.exclusion_reason(f, k) is not None:
                continue
            n = nt.get(k)
            if (
                n is None
            ):  # e.g. testDtypeWrappers0..12 collapsed into one failing testDtypeWrappers
                n = nt.get(re.sub(r"\d+$", "", k))
            if n is None:
                cat, msg = "absent under numjax (not collected/not run)", ""
            elif n["outcome"] == "passed":
                continue
            elif n["outcome"] == "skipped":
                cat, msg = "skipped under numjax: " + norm(n["msg"]), n["msg"]
            else:
                text = k.split("::")[-1] + "\n" + (n["msg"] or "") + "\n" + (n["tb"] or "")
                cat = None
                for name, rx in RULES:
                    if re.search(rx, text, re.M):
                        cat = name
                        break
                msg = n["msg"]
                if cat is None:
                    cat = "other: " + norm(n["msg"])
                if n1.get(k, {}).get("outcome") == "passed":
                    msg = f"[{cat}] {msg}"
                    cat = np1_cat
            sigs[norm(msg)] += 1
            cats[cat].append(
                dict(
                    file=f,
                    test=k.split("::", 1)[1],
                    outcome=n["outcome"] if n else "absent",
                    msg=(msg or "")[:600],
                )
            )
    ordered = sorted(cats.items(), key=lambda kv: -len(kv[1]))
    with open(os.path.join(args.out, "results", "categories.json"), "w") as fh:
        json.dump({k: v for k, v in ordered}, fh, indent=1)
    total = sum(len(v) for v in cats.values())
    print(f"{total} numjax non-passes on JAX-passing tests")
    for k, v in ordered:
        byfile = collections.Counter(x["file"] for x in v)
        print(f"{len(v):5d}  {k}   [{', '.join(f'{a}:{b}' for a, b in byfile.most_common(4))}]")
        if args.dump:
            for x in v:
                print(f"        {x['file']}::{x['test']}  {x['msg'][:200]!r}")
    if args.signatures:
        print()
        for s, c in sigs.most_common(args.signatures):
            print(f"{c:5d}  {s}")


if __name__ == "__main__":
    main()
