"""The names of a store's definitions near one that is not defined: the candidates for
"no definition of `X`; nearest: ..." (graph/walk.py), read through the name indexes."""

from __future__ import annotations

from collections.abc import Sequence

from semlith.store.catalog import Catalog, like_escape

NEAR_PREFIX = 3  # letters a suggested name shares with the one asked for
NEAR_LIMIT = 2000  # names read per prefix, at most


def names_near(catalog: Catalog, parts: Sequence[str]) -> list[tuple[str, str]]:
    """(name, qualname) of the definitions that may be what `parts` (a name split at
    its separators: `Type`, `method`) misspells: those named as its last part (any
    case), those whose name starts as it does, those of its owner (`Type.*`), and those
    whose qualname starts as the whole does (NEAR_PREFIX letters, any case). The
    candidates for "nearest: ..." when a name is not defined, read through the name
    indexes, NEAR_LIMIT rows each at most: every name of a store was read and compared
    (1.2 s at 112k chunks)."""
    simple, qualified = parts[-1], ".".join(parts)

    def names(where: str, value: str) -> list[tuple[str, str]]:
        return [(str(r[0]), str(r[1])) for r in catalog.db.execute(
            f"SELECT DISTINCT name, qualname FROM symbols WHERE {where} LIMIT ?",
            (value, NEAR_LIMIT))]

    def prefixed(column: str, head: str) -> list[tuple[str, str]]:
        if len(head) < NEAR_PREFIX:
            return []  # too short to narrow anything
        return names(f"{column} LIKE ? ESCAPE '\\'", like_escape(head) + "%")
    same = names("name = ? COLLATE NOCASE", simple)
    owner = ".".join(parts[:-1]) + "." if len(parts) > 1 else ""
    return list(dict.fromkeys(same + prefixed("name", simple[:NEAR_PREFIX])
                              + prefixed("qualname", owner)
                              + prefixed("qualname", qualified[:NEAR_PREFIX])))
