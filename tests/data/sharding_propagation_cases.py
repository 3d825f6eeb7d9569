"""The operations and input layouts of tests/api/test_sharding_propagation.py, shared with
tools/make_sharding_propagation_golden.py, which records what JAX 0.4.30 gives for them.

Each operation is `f(jnp, lax, x)` (either library's modules), on x of shape (8, 8) holding
arange(64) / 10 in float32, laid out by each of LAYOUTS: (mesh shape, axis names, spec).
"""

from typing import Any

OPS: dict[str, Any] = {
    # elementwise, and operations laying out their result as their operand
    "neg": lambda jnp, lax, x: -x,
    "where": lambda jnp, lax, x: jnp.where(x > 1, x, 0.0),
    "astype": lambda jnp, lax, x: x.astype(jnp.int32),
    "iota_add": lambda jnp, lax, x: x + jnp.arange(8.0),
    "add_T": lambda jnp, lax, x: x + x.T,
    "softmax1": lambda jnp, lax, x: jnp.exp(x) / jnp.exp(x).sum(1, keepdims=True),
    "triu": lambda jnp, lax, x: jnp.triu(x),
    "cumsum0": lambda jnp, lax, x: jnp.cumsum(x, axis=0),
    "cumsum1": lambda jnp, lax, x: jnp.cumsum(x, axis=1),
    "rev_cumsum": lambda jnp, lax, x: lax.cumsum(x, axis=0, reverse=True),
    "cummax0": lambda jnp, lax, x: lax.cummax(x, axis=0),
    "sort0": lambda jnp, lax, x: jnp.sort(x, axis=0),
    "sort1": lambda jnp, lax, x: jnp.sort(x, axis=1),
    "flip0": lambda jnp, lax, x: jnp.flip(x, 0),
    "roll0": lambda jnp, lax, x: jnp.roll(x, 1, 0),
    "pad0": lambda jnp, lax, x: jnp.pad(x, ((1, 1), (0, 0))),
    "pad1": lambda jnp, lax, x: jnp.pad(x, ((0, 0), (2, 2))),
    "scatter_rows": lambda jnp, lax, x: x.at[jnp.array([1, 5])].set(0.0),
    "scatter_add_row": lambda jnp, lax, x: x.at[0].add(1.0),
    "scatter_cols": lambda jnp, lax, x: x.at[:, jnp.array([1, 5])].set(0.0),
    "scatter_elem": lambda jnp, lax, x: x.at[2, 3].add(1.0),
    "dyn_update": lambda jnp, lax, x: lax.dynamic_update_slice(x, jnp.zeros((2, 8)), (2, 0)),
    # indexing and slicing
    "idx0": lambda jnp, lax, x: x[0],
    "idx_col0": lambda jnp, lax, x: x[:, 0],
    "slice13": lambda jnp, lax, x: x[1:3],
    "slice_step": lambda jnp, lax, x: x[::2],
    "dyn_slice": lambda jnp, lax, x: lax.dynamic_slice(x, (2, 0), (4, 8)),
    "dyn_slice_traced": lambda jnp, lax, x: lax.dynamic_slice(
        x, (x[0, 0].astype(jnp.int32) + 2, 0), (4, 8)),
    "take0": lambda jnp, lax, x: jnp.take(x, jnp.array([3, 1, 5]), axis=0),
    "take1": lambda jnp, lax, x: jnp.take(x, jnp.array([3, 1, 5]), axis=1),
    "gather_rows": lambda jnp, lax, x: x[jnp.array([0, 7, 2, 2])],
    "diag": lambda jnp, lax, x: jnp.diagonal(x),
    # reductions
    "sum0": lambda jnp, lax, x: x.sum(0),
    "sum1": lambda jnp, lax, x: x.sum(1),
    "sum": lambda jnp, lax, x: x.sum(),
    "max0": lambda jnp, lax, x: x.max(0),
    "prod0": lambda jnp, lax, x: x.prod(0),
    "argmax0": lambda jnp, lax, x: jnp.argmax(x, 0),
    "argmax1": lambda jnp, lax, x: jnp.argmax(x, 1),
    "mean_keep0": lambda jnp, lax, x: x.mean(0, keepdims=True),
    # products
    "matmul": lambda jnp, lax, x: x @ x,
    "matmul_T": lambda jnp, lax, x: x @ x.T,
    "gram": lambda jnp, lax, x: x.T @ x,
    "matvec": lambda jnp, lax, x: x @ jnp.ones(x.shape[-1]),
    "vecmat": lambda jnp, lax, x: jnp.ones(x.shape[0]) @ x,
    "einsum_rowdot": lambda jnp, lax, x: jnp.einsum("ij,ij->i", x, x),
    "einsum_batch": lambda jnp, lax, x: jnp.einsum("bi,bj->bij", x, x),
    "outer": lambda jnp, lax, x: x[:, :, None] * x[:, None, :],
    # shapes
    "transpose": lambda jnp, lax, x: x.T,
    "flatten": lambda jnp, lax, x: x.reshape(-1),
    "reshape_split0": lambda jnp, lax, x: x.reshape(2, 4, 8),
    "reshape_split1": lambda jnp, lax, x: x.reshape(8, 2, 4),
    "reshape_4_16": lambda jnp, lax, x: x.reshape(4, 16),
    "reshape_16_4": lambda jnp, lax, x: x.reshape(16, 4),
    "broadcast_lead": lambda jnp, lax, x: jnp.broadcast_to(x, (4, 8, 8)),
    "expand0": lambda jnp, lax, x: x[None],
    "expand1": lambda jnp, lax, x: x[:, None],
    "concat0": lambda jnp, lax, x: jnp.concatenate([x, x], 0),
    "concat1": lambda jnp, lax, x: jnp.concatenate([x, x], 1),
    "concat_T": lambda jnp, lax, x: jnp.concatenate([x, x.T], 0),
    "stack0": lambda jnp, lax, x: jnp.stack([x, x], 0),
    "tile": lambda jnp, lax, x: jnp.tile(x, (2, 1)),
    "repeat0": lambda jnp, lax, x: jnp.repeat(x, 2, axis=0),
    "const_out": lambda jnp, lax, x: jnp.ones((8, 8)) + 0 * x.sum(),
    "squeeze_expand": lambda jnp, lax, x: jnp.squeeze(x[:, None, :], 1),
    "one_hot": lambda jnp, lax, x: (x[:, :, None] == jnp.arange(3.0)).astype(jnp.float32),
    "linspace_add": lambda jnp, lax, x: x + jnp.linspace(0, 1, 8)[:, None],
    "select_T": lambda jnp, lax, x: jnp.where(x.T > 2, x, x.T),
    "clip": lambda jnp, lax, x: jnp.clip(x, 1.0, 3.0),
    "stop_gradient": lambda jnp, lax, x: lax.stop_gradient(x) * 2.0,
    "centered": lambda jnp, lax, x: x - x.mean(),
    "logsumexp1": lambda jnp, lax, x: jnp.log(jnp.sum(jnp.exp(x), 1)),
    "norm1": lambda jnp, lax, x: jnp.linalg.norm(x, axis=1),
    "tril_sum": lambda jnp, lax, x: jnp.tril(x).sum(1),
    "cumprod1": lambda jnp, lax, x: jnp.cumprod(x / 4, axis=1),
    "argsort0": lambda jnp, lax, x: jnp.argsort(x, axis=0),
    "top_k": lambda jnp, lax, x: lax.top_k(x, 3)[0],
    "reduce_window": lambda jnp, lax, x: lax.reduce_window(x, 0.0, lax.add, (2, 1), (2, 1),
                                                           "VALID"),
    "conv_same": lambda jnp, lax, x: lax.conv_general_dilated(
        x[:, None, :], jnp.ones((2, 1, 3)), (1,), "SAME"),
    "conv_valid": lambda jnp, lax, x: lax.conv_general_dilated(
        x[:, None, :], jnp.ones((2, 1, 3)), (1,), "VALID"),
    "conv_nwc": lambda jnp, lax, x: lax.conv_general_dilated(
        x[:, :, None], jnp.ones((3, 1, 4)), (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")),
    "convolve_same": lambda jnp, lax, x: jnp.convolve(x.reshape(-1), jnp.array([1.0, 2.0, 1.0]),
                                                      mode="same"),
    "convolve_full": lambda jnp, lax, x: jnp.convolve(x.reshape(-1), jnp.array([1.0, 2.0, 1.0])),
    "convolve_rows": lambda jnp, lax, x: jnp.convolve(x.sum(1), jnp.array([1.0, 2.0, 1.0]),
                                                      mode="same"),
    # layouts JAX's partitioner carries backwards: a value unsplit on its way forward takes
    # the split another use of it gets (the weights of a dense layer's forward product,
    # contracted with x's split, split the backward product's result)
    "backward_dense": lambda jnp, lax, x: _backward_dense(jnp, x),
    "shared_const": lambda jnp, lax, x: (jnp.ones((8, 8)) * 2) @ (x + jnp.ones((8, 8)) * 2),
    # control flow
    "fori": lambda jnp, lax, x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x),
    "while": lambda jnp, lax, x: lax.while_loop(lambda c: c[0, 0] < 10, lambda c: c + 1.0, x),
    "scan_rows": lambda jnp, lax, x: lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(8), x)[1],
    "scan_carry": lambda jnp, lax, x: lax.scan(lambda c, r: (c + r, None), x,
                                               jnp.arange(3.0))[0],
    "cond": lambda jnp, lax, x: lax.cond(True, lambda v: v * 2.0, lambda v: v - 1.0, x),
    "cond_traced": lambda jnp, lax, x: lax.cond(x[0, 0] > 0, lambda v: v * 2.0,
                                                lambda v: v - 1.0, x),
}


def _backward_dense(jnp: Any, x: Any) -> Any:
    """The gradient of sum(tanh(x @ w)) with respect to x, written out."""
    w = jnp.arange(64.0).reshape(8, 8) / 64
    h = jnp.tanh(x @ w)
    return (1 - h**2) @ w.T


LAYOUTS: list[tuple[tuple[int, ...], tuple[str, ...], tuple[Any, ...]]] = [
    ((2,), ("x",), ("x",)),
    ((2,), ("x",), (None, "x")),
    ((4,), ("x",), ("x",)),
    ((4,), ("x",), (None, "x")),
    ((8,), ("x",), ("x",)),
    ((8,), ("x",), (None, "x")),
    ((2, 2), ("x", "y"), ("x", "y")),
    ((2, 4), ("x", "y"), ("x", "y")),
    ((2, 4), ("x", "y"), ("y", "x")),
    ((2, 4), ("x", "y"), ("x",)),
    ((2, 4), ("x", "y"), (None, "y")),
    ((2, 4), ("x", "y"), (("x", "y"),)),
]

# Operations also run eagerly (each primitive on its own in numjax; in JAX some jnp functions
# are one jitted program, others op by op).
EAGER_OPS = ["cumsum0", "idx_col0", "matmul", "reshape_16_4", "concat1", "take1", "sort0",
             "pad1", "mean_keep0", "outer", "einsum_batch", "add_T", "slice13", "dyn_slice"]


def combo_fn(jnp: Any, x: Any) -> Any:
    """jit(combo_fn, in_shardings=, out_shardings=) runs on every combination of: a mesh, an
    input sharding asked for (None: not asked), an output sharding asked for, and the
    argument (a host array, or an Array laid out by one of COMBO_ARGS)."""
    return x * 2.0 + x.sum(0)


COMBO_MESHES: list[tuple[tuple[int, ...], tuple[str, ...], list[Any]]] = [
    ((1,), ("x",), [None, (), ("x",)]),
    ((2,), ("x",), [None, (), ("x",), (None, "x")]),
    ((4,), ("x",), [None, (), ("x",), (None, "x")]),
    ((8,), ("x",), [None, ("x",), (None, "x")]),
    ((2, 2), ("x", "y"), [None, (), ("x", "y"), (None, "x"), (("x", "y"),)]),
    ((2, 4), ("x", "y"), [None, (), ("x",), (None, "y"), ("x", "y"), ("y", "x")]),
]
COMBO_ARGS: list[Any] = ["host", (), ("x",)]


# Eager indexing of an (8, 8) Array laid out by each of INDEX_LAYOUTS: JAX reads a split Array
# with a gather for integers and parts of dimensions, and slices it as a dynamic slice when
# lax.slice runs eagerly. Each index is written as Python writes it inside `x[...]`.
INDEXES: dict[str, Any] = {
    "0": 0, "-1": -1, "1": 1, "10": 10, ":,0": (slice(None), 0), "0,1": (0, 1),
    "1:3": slice(1, 3), ":4": slice(None, 4), "4:": slice(4, None), "2:2": slice(2, 2),
    "1:3,2:4": (slice(1, 3), slice(2, 4)), "...,1:3": (Ellipsis, slice(1, 3)),
    "-3:,-1": (slice(-3, None), -1), "::2": slice(None, None, 2),
    "::-1": slice(None, None, -1), ":,::-1": (slice(None), slice(None, None, -1)),
    "::-1,1:3": (slice(None, None, -1), slice(1, 3)),
    "1:3,::-1": (slice(1, 3), slice(None, None, -1)),
    "::2,::-3": (slice(None, None, 2), slice(None, None, -3)),
    "1,::2": (1, slice(None, None, 2)), "::3,2:5": (slice(None, None, 3), slice(2, 5)),
    "5:1:-1,None,3": (slice(5, 1, -1), None, 3), "None": None, ":,None": (slice(None), None),
    "None,1:3": (None, slice(1, 3)), "...": Ellipsis,
}
EAGER_SLICES: dict[str, Any] = {
    "lax.slice rows": lambda lax, x: lax.slice(x, (2, 0), (6, 8)),
    "lax.slice cols": lambda lax, x: lax.slice(x, (0, 2), (8, 6)),
    "lax.dynamic_slice cols": lambda lax, x: lax.dynamic_slice(x, (0, 2), (8, 4)),
}
INDEX_LAYOUTS: list[tuple[tuple[int, ...], tuple[str, ...], tuple[Any, ...]]] = [
    ((2,), ("x",), ("x",)),
    ((4,), ("x",), (None, "x")),
    ((2, 2), ("x", "y"), ("x", "y")),
    ((2, 4), ("x", "y"), ("x", "y")),
    ((2, 4), ("x", "y"), ("y", "x")),
    ((2, 4), ("x", "y"), (None, "y")),
    ((2, 4), ("x", "y"), (("x", "y"),)),
]


def numpy_index(index: Any, shape: tuple[int, ...]) -> Any:
    """`index` with out-of-bounds integers clamped, as JAX reads them (x[10] is x[7])."""
    items = index if isinstance(index, tuple) else (index,)
    dims = iter(shape)
    out = []
    for i in items:
        if isinstance(i, int):
            n = next(dims)
            out.append(min(max(i, -n), n - 1))
        else:
            if isinstance(i, slice):
                next(dims)
            out.append(i)
    return tuple(out)


# Dynamic slices in a jitted program, of a value of `shape` (arange / 10 in float32) laid out
# by `spec`: each start an int (a constant) or "i" (computed by the program: 1, from the
# value's first element).
DYNAMIC_SLICES: list[tuple[tuple[int, ...], tuple[Any, ...], tuple[int, ...], tuple[Any, ...],
                           tuple[int, ...]]] = [
    # (mesh shape on axes ('x', 'y'), spec, shape, starts, slice sizes)
    ((2, 4), ("x", "y"), (8, 8), (0, "i"), (8, 4)),
    ((2, 4), ("x", "y"), (8, 8), ("i", 0), (4, 8)),
    ((2, 4), ("x", "y"), (8, 8), (2, "i"), (4, 8)),
    ((2, 4), ("x", "y"), (8, 8), ("i", 2), (8, 4)),
    ((2, 4), ("x", "y"), (8, 8), (2, "i"), (4, 4)),
    ((2, 4), ("x", "y"), (8, 8), (2, 0), (4, 8)),
    ((2, 4), (None, "y"), (8, 8), ("i", "i"), (4, 8)),
    ((2, 4), (None, "y"), (8, 8), ("i", 2), (4, 4)),
    ((2, 4), (("x", "y"),), (8, 8), (0, "i"), (8, 4)),
    ((2, 4), ("x",), (8, 8), ("i", 0), (4, 8)),
    ((2, 2), ("x", "y"), (8, 8), ("i", 0), (4, 8)),
    ((2, 4), ("x", None, "y"), (8, 8, 8), ("i", 0, 0), (4, 8, 8)),
    ((2, 4), ("x", None, "y"), (8, 8, 8), (0, "i", 0), (8, 4, 8)),
    ((2, 4), ("x", "y"), (8, 8, 8), (0, 0, "i"), (8, 8, 4)),
    ((2, 4), ("x",), (8, 8, 8), (2, "i", 0), (4, 4, 8)),
]


def dynamic_slice_fn(lax: Any, starts: tuple[Any, ...], sizes: tuple[int, ...]) -> Any:
    """The jitted function of a DYNAMIC_SLICES row."""
    def f(x: Any) -> Any:
        computed = x.reshape(-1)[0].astype("int32") + 1
        return lax.dynamic_slice(x, tuple(computed if s == "i" else s for s in starts), sizes)
    return f
