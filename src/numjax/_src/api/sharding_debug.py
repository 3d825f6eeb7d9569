"""Looking at shardings: `jax.debug.inspect_array_sharding` (calls back with a value's
sharding, also inside jit) and `visualize_sharding` / `visualize_array_sharding` (print which
devices hold which tile of a 1-d or 2-d array).

JAX 0.4.30 draws the table with `rich`; uncolored (its output whenever the console has no
colors, as when printing to a file or a captured stream) the table is box-drawing text with one
cell per tile, sized in proportion to the tile. That text is what is printed here, without
needing `rich`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from numjax._src.api.callbacks import _Repr
from numjax._src.core.effects import debug_effect
from numjax._src.core.trace import Primitive
from numjax._src.runtime.devices import default_device
from numjax._src.runtime.mesh import PartitionSpec, current_mesh
from numjax._src.runtime.named_sharding import NamedSharding, PositionalSharding
from numjax._src.runtime.sharding import Sharding
from numjax._src.tree_util import tree_map

inspect_sharding_p = Primitive("inspect_sharding")
inspect_sharding_p.multiple_results = True


@inspect_sharding_p.def_effectful_abstract_eval
def _inspect_sharding_abstract_eval(aval: Any, *, callback: Callable[..., Any]) -> Any:
    # An effect keeps the equation alive through dead-code elimination, as a debug callback.
    return [], frozenset([debug_effect])


def _inspect_sharding_eager(x: Any, *, callback: Callable[..., Any]) -> list[Any]:
    """Eagerly the Array's own sharding is known: call back with it at once."""
    callback(x.sharding)
    return []


inspect_sharding_p.eager_impl = _inspect_sharding_eager


def _inspect_sharding_kernel_factory(in_avals: Any, *, callback: Callable[..., Any]
                                     ) -> Callable[..., Any]:
    """A compiled computation runs on one device, whole: its values are replicated there
    (named on the mesh of an enclosing `with mesh:`, as JAX does). JAX calls back when the
    computation is compiled, not when it runs; so does this."""
    mesh = current_mesh()
    callback(PositionalSharding([default_device()]).replicate() if mesh is None
             else NamedSharding(mesh, PartitionSpec()))
    return lambda x: []


inspect_sharding_p.def_kernel_factory(_inspect_sharding_kernel_factory)
# Jaxpr text shows the callback by its repr, as JAX prints it.
inspect_sharding_p.def_param_printer(lambda params: {"callback": _Repr(params["callback"])})


@inspect_sharding_p.def_jvp
def _inspect_sharding_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any
                          ) -> tuple[list[Any], list[Any]]:
    return inspect_sharding_p.bind(*primals, **params), []


@inspect_sharding_p.def_batch
def _inspect_sharding_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any
                            ) -> tuple[list[Any], list[Any]]:
    # The batched value is inspected whole (its sharding is the batch's), as JAX does.
    inspect_sharding_p.bind(*args, **params)
    return [], []


def inspect_array_sharding(value: Any, *, callback: Callable[[Sharding], None]) -> None:
    """Call `callback` with the sharding of each array of the pytree `value`: at once for
    Arrays, when the computation is compiled inside jit.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.debug.inspect_array_sharding(jnp.ones(2), callback=print)
    SingleDeviceSharding(device=CpuDevice(id=0))
    """
    def inspect(x: Any) -> None:
        inspect_sharding_p.bind(x, callback=callback)

    tree_map(inspect, value)


def visualize_array_sharding(arr: Any, **kwargs: Any) -> None:
    """Print which devices hold which tile of the 1-d or 2-d Array `arr`."""
    inspect_array_sharding(arr, callback=lambda s: visualize_sharding(arr.shape, s, **kwargs))


def _as_slice(index: Any) -> slice:
    return slice(index, index + 1) if isinstance(index, int) else index


def visualize_sharding(shape: Sequence[int], sharding: Sharding, *, use_color: bool = True,
                       scale: float = 1.0, min_width: int = 9, max_width: int = 80,
                       color_map: Any = None) -> None:
    """Print the tiles of a value of `shape` (1-d or 2-d) laid out as `sharding`: one cell per
    tile, its size in proportion to the tile's, labelled with the ids of the devices holding
    it. Colors are never used (JAX's output on a console without colors).

    >>> import numjax
    >>> s = numjax.sharding.SingleDeviceSharding(numjax.devices()[0])
    >>> numjax.debug.visualize_sharding((4,), s)
    ┌───────┐
    │ CPU 0 │
    └───────┘
    """
    del use_color, color_map
    shape = tuple(shape)
    if not 1 <= len(shape) <= 2:
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    print(_sharding_table(shape, sharding, scale, min_width, max_width))


def _sharding_table(shape: tuple[int, ...], sharding: Sharding, scale: float,
                    min_width: int, max_width: int) -> str:
    base_height = int(10 * scale)
    base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
    platform = next(iter(sharding.device_set)).platform.upper()
    # Per tile (row, column): the devices holding it and the cell's width and height.
    ids: dict[tuple[int, int], set[int]] = {}
    sizes: dict[tuple[int, int], tuple[int, int]] = {}
    for device, index in sharding.devices_indices_map(shape).items():
        slices = [_as_slice(i) for i in index]
        spans = [(s.stop - s.start) if s.stop is not None else n
                 for s, n in zip(slices, shape, strict=True)]
        tile = tuple(0 if s.start is None else s.start // span
                     for s, span in zip(slices, spans, strict=True))
        if len(shape) == 2:
            key = (tile[0], tile[1])
            height = int(spans[0] / shape[0] * base_height)
            width = spans[1] / shape[1]
        else:  # one row, one line high
            key, height, width = (0, tile[0]), 1, spans[0] / shape[0]
        # The cell width: proportional, 2.5 columns per line of height, within the bounds.
        cells = min(max(int(width * base_width * 2.5), min_width), max_width)
        ids.setdefault(key, set()).add(device.id)
        sizes[key] = (cells, height)
    rows = max(r for r, _ in ids) + 1
    cols = max(c for _, c in ids) + 1
    # Each cell: its label, padded; a column as wide as its widest cell, a row as high as its
    # highest, the label centered across and at the top of the padded block.
    cell_text: dict[tuple[int, int], tuple[str, int, int, int, int]] = {}
    for key, devices in ids.items():
        label = f"{platform} " + ",".join(str(i) for i in sorted(devices))
        cells, height = sizes[key]
        left, extra = divmod(cells - len(label) - 2, 2)
        right = left + extra
        top, extra = divmod(height - 2, 2)
        bottom = top + extra
        left, right, top, bottom = (max(p, 0) for p in (left, right, top, bottom))
        cell_text[key] = (label, left, right, top, top + 1 + bottom)
    col_widths = [max(len(cell_text[r, c][0]) + cell_text[r, c][1] + cell_text[r, c][2]
                      for r in range(rows)) for c in range(cols)]
    room = max_width - cols - 1  # the borders take the rest
    if sum(col_widths) > room:
        # Too wide for the line: columns share the room evenly, labels kept whole and
        # centered (JAX's rich table wraps the labels away instead).
        labels = [max(len(cell_text[r, c][0]) for r in range(rows)) for c in range(cols)]
        col_widths = [max(labels[c], room // cols + (c < room % cols)) for c in range(cols)]
        cell_text = {key: (label, 0, 0, top, height)
                     for key, (label, _, _, top, height) in cell_text.items()}
    lines = ["┌" + "┬".join("─" * w for w in col_widths) + "┐"]
    for r in range(rows):
        height = max(cell_text[r, c][4] for c in range(cols))
        for line in range(height):
            parts = []
            for c, w in enumerate(col_widths):
                label, left, right, top, _ = cell_text[r, c]
                text = label if line == top else ""
                # Centered in what the padding leaves of the column's width.
                before = left + (w - left - right - len(text)) // 2
                parts.append(" " * before + text + " " * (w - before - len(text)))
            lines.append("│" + "│".join(parts) + "│")
        if r < rows - 1:
            lines.append("├" + "┼".join("─" * w for w in col_widths) + "┤")
    lines.append("└" + "┴".join("─" * w for w in col_widths) + "┘")
    return "\n".join(lines)
