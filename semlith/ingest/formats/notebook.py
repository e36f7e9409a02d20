"""Jupyter notebooks: each cell as `# %% [kind]` and its source, then its text outputs as
`# output: ` lines (images and other binary outputs are dropped)."""

from __future__ import annotations

import json
from typing import Any

from semlith.ingest.formats.decoding import decode, newlines
from semlith.ingest.formats.limits import Unreadable

MAX_OUTPUT_CHARS = 1_000  # text outputs kept per notebook cell


def read_notebook(data: bytes) -> str:
    try:  # parsed whole (embedded images make notebooks big); what we keep is bounded
        notebook = json.loads(decode(data))
    except json.JSONDecodeError as exc:
        raise Unreadable(f"invalid notebook JSON: {exc}") from None
    if not isinstance(notebook, dict):
        raise Unreadable("invalid notebook: the top level is not an object")
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3 kept cells in worksheets
        cells = [c for sheet in notebook.get("worksheets") or [] for c in sheet.get("cells", [])]
    return "\n\n".join(_cell(cell) for cell in cells if isinstance(cell, dict))


def _cell(cell: dict[str, Any]) -> str:
    kind = cell.get("cell_type", "code")
    source = newlines(_joined(cell.get("source", cell.get("input", "")))).rstrip("\n")
    return "\n".join([f"# %% [{kind}]", source, *_outputs(cell.get("outputs"))])


def _outputs(outputs: Any) -> list[str]:
    """A cell's text outputs as "# output: " lines, at most MAX_OUTPUT_CHARS of them."""
    if not isinstance(outputs, list):
        return []
    text = newlines("\n".join(_output_text(output) for output in outputs))
    kept = "\n".join(line for line in text.split("\n") if line.strip())
    if len(kept) > MAX_OUTPUT_CHARS:
        kept = kept[:MAX_OUTPUT_CHARS] + " ..."
    return [f"# output: {line}" for line in kept.split("\n")] if kept else []


def _output_text(output: Any) -> str:
    """The text of one output; images and other binary data are dropped."""
    if not isinstance(output, dict):
        return ""
    kind = output.get("output_type")
    if kind == "stream":
        return _joined(output.get("text"))
    if kind == "error":  # the traceback is mostly ANSI colour codes
        return f"{output.get('ename', '')}: {output.get('evalue', '')}"
    data = output.get("data")
    return _joined(data.get("text/plain")) if isinstance(data, dict) else ""


def _joined(value: Any) -> str:
    """Notebook text fields are a string or a list of strings."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return ""
