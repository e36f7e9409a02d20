"""What a code file will cost, judged from its bytes before it is parsed (issue #43).

Parsing is the expensive step of cutting a file: tree-sitter's tree holds nodes for
every token (py-tree-sitter allocates them through Python: 151 MiB of 90-byte nodes for
a 2 MB generated Ruby table), and the definitions and edges read off it follow. What a
parse, its definitions, chunks and edges held at their peak, per token of source (a run
of word characters or one punctuation mark), measured on generated tables, expressions
nested 40,000 parentheses deep and 300 KB string literals in each of the 20 chunked
languages: 117 (Swift, Bash) to 613 (Haskell's nested parentheses) bytes; per byte of
source it ranged from 4 to 533, so tokens predict it far better than size.
`BYTES_PER_TOKEN` holds each grammar's worst, rounded up; line windows cost the text
and ~1 byte per byte more.

So before a file is parsed, two cheap looks decide whether it is cut at its definitions
or into line windows, the reason recorded (`files --skipped` lists it as "text"):

- **Over the memory budget**: its parse would take more than a quarter of
  `SEMLITH_INDEX_MEMORY` (128 MB of the default 512: ordinary code up to ~1.5 MB is
  parsed; the largest hand-written file we found, pandas' frame.py, is 725 KB). A file
  whose text alone would not fit is skipped as too large.
- **A data table**: a file of DATA_TABLE_BYTES or more in which one line shape (names,
  numbers and strings set aside) makes DATA_TABLE_SHARE of the lines, judged on a sample
  of SAMPLE_LINES. Of 1,142 code files of 64 KiB or more (a virtualenv, /usr/lib/python3,
  /usr/include, /usr/share and the development corpora), the tables this finds are lookup
  tables, intrinsic lists, symbol renames, protobuf descriptors and the CRC tables of
  redis and mypyc; the highest hand-written file (a Java test of system properties)
  scores 0.37. http4s's MimeDB.scala and the generated tables of
  `tests/hostile_files.py` score 0.96-1.00 in every language but Haskell (0.50: each
  entry is a signature line and an equation line), which is parsed.
"""

from __future__ import annotations

import re
import string
from collections import Counter

from semlith.ingest.formats.limits import Unreadable

# The worst peak per token measured for each grammar (see above), rounded up.
BYTES_PER_TOKEN = {"haskell": 640, "ruby": 420, "scala": 360, "csharp": 340, "zig": 330,
                   "php": 320, "kotlin": 310, "java": 270, "swift": 270, "python": 270,
                   "tsx": 270, "cpp": 250, "c": 250, "typescript": 240, "bash": 240,
                   "rust": 220, "javascript": 220, "elixir": 210, "lua": 190, "go": 170}
MOST_PER_TOKEN = 640  # a grammar not measured; a token is at least a byte, so also per byte
TEXT_BYTES_PER_BYTE = 4  # per character: the bytes, the text, its lines and windows
FILE_SHARE = 4  # one file's work may take this part of the memory budget (1/4)
DATA_TABLE_BYTES = 64 << 10
DATA_TABLE_SHARE = 0.6
SAMPLE_LINES = 4_000
SHAPE_MIN_CHARS = 8  # shapes shorter than this (`}`, `end`, `return a;`) are not counted
_STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_WORD = re.compile(rb"[A-Za-z_$][\w$]*|\d[\w.]*")
_SPACE = re.compile(rb"\s+")
_WORD_RUN = re.compile(rb"\w+")
_PUNCTUATION = string.punctuation.encode()


class TooLarge(Unreadable):
    """A file whose text alone would take more than its share of the memory budget."""


def file_allowance(budget_bytes: int) -> int:
    """The memory one file's work may take under a budget of `budget_bytes`."""
    return budget_bytes // FILE_SHARE


def check_size(text: str, allowance: int) -> None:
    """TooLarge when even cutting `text` into line windows is over `allowance` bytes."""
    need = len(text) * TEXT_BYTES_PER_BYTE
    if need > allowance:
        raise TooLarge(f"{len(text):,} characters: cutting them needs ~{_mb(need)} MB, over "
                       "a quarter of the memory budget (SEMLITH_INDEX_MEMORY)")


def text_reason(data: bytes, grammar: str, allowance: int) -> str:
    """Why a code file of bytes `data` is cut into line windows instead of parsed with
    `grammar` ("" when it is parsed under `allowance` bytes)."""
    need = parse_cost(data, grammar) if len(data) * MOST_PER_TOKEN > allowance else 0
    if need > allowance:
        return (f"parsing it needs ~{_mb(need)} MB, over a quarter of the memory budget "
                "(SEMLITH_INDEX_MEMORY)")
    share = table_share(data) if len(data) >= DATA_TABLE_BYTES else 0.0
    if share >= DATA_TABLE_SHARE:
        return f"data table: {share:.0%} of its lines have one shape"
    return ""


def parse_cost(data: bytes, grammar: str) -> int:
    """The memory parsing `data` with `grammar` and reading its definitions and edges may
    take at its peak: its tokens at the grammar's worst measured cost."""
    words = _WORD_RUN.subn(b"", data)[1]
    marks = len(data) - len(data.translate(None, _PUNCTUATION))
    return (words + marks) * BYTES_PER_TOKEN.get(grammar, MOST_PER_TOKEN)


def table_share(data: bytes) -> float:
    """The share of (sampled) non-blank lines that have the commonest shape of at least
    SHAPE_MIN_CHARS characters: `a = a(s, s, a)` for `TYPE_1 = MediaType("a", "b", x)`."""
    lines = [line for line in data.split(b"\n") if line.strip()]
    if not lines:
        return 0.0
    sample = lines[:: max(1, len(lines) // SAMPLE_LINES)]
    shapes: Counter[bytes] = Counter()
    for line in sample:
        shape = _SPACE.sub(b" ", _WORD.sub(b"a", _STRING.sub(b"s", line))).strip()
        if len(shape) >= SHAPE_MIN_CHARS:
            shapes[shape] += 1
    top = shapes.most_common(1)
    return top[0][1] / len(sample) if top else 0.0


def _mb(size: int) -> str:
    return f"{size / (1 << 20):,.0f}"
