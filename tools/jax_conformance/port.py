"""Rewrite a JAX test file (or one of JAX's test-support modules) so that it imports only the
public `jax` API plus our stand-ins. Line numbers are preserved (multi-line imports are padded).

    python port.py SRC DST                  # a test file
    python port.py --support SRC DST        # jax/_src/test_util.py and friends (see SUPPORT)

Rules, for every import statement (at any depth):
  * JAX's test-support modules -> generated public-API copies (SUPPORT below):
      from jax._src import test_util as jtu  ->  import jtu_gen as jtu
  * internal modules (`jax._src.*`, `jax.interpreters.*`, `jax.lib.*`) -> internal_shim stand-ins:
      from jax._src import core              ->  core = _ISH._attr('jax._src', 'core')
      from jax._src.util import safe_zip     ->  safe_zip = _ISH._attr('jax._src.util', 'safe_zip')
  * top-level public `jax` imports are guarded, so that a package lacking one public module or
    name fails the tests that use it instead of the whole file:
      from jax.experimental import checkify
        ->  checkify = _ISH._guard_from('jax.experimental', 'checkify')
  * `jax.config.parse_flags_with_absl()` -> no-op (absl flag parsing is test infrastructure).
"""

import ast
import sys

SUPPORT = {
    "jax._src.test_util": "jtu_gen",
    "jax._src.public_test_util": "public_test_util_gen",
    "jax._src.internal_test_util.lax_test_util": "lax_test_util_gen",
    "jax._src.lax_reference": "lax_reference_gen",
}
INTERNAL_PREFIXES = ("jax._src", "jax.interpreters", "jax.lib")
ISH = "__import__('internal_shim')"


def _is_internal(mod):
    return any(mod == p or mod.startswith(p + ".") for p in INTERNAL_PREFIXES)


def _is_public_jax(mod):
    return mod == "jax" or mod.startswith("jax.")


def _rewrite_import(node, top_level):  # noqa: C901
    """Replacement source (one logical line, `;`-joined) for an import node, or None to keep."""
    out = []
    if isinstance(node, ast.Import):
        for a in node.names:
            name = a.name
            if name in SUPPORT:
                out.append(f"import {SUPPORT[name]} as {a.asname or name.split('.')[-1]}")
            elif _is_internal(name):
                if a.asname:
                    out.append(f"{a.asname} = {ISH}._mod({name!r})")
                else:
                    out.append(
                        "import jax"
                    )  # `import jax._src.x` binds `jax`; uses of jax._src.x fail
            elif _is_public_jax(name) and name != "jax" and top_level:
                if a.asname:
                    out.append(f"{a.asname} = {ISH}._guard_import({name!r})")
                else:
                    out.append(f"{ISH}._guard_import({name!r}); import jax")
            elif name == "jax" and top_level and not a.asname:
                out.append(f"import jax; {ISH}.lenient_all()")
            else:
                out.append(f"import {name}" + (f" as {a.asname}" if a.asname else ""))
        if all(o.startswith("import ") and ";" not in o for o in out) and not any(
            a.name in SUPPORT for a in node.names
        ):
            return None  # unchanged
        return "; ".join(out)

    mod = node.module or ""
    if node.level:
        return None
    if mod == "jax.experimental" and any(a.name == "host_callback" for a in node.names):
        for a in node.names:
            bind = a.asname or a.name
            if a.name == "host_callback":
                out.append(f"{bind} = {ISH}._hcb_bind()")
            else:
                out.append(f"{bind} = {ISH}._guard_from({mod!r}, {a.name!r})")
        return "; ".join(out)
    if mod == "jax.experimental.host_callback":
        for a in node.names:
            bind = a.asname or a.name
            if a.name == "_deprecated_id_print":
                out.append(f"{bind} = {ISH}._hcb_deprecated_id_print()")
            elif a.name.startswith("_"):
                out.append(f'{bind} = {ISH}._Unavail("jax.experimental.host_callback.{a.name}")')
            else:
                out.append(f"{bind} = {ISH}._guard_from({mod!r}, {a.name!r})")
        return "; ".join(out)
    if mod == "jax.test_util" and all(
        a.name in ("check_grads", "check_jvp", "check_vjp") for a in node.names
    ):
        # jax.test_util.check_grads *is* jax._src.public_test_util.check_grads in JAX 0.4.30: use
        # the generated copy of JAX's checker, so gradient tests measure the package's derivatives
        # rather than the package's own checker.
        names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
        return f"from public_test_util_gen import {names}"
    if mod in SUPPORT:
        names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
        return f"from {SUPPORT[mod]} import {names}"
    sub = [f"{mod}.{a.name}" for a in node.names]
    if any(s in SUPPORT for s in sub):
        for a, s in zip(node.names, sub, strict=False):
            bind = a.asname or a.name
            if s in SUPPORT:
                out.append(f"import {SUPPORT[s]} as {bind}")
            else:
                out.append(f"{bind} = {ISH}._attr({mod!r}, {a.name!r})")
        return "; ".join(out)
    if _is_internal(mod):
        for a in node.names:
            if a.name == "*":
                return f"pass  # dropped: from {mod} import *"
            out.append(f"{a.asname or a.name} = {ISH}._attr({mod!r}, {a.name!r})")
        return "; ".join(out)
    if _is_public_jax(mod) and top_level:
        for a in node.names:
            if a.name == "*":
                return None
            out.append(f"{a.asname or a.name} = {ISH}._guard_from({mod!r}, {a.name!r})")
        return "; ".join(out)
    return None


# Per-file textual patches, applied after the import rewrite. Each keeps the test's intent and
# only removes a dependency on the environment that JAX 0.4.30's tests never met.
PATCHES = {
    "lax_numpy_test.py": [
        # NumPy >= 2.2 has gufuncs (matvec, vecmat, ...) that raise ValueError, not TypeError, on
        # 1-d inputs; at import time this aborted the whole file under NumPy 2.x.
        (
            '      with jtu.ignore_warning(category=RuntimeWarning, message="divide by zero"):\n'
            "        _ = func(*args)\n"
            "    except TypeError:\n",
            '      with jtu.ignore_warning(category=RuntimeWarning, message="divide by zero"):\n'
            "        _ = func(*args)\n"
            "    except (TypeError, ValueError):\n",
        ),
    ],
}


def port_source(src, filename=None):
    tree = ast.parse(src)
    lines = src.split("\n")
    top = {id(n) for n in tree.body}
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            new = _rewrite_import(node, id(node) in top)
            if new is not None:
                edits.append((node.lineno, node.end_lineno, node.col_offset, new))
    for start, end, col, new in sorted(edits, reverse=True):
        prefix = lines[start - 1][:col]  # indentation, or `try: ` of a one-line try
        lines[start - 1 : end] = [prefix + new] + [""] * (end - start)
    out = "\n".join(lines)
    out = out.replace(
        "jax.config.parse_flags_with_absl()", "pass  # jax.config.parse_flags_with_absl()"
    )
    # the private Config._read -> the public attribute read (through internal_shim's config)
    out = out.replace("jax.config._read(", f"{ISH}._mod('jax._src.config')._read(")
    for old, new in PATCHES.get(filename or "", []):
        if old not in out:
            raise ValueError(f"port.py: patch for {filename} no longer applies: {old[:60]!r}")
        out = out.replace(old, new)
    return out


def main(argv):
    support = False
    if argv and argv[0] == "--support":
        support, argv = True, argv[1:]
    src, dst = argv
    text = port_source(open(src).read(), src.split("/")[-1])
    if support:
        text = (
            "# Generated by port.py --support from JAX's "
            + src.split("/")[-1]
            + "; do not edit.\n"
            + text
        )
    open(dst, "w").write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
