"""RTF: the document's text through striprtf (BSD-3, pure Python, no dependencies).

RTF keeps headings only as style numbers whose names sit in a style table, so the text
is paragraphs, one per line, cut in line windows. Pictures and other destinations
(`\\pict`, `\\*\\...`) are dropped by striprtf.
"""

from __future__ import annotations

from striprtf.striprtf import rtf_to_text

from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.formats.text import Text


def read_rtf(data: bytes, out: Text, depth: int) -> None:
    if not data.lstrip()[:5] == b"{\\rtf":
        raise Unreadable("RTF document: does not start with {\\rtf")
    # RTF is 7-bit text; other characters are escapes striprtf decodes (cp1252 unless
    # the document says \ansicpg). Latin-1 maps every byte, so nothing fails here.
    text: str = rtf_to_text(data.decode("latin-1"), errors="replace")  # type: ignore[no-untyped-call]
    out.line(text.replace("\r\n", "\n").replace("\r", "\n").strip("\n"))
