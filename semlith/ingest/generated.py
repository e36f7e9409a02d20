"""Generated and minified files: machine output the indexer skips before reading it as text.

Issue #26: a 2.4 MB generated module of 40,000 functions and a 3.9 MB one-line bundle
cost minutes of parsing and embedding for chunks nobody searches. The thresholds come from
the 29,627 files judged (see below) among the 33,399 text files of this repository's
virtualenv, /usr/lib/python3 and /usr/share:

- A **marker** in the first 2 KiB: ``@generated``, or ``DO NOT EDIT`` with "generated" or
  "automatically" (Go's ``Code generated ... DO NOT EDIT.``, protoc's, ANTLR's, Perl's
  unicore tables; not bump2version's "DO NOT EDIT THIS LINE" beside a hand-written
  ``__version__``). 8,536 files carry one; half are under 1.4 KB and 99 % under 11 KB
  (generated clients, stubs and version files: cheap, and sometimes what is looked for),
  so only a marked file of GENERATED_MIN_BYTES or more is skipped. The 21 such files
  there are dispatch tables, descriptors, stubs, lexer maps and parsers of 70 KB to 2.2 MB.
- A **minified shape**: lines of MINIFIED_MEAN_LINE bytes on average and one of
  MINIFIED_LONGEST_LINE or more. 13 files match: jquery.min.js, underscore.min.js, a
  .min.css, Sphinx's searchindex.js, two more bundles, three one-line JSON data files, two
  SVG icons and pygments' Cocoa builtins (sets of names on lines of up to 72 KB,
  above the script that writes them). The most long-lined hand-written
  source averages 510 (sympy's polyquinticconst.py); the 99th percentile of Python is 54.

Prose (Markdown, reST, text, TeX, HTML) and extracted documents are never judged: a
generated reference manual is read by people, and a one-line HTML page is prose.
"""

from __future__ import annotations

import re

from semlith.ingest.document import Withheld
from semlith.ingest.extract import Binary, is_extracted
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.walk import SkipReason
from semlith.languages import language_of

GENERATED_MIN_BYTES = 64 << 10
MINIFIED_MEAN_LINE = 1_000
MINIFIED_LONGEST_LINE = 4_096
HEAD_BYTES = 2_048
_AT_GENERATED = re.compile(rb"@generated\b")
_DO_NOT_EDIT = re.compile(rb"DO NOT EDIT")
_BY_A_TOOL = re.compile(rb"generated|automatically", re.IGNORECASE)
_PROSE = frozenset({"markdown", "rst", "text", "tex", "html"})


class Generated(Unreadable):
    """A file skipped as generated or minified; str(exc) says what gave it away."""


def check_generated(rel: str, data: bytes) -> None:
    """Raise Generated when the file at `rel` with bytes `data` is machine output to skip."""
    language = language_of(rel)
    if is_extracted(rel) or (language is not None and language.name in _PROSE):
        return
    if len(data) >= GENERATED_MIN_BYTES:
        marker = _marker(data[:HEAD_BYTES])
        if marker:
            raise Generated(f"marked {marker!r} in its first lines, {len(data):,} bytes")
    lines = data.count(b"\n") + 1
    if len(data) / lines >= MINIFIED_MEAN_LINE:
        longest = max(map(len, data.split(b"\n")))
        if longest >= MINIFIED_LONGEST_LINE:
            raise Generated(f"minified: {len(data) / lines:,.0f} bytes a line on average, "
                            f"the longest {longest:,}")


def _marker(head: bytes) -> str:
    found = _AT_GENERATED.search(head)
    if found is None and _DO_NOT_EDIT.search(head) and _BY_A_TOOL.search(head):
        found = _DO_NOT_EDIT.search(head)
    return found.group().decode() if found else ""


def skip_record(exc: Unreadable) -> tuple[SkipReason | str, str]:
    """The reason and detail the indexer records for a file refused by its content."""
    if isinstance(exc, Withheld):
        return SkipReason.SECRET, str(exc)
    if isinstance(exc, Generated):
        return SkipReason.GENERATED, str(exc)
    if isinstance(exc, Binary):
        return "binary", ""  # no SkipReason: the walk never reads a file
    return SkipReason.UNREADABLE, str(exc)
