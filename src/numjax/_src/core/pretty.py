"""A small Wadler-style pretty printer: text, breaks, nesting and groups.

A group is laid out flat (its breaks print as their text) when the whole group fits in the rest of
the line, otherwise its own breaks become newlines; inner groups decide again for themselves.
Only the group itself is measured, not what follows it, which is the layout jaxpr text uses.
"""

from __future__ import annotations

from collections.abc import Sequence


class Doc:
    __slots__ = ("_flat_width",)

    def flat_width(self) -> int:
        raise NotImplementedError

    def annotation_count(self) -> int:
        """How many annotations the doc's texts carry (a group holding two is never flat)."""
        return 0

    def format(self, width: int = 80, use_color: bool = False,
               annotation_prefix: str = " # ") -> str:
        """The laid-out text (JAX's `Doc.format`; these docs carry no colors).

        >>> group(concat([text("f("), nest(2, concat([brk(""), text("x")])), text(")")])).format()
        'f(x)'
        """
        return render(self, width, annotation_prefix)

    def __str__(self) -> str:
        return render(self)

    def __add__(self, other: Doc) -> Doc:
        return concat([self, other])


class Text(Doc):
    __slots__ = ("text", "annotations")

    def __init__(self, text: str, annotations: tuple[str, ...] = ()) -> None:
        self.text = text
        self.annotations = annotations

    def flat_width(self) -> int:
        return len(self.text)

    def annotation_count(self) -> int:
        return len(self.annotations)


class Break(Doc):
    __slots__ = ("text",)

    def __init__(self, text: str = " ") -> None:
        self.text = text

    def flat_width(self) -> int:
        return len(self.text)


class Concat(Doc):
    __slots__ = ("children",)

    def __init__(self, children: Sequence[Doc]) -> None:
        self.children = list(children)

    def flat_width(self) -> int:
        return sum(c.flat_width() for c in self.children)

    def annotation_count(self) -> int:
        return sum(c.annotation_count() for c in self.children)


class Nest(Doc):
    __slots__ = ("indent", "child")

    def __init__(self, indent: int, child: Doc) -> None:
        self.indent = indent
        self.child = child

    def flat_width(self) -> int:
        return self.child.flat_width()

    def annotation_count(self) -> int:
        return self.child.annotation_count()


class Group(Doc):
    __slots__ = ("child", "_width")

    def __init__(self, child: Doc) -> None:
        self.child = child
        self._width: int | None = None

    def flat_width(self) -> int:
        if self._width is None:
            self._width = self.child.flat_width()
        return self._width

    def annotation_count(self) -> int:
        return self.child.annotation_count()


def text(s: str, annotations: Sequence[str] = ()) -> Doc:
    """`s`; its `annotations` print as comments at the end of the line it lands on."""
    return Text(s, tuple(annotations))


def brk(s: str = " ") -> Doc:
    return Break(s)


def nest(indent: int, child: Doc) -> Doc:
    return Nest(indent, child)


def group(child: Doc) -> Doc:
    return Group(child)


def concat(docs: Sequence[Doc]) -> Doc:
    docs = list(docs)
    return docs[0] if len(docs) == 1 else Concat(docs)


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return Concat(out)


_FLAT, _BREAK = 0, 1


def render(doc: Doc, width: int = 80, annotation_prefix: str = " # ") -> str:
    """Lay `doc` out in lines of at most `width` columns where groups allow it. Annotations
    follow their lines, aligned one column past the longest line, each after the first on a
    line of its own."""
    lines: list[str] = []
    line: list[str] = []
    notes: dict[int, list[str]] = {}  # line number -> its annotations
    column = 0
    agenda: list[tuple[int, int, Doc]] = [(0, _BREAK, doc)]
    while agenda:
        indent, mode, d = agenda.pop()
        if isinstance(d, Text):
            line.append(d.text)
            column += len(d.text)
            if d.annotations:
                notes.setdefault(len(lines), []).extend(d.annotations)
        elif isinstance(d, Concat):
            agenda.extend((indent, mode, c) for c in reversed(d.children))
        elif isinstance(d, Break):
            if mode == _BREAK:
                lines.append("".join(line))
                line = [" " * indent]
                column = indent
            else:
                line.append(d.text)
                column += len(d.text)
        elif isinstance(d, Nest):
            agenda.append((indent + d.indent, mode, d.child))
        elif isinstance(d, Group):
            fits = d.flat_width() <= width - column and d.annotation_count() <= 1
            agenda.append((indent, _FLAT if fits or mode == _FLAT else _BREAK, d.child))
    lines.append("".join(line))
    if notes:
        column = max(len(t) for t in lines)
        for number in sorted(notes, reverse=True):
            first, *rest = notes[number]
            lines[number + 1:number + 1] = [" " * column + annotation_prefix + n for n in rest]
            lines[number] = lines[number].ljust(column) + annotation_prefix + first
    return "\n".join(lines)
