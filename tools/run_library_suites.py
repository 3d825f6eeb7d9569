"""Run JAX libraries' own test suites against numjax and print the pass counts beside JAX's.

Each library's tests run in a fresh interpreter under pytest, with `import jax` resolved to
numjax (`numjax.compat.install()` before collection). The suites are the ones the pinned
wheels ship (`tests/ecosystem/requirements.txt` installs them without jax or jaxlib); a
library whose wheel has none takes a source checkout's test folder with `--tests DIR`.

    python tools/run_library_suites.py chex optax
    python tools/run_library_suites.py --jax-python ~/jax-env/bin/python chex
    python tools/run_library_suites.py --tests ~/src/lineax/tests lineax

diffrax, lineax, optimistix and jaxopt ship their tests in neither wheel nor sdist (blackjax's
sdist has them): `--tests` takes the release tag's test folder, and the checkout's root goes on
the import path (blackjax's tests import `tests.*`); jaxopt's tests need scikit-learn. Where a
suite is too slow to run whole here, `Library.subset` names the files run (and counted), and
`Library.every` runs every k-th of their tests (a systematic sample, the same on both sides).

The table prints, per library, numjax's passed/failed/errors/skipped and JAX 0.4.30's passed
count: recorded below, or measured now with `--jax-python` (an interpreter that has jax 0.4.30
and the same library versions). Failures are listed per test with `--list-failures`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Library:
    module: str  # the import name
    version: str  # the pinned version (tests/ecosystem/requirements.txt)
    pattern: str = "*_test.py"  # the test files the wheel ships
    # Environment variables the suite reads (einops' tests name the backends to test).
    env: tuple[tuple[str, str], ...] = ()
    # Test files or folders left out (by name), with the reason at the entry.
    skip: tuple[str, ...] = ()
    # Test files (relative to the test folder) run instead of every `pattern` file, for a suite
    # too slow to run whole here: a named, representative part of it.
    subset: tuple[str, ...] = ()
    # Run every `every`-th test of the files (in collection order, from the first), for a suite
    # whose whole run on both interpreters does not fit the time: a systematic sample that
    # reaches every file and every parametrized test function in proportion.
    every: int = 1


LIBRARIES = {
    "chex": Library("chex", "0.1.86"),
    "optax": Library("optax", "0.2.3"),
    # distrax's 12,336 tests take about 3 hours per side here: measured in three parts, the
    # last of them (the 32 other files, 10,615 tests) run in groups of a few files.
    "distrax": Library("distrax", "0.1.5"),
    # 33 of its files run whole on both sides (1,629 tests, 26 minutes on JAX's side here), and
    # the three that turn on jax_enable_x64 for the rest of their process, run on their own.
    "distrax-files": Library("distrax", "0.1.5", subset=(
        "_src/bijectors/bijector_test.py", "_src/bijectors/block_test.py",
        "_src/bijectors/diag_linear_test.py", "_src/bijectors/diag_plus_low_rank_linear_test.py",
        "_src/bijectors/gumbel_cdf_test.py", "_src/bijectors/linear_test.py",
        "_src/bijectors/lower_upper_triangular_affine_test.py",
        "_src/bijectors/rational_quadratic_spline_test.py", "_src/bijectors/scalar_affine_test.py",
        "_src/bijectors/shift_test.py", "_src/bijectors/sigmoid_test.py",
        "_src/bijectors/tanh_test.py", "_src/bijectors/tfp_compatible_bijector_test.py",
        "_src/bijectors/triangular_linear_test.py", "_src/bijectors/unconstrained_affine_test.py",
        "_src/distributions/clipped_test.py", "_src/distributions/distribution_test.py",
        "_src/distributions/epsilon_greedy_test.py", "_src/distributions/greedy_test.py",
        "_src/distributions/joint_test.py", "_src/distributions/log_stddev_normal_test.py",
        "_src/distributions/mixture_of_two_test.py",
        "_src/distributions/mvn_from_bijector_test.py",
        "_src/distributions/mvn_full_covariance_test.py", "_src/distributions/mvn_kl_test.py",
        "_src/distributions/softmax_test.py", "_src/distributions/straight_through_test.py",
        "_src/utils/conversion_test.py", "_src/utils/importance_sampling_test.py",
        "_src/utils/jittable_test.py", "_src/utils/math_test.py", "_src/utils/monte_carlo_test.py",
        "distrax_test.py")),
    "distrax-rest": Library("distrax", "0.1.5", subset=(
        "_src/bijectors/bijector_from_tfp_test.py", "_src/bijectors/chain_test.py",
        "_src/bijectors/inverse_test.py", "_src/bijectors/lambda_bijector_test.py",
        "_src/bijectors/masked_coupling_test.py", "_src/bijectors/split_coupling_test.py",
        "_src/distributions/bernoulli_test.py", "_src/distributions/beta_test.py",
        "_src/distributions/categorical_test.py",
        "_src/distributions/categorical_uniform_test.py",
        "_src/distributions/deterministic_test.py", "_src/distributions/dirichlet_test.py",
        "_src/distributions/distribution_from_tfp_test.py", "_src/distributions/gamma_test.py",
        "_src/distributions/gumbel_test.py", "_src/distributions/independent_test.py",
        "_src/distributions/laplace_test.py", "_src/distributions/logistic_test.py",
        "_src/distributions/mixture_same_family_test.py",
        "_src/distributions/multinomial_test.py",
        "_src/distributions/mvn_diag_plus_low_rank_test.py",
        "_src/distributions/mvn_diag_test.py", "_src/distributions/mvn_tri_test.py",
        "_src/distributions/normal_test.py", "_src/distributions/one_hot_categorical_test.py",
        "_src/distributions/quantized_test.py",
        "_src/distributions/tfp_compatible_distribution_test.py",
        "_src/distributions/transformed_test.py", "_src/distributions/uniform_test.py",
        "_src/distributions/von_mises_test.py", "_src/utils/hmm_test.py",
        "_src/utils/transformations_test.py")),
    "distrax-float64": Library("distrax", "0.1.5", subset=(
        "_src/bijectors/rational_quadratic_spline_float64_test.py",
        "_src/distributions/uniform_float64_test.py", "_src/distributions/normal_float64_test.py")),
    "flax": Library("flax", "0.8.5"),
    # haiku's integration/ tests (every module under every transformation) and numpyro's
    # test_distributions.py (about 3,000 cases) each take over an hour on two shared cores;
    # test_examples.py runs example scripts the sdist does not ship.
    "dm-haiku": Library("haiku", "0.0.12", skip=("integration",)),
    # The wheels of these two ship no linen or numpyro tests: their sdists' test folders
    # (`pip download --no-deps --no-binary :all: numpyro==0.15.1 flax==0.8.5`), given with
    # --tests: flax-0.8.5/tests/linen and numpyro-0.15.1/test.
    "flax-linen": Library("flax", "0.8.5"),
    "numpyro": Library("numpyro", "0.15.1", "test_*.py",
                       skip=("test_distributions.py", "test_examples.py")),
    # test_distributions.py's 6,500 cases, every 36th (with --tests numpyro-0.15.1/test).
    "numpyro-distributions": Library("numpyro", "0.15.1", "test_distributions.py", every=36),
    "lineax": Library("lineax", "0.0.5", "test_*.py", subset=(
        "test_misc.py", "test_transpose.py", "test_operator.py", "test_norm.py",
        "test_solve.py", "test_adjoint.py")),
    "optimistix": Library("optimistix", "0.0.7", "test_*.py", subset=(
        "test_fixed_point.py", "test_misc.py", "test_best_so_far.py", "test_compat.py",
        "test_ad.py", "test_solve.py")),
    "diffrax": Library("diffrax", "0.6.0", "test_*.py", subset=(
        "test_term.py", "test_misc.py", "test_interpolation.py", "test_local_interpolation.py",
        "test_adaptive_stepsize_controller.py", "test_step_to.py", "test_vmap.py",
        "test_saveat_solution.py", "test_typing.py", "test_progress_meter.py",
        "test_very_chord.py", "test_adjoint.py")),
    # diffrax's other 7 files (839 tests, test_integrate's 532 the most): every 8th test.
    "diffrax-rest": Library("diffrax", "0.6.0", "test_*.py", every=8, subset=(
        "test_brownian.py", "test_detest.py", "test_event.py", "test_global_interpolation.py",
        "test_integrate.py", "test_sde.py", "test_solver.py")),
    "blackjax": Library("blackjax", "1.2.1", "test_*.py", subset=(
        "test_util.py", "test_compilation.py", "mcmc/test_metrics.py", "mcmc/test_uturn.py",
        "mcmc/test_trajectory.py", "adaptation/test_step_size.py",
        "adaptation/test_mass_matrix.py", "smc/test_resampling.py")),
    "jaxopt": Library("jaxopt", "0.8.3", "*_test.py", subset=(
        "base_test.py", "tree_util_test.py", "prox_test.py", "linear_solve_test.py",
        "loop_test.py", "cond_test.py", "bisection_test.py", "isotonic_test.py")),
    "einops": Library("einops", "0.8.0", "test_*.py", (("EINOPS_TEST_BACKENDS", "numpy,jax"),)),
    "jaxtyping": Library("jaxtyping", "0.2.30", "test_*.py"),
    "equinox": Library("equinox", "0.11.4", "test_*.py"),
}

# JAX 0.4.30's counts for the same test files, measured with this script's --jax-python
# (library -> tests passed).
# einops, jaxtyping and equinox: the release tags' test folders (their wheels ship none).
RECORDED_JAX_PASSED: dict[str, int] = {"chex": 541, "optax": 2281, "distrax-files": 1371,
                                        "distrax-float64": 96, "einops": 63,
                                        "jaxtyping": 242, "equinox": 435, "dm-haiku": 1418,
                                        "flax-linen": 1066, "numpyro": 531,
                                        "jaxopt": 66, "optimistix": 51, "lineax": 375,
                                        "blackjax": 110, "numpyro-distributions": 141,
                                        "diffrax": 65}

# Runs pytest on the command line's arguments; numjax's run loads `_PLUGIN` first in every
# process (pytest-xdist's workers too), which resolves `import jax` to numjax.
_RUNNER = "import sys, pytest; sys.exit(pytest.main(sys.argv[1:]))"
_PLUGIN = "numjax_as_jax"
_PLUGIN_SOURCE = "import numjax.compat\n\nnumjax.compat.install()\n"


@dataclasses.dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    failures: list[str] = dataclasses.field(default_factory=list)
    passed_names: set[str] = dataclasses.field(default_factory=set)

    @property
    def run(self) -> int:
        return self.passed + self.failed + self.errors


def test_files(library: Library, tests_dir: Path | None) -> list[Path]:
    """The library's test files: under `tests_dir`, else those its installed package ships."""
    if tests_dir is None:
        spec = importlib.util.find_spec(library.module)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"{library.module} is not installed (see "
                             "tests/ecosystem/requirements.txt)")
        tests_dir = Path(next(iter(spec.submodule_search_locations)))
    if library.subset:
        files = [tests_dir / name for name in library.subset]
        missing = [str(f) for f in files if not f.exists()]
        if missing:
            raise SystemExit(f"not in {tests_dir}: {', '.join(missing)}")
        return files
    files = sorted(f for f in tests_dir.rglob(library.pattern)
                   if not set(library.skip) & set(f.relative_to(tests_dir).parts))
    if not files:
        raise SystemExit(f"no {library.pattern} files under {tests_dir}: pass a source "
                         "checkout's test folder with --tests")
    return files


def _pytest_env(tmp: str, numjax: bool, library: Library, root: Path | None
                ) -> tuple[dict[str, str], list[str]]:
    """The environment and plugin arguments of a pytest run in `tmp`: `root` importable, and
    `import jax` resolved to numjax if `numjax`."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", **dict(library.env))
    paths = [str(root)] if root is not None else []
    plugin: list[str] = []
    if numjax:
        (Path(tmp) / f"{_PLUGIN}.py").write_text(_PLUGIN_SOURCE)
        paths.insert(0, tmp)
        plugin = ["-p", _PLUGIN]
    env["PYTHONPATH"] = os.pathsep.join(p for p in (*paths, os.environ.get("PYTHONPATH")) if p)
    return env, plugin


def sample_tests(python: str, numjax: bool, library: Library, files: list[Path],
                 timeout: float, root: Path | None = None) -> list[str]:
    """Every `library.every`-th test id of `files` as `python` collects them, with absolute
    paths, so that both interpreters run the same tests."""
    with tempfile.TemporaryDirectory() as tmp:
        env, plugin = _pytest_env(tmp, numjax, library, root)
        # Ids relative to / are absolute paths once "/" is put back in front.
        args = [python, "-c", _RUNNER, *plugin, "--collect-only", "-q", "--rootdir=/",
                "-p", "no:cacheprovider", "-p", "no:randomly", "--import-mode=importlib",
                "--continue-on-collection-errors", "-o", "addopts=",
                "-W", "ignore::DeprecationWarning", *map(str, files)]
        out = subprocess.run(args, cwd=tmp, env=env, timeout=timeout, check=False,
                             capture_output=True, text=True).stdout
    ids = [line for line in out.splitlines() if "::" in line]
    return ["/" + test_id for test_id in ids[::library.every]]


def run_suite(python: str, numjax: bool, library: Library, files: Sequence[Path | str],
              timeout: float, workers: int, root: Path | None = None) -> Counts:
    """Run pytest on `files` (paths or test ids) in a fresh `python` (with `import jax`
    resolved to numjax if `numjax`, and `root`, a source checkout, importable); the counts from
    its JUnit report."""
    if numjax:
        # A test id that prints a jnp scalar type names numjax's module (distrax's
        # `test_dtypes_(dtypes=(<class 'jax.numpy.float32'>, ...))`).
        files = [f.replace("<class 'jax.", "<class 'numjax.") if isinstance(f, str) else f
                 for f in files]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        env, plugin = _pytest_env(tmp, numjax, library, root)
        args = [python, "-c", _RUNNER, *plugin, "-q", "-p", "no:cacheprovider",
                "-p", "no:randomly",
                "--import-mode=importlib", "--continue-on-collection-errors",
                f"--junitxml={report}", "-o", "addopts=",
                "-W", "ignore::DeprecationWarning", *map(str, files)]
        if workers > 1:
            args[3:3] = ["-n", str(workers)]
        try:
            subprocess.run(args, cwd=tmp, env=env, timeout=timeout, check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            # pytest writes its JUnit report at the end: a suite cut short reports nothing.
            print(f"  timed out after {timeout:.0f} s: no counts (raise --timeout)",
                  file=sys.stderr)
        return _read_report(report)


def _read_report(report: Path) -> Counts:
    counts = Counts()
    if not report.exists():
        return counts
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}".replace("numjax.", "jax.")
        tags = {child.tag for child in case}
        if "failure" in tags:
            counts.failed += 1
            counts.failures.append(name)
        elif "error" in tags:
            counts.errors += 1
            counts.failures.append(name)
        elif "skipped" in tags:
            counts.skipped += 1
        else:
            counts.passed += 1
            counts.passed_names.add(name)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("libraries", nargs="*", default=["chex", "optax"],
                        help=f"some of {', '.join(LIBRARIES)}")
    parser.add_argument("--tests", type=Path, help="a source checkout's test folder "
                        "(for a single library whose wheel ships no tests)")
    parser.add_argument("--jax-python", help="an interpreter with jax 0.4.30 and the same "
                        "library versions: measure JAX's counts now")
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds per suite and interpreter")
    parser.add_argument("--workers", type=int, default=1, help="pytest-xdist workers")
    parser.add_argument("--list-failures", action="store_true")
    args = parser.parse_args(argv)
    if args.tests is not None and len(args.libraries) != 1:
        parser.error("--tests goes with exactly one library")

    rows = []
    for name in args.libraries:
        library = LIBRARIES[name]
        files: Sequence[Path | str] = test_files(library, args.tests)
        print(f"{name} {library.version}: {len(files)} test files", file=sys.stderr)
        # A checkout's tests may import their own folder as a package (blackjax's `tests.*`).
        root = args.tests.resolve().parent if args.tests is not None else None
        if library.every > 1:
            # Collected by JAX's interpreter when there is one (the ids JAX's counts name).
            files = sample_tests(args.jax_python or sys.executable, not args.jax_python,
                                 library, test_files(library, args.tests), args.timeout, root)
            print(f"  every {library.every}th test: {len(files)} tests", file=sys.stderr)
        ours = run_suite(sys.executable, True, library, files, args.timeout, args.workers,
                         root)
        # Of the tests JAX passes, the share numjax passes (measured: by name; recorded: by
        # count).
        if args.jax_python:
            theirs = run_suite(args.jax_python, False, library, files, args.timeout,
                               args.workers, root)
            jax_passed: int | None = theirs.passed
            both = len(theirs.passed_names & ours.passed_names)
            share = f"{both / theirs.passed:.1%}" if theirs.passed else "-"
            if args.list_failures:
                for failure in sorted(theirs.passed_names - ours.passed_names):
                    print(f"  passes under JAX, not numjax: {failure}")
        else:
            jax_passed = RECORDED_JAX_PASSED.get(name)
            share = f"{min(ours.passed / jax_passed, 1.0):.1%}" if jax_passed else "-"
            if args.list_failures:
                for failure in ours.failures:
                    print(f"  fails under numjax: {failure}")
        rows.append((name, library.version, ours, jax_passed, share))

    print(f"{'library':<12} {'version':<8} {'passed':>7} {'failed':>7} {'errors':>7} "
          f"{'skipped':>8} {'JAX passed':>11} {'share':>7}")
    for name, version, ours, jax_passed, share in rows:
        print(f"{name:<12} {version:<8} {ours.passed:>7} {ours.failed:>7} {ours.errors:>7} "
              f"{ours.skipped:>8} {jax_passed if jax_passed is not None else '-':>11} "
              f"{share:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
