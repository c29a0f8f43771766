"""Text and element paths from lxml trees, shared by the TEI and JATS readers."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from lxml import etree


def local(el: etree._Element) -> str:
    """Tag name without namespace ("" for comments / processing instructions)."""
    tag = el.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


# The lookups below filter in libxml2 ("{*}name" = this local name in any namespace or none) instead of
# computing every element's local name in Python: on real GROBID TEI that was most of the reading time.


def children(el: etree._Element | None, name: str) -> list[etree._Element]:
    """Direct children with this local name, any namespace."""
    return [] if el is None else list(el.iterchildren(f"{{*}}{name}"))


def child(el: etree._Element | None, name: str) -> etree._Element | None:
    return None if el is None else next(el.iterchildren(f"{{*}}{name}"), None)


def descendants(el: etree._Element | None, name: str) -> list[etree._Element]:
    """`el` itself and every element below it with this local name, any namespace, in document order."""
    return [] if el is None else list(el.iter(f"{{*}}{name}"))


def find_path(el: etree._Element | None, *names: str) -> etree._Element | None:
    """Follow direct children by local name: find_path(root, "front", "article-meta")."""
    for name in names:
        el = child(el, name)
    return el


def text_of(el: etree._Element | None, skip: tuple[str, ...] = (), blocks: tuple[str, ...] = ()) -> str:
    """All text under `el`, leaving out subtrees named in `skip` (their tails are kept); elements named in
    `blocks` are set apart by spaces (list items, cells), inline markup joins without one, as printed."""
    if el is None:
        return ""
    if not len(el):  # no child element, comment or entity: the text is all there is
        return el.text or ""
    # Nothing to leave out or to space apart, and no unresolved entity (itertext would print "&name;"):
    # libxml2 serialises the text (the same string as joining `itertext`, at a quarter of the cost).
    if next(el.iterdescendants(*_special_tags(skip, blocks)), None) is None:
        return etree.tostring(el, method="text", encoding="unicode", with_tail=False)
    skip_set, block_set = frozenset(skip), frozenset(blocks)
    parts: list[str] = []
    # An explicit stack instead of recursion: a <p> with 1,000 nested <hi> must not hit Python's
    # recursion limit. Items are elements still to open, or strings to emit after a subtree closes.
    stack: list[etree._Element | str] = [el]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        if item.text:
            parts.append(item.text)
        for sub in reversed(item):  # pushed in reverse so they come out in document order
            if sub.tail:
                stack.append(sub.tail)
            name = local(sub)
            if name and name not in skip_set:
                if name in block_set:
                    stack.append(" ")
                stack.append(sub)
                if name in block_set:
                    stack.append(" ")
    return "".join(parts)


@lru_cache(maxsize=64)
def _special_tags(skip: tuple[str, ...], blocks: tuple[str, ...]) -> tuple[object, ...]:
    """The lxml tag filter for what `text_of` cannot leave to `itertext`, built once per (skip, blocks)."""
    return (etree.Entity, *(f"{{*}}{name}" for name in (*skip, *blocks)))


def element_path(el: etree._Element) -> str:
    """"/article/front/article-meta" style path (1-based index where siblings share a name)."""
    steps = []
    node: etree._Element | None = el
    while node is not None:
        parent = node.getparent()
        name = local(node)
        if parent is not None:
            same = [c for c in parent if local(c) == name]
            if len(same) > 1:
                name += f"[{same.index(node) + 1}]"
        steps.append(name)
        node = parent
    return "/" + "/".join(reversed(steps))


def ids_by_type(elements: Iterable[etree._Element], type_attr: str) -> dict[str, str]:
    """First text per lower-cased `type_attr` value (JATS `article-id/@pub-id-type`, TEI `idno/@type`)."""
    found: dict[str, str] = {}
    for el in elements:
        kind = (el.get(type_attr) or "").lower()
        if kind and el.text:
            found.setdefault(kind, el.text.strip())
    return found
