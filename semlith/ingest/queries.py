"""Grammar query files: their text, with include lines expanded, and compiled."""

from __future__ import annotations

import re
from typing import Any


def compile_query(grammar: str, source: Any) -> Any:
    """The query in file `source` compiled for `grammar`, or None when there is none."""
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    if not source.is_file():
        return None
    return Query(get_language(grammar), query_text(source))  # type: ignore[arg-type]


_INCLUDE = re.compile(r"^; include: ([\w.-]+\.scm)$", re.M)


def query_text(source: Any, depth: int = 0) -> str:
    """The text of the query file `source` (a path or resource), with each line
    `; include: other.scm` replaced by that file of the same folder, so that the patterns
    JavaScript and TypeScript share are written once (grammars/ecmascript.scm)."""
    if depth > 3:
        raise ValueError(f"{source}: includes nest too deep")
    return _INCLUDE.sub(lambda m: query_text(source.parent / m.group(1), depth + 1),
                        source.read_text())
