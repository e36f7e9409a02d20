"""A long question read as evidence (issue #46): an issue or a stack trace pasted whole.

An ordinary question is a bag of words. An issue of 2,000 characters is not: the model
sees only its first ~256 tokens, and its keyword query would be every word in it. So a
question of more than `LONG_WORDS` words, or one holding a traceback, is read here into

- **frames**: the files, lines and functions of its stack traces (Python, Java and the
  JVM languages, JavaScript/TypeScript, Go, Rust), innermost last as printed;
- **paths**: the source files it names, in frames or in prose (`sessions.py`,
  `src/flask/app.py`);
- **names**: the code it names: frames' functions, `backticked` identifiers, dotted and
  call-shaped names (`Session.send`, `parse_args()`), CamelCase and snake_case words;
- **errors**: its error lines (`ValueError: ...`, `panic: ...`);
- **prose**: its text without tracebacks, code blocks and an issue template's
  boilerplate (collapsed sections, checklists, `name: value` version dumps), in pieces
  of at most `PIECE_WORDS` words, each short enough for the model to see whole.

The keyword list reads the names, the error lines and the prose, in that order, its
first `MAX_TERMS` words; the symbol list the names; the dense list the first piece. And
an issue asks for no file role: its words about tests or docs describe what happened.

Nothing here reads a store: the searcher turns the evidence into lists (the prose's
pieces embedded, the names as symbols, the paths as files).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from semlith.base.languages import language_of

LONG_WORDS = 50  # a question longer than this is read as an issue, not as a phrase
# The prose the model reads: its first 64 words (the title and what happened). On the
# issue benchmark's tune half (benchmarks/issues.py) 150-word pieces, and the mean of up
# to four, found the same files as one; 64 words found one more at 10, and embed in
# ~7 ms where 150 took ~16 and the whole issue (cut at 256 tokens) ~24.
PIECE_WORDS = 64
MAX_PIECES = 1
MAX_NAMES = 24
MAX_PATHS = 12
# The keyword list's words for an issue: each word an OR over its postings, so a
# 2,000-character issue's 41 words took 65 ms at 100k chunks; 12 take 14 (measured).
MAX_TERMS = 12


@dataclass(frozen=True, slots=True)
class Frame:
    path: str  # as printed, without `file://` and a leading `./`
    line: int | None
    function: str  # "" when the trace does not say

    @property
    def defined(self) -> str:
        """The name the frame's function is defined by: `baz` of Java's `Bar.baz`, Go's
        `(*Server).Handle` and Rust's `app::run`; none for Python's `<module>`."""
        found = _IDENT.findall(self.function) if not self.function.startswith("<") else []
        return found[-1] if found else ""


@dataclass(frozen=True, slots=True)
class Evidence:
    frames: tuple[Frame, ...]
    paths: tuple[str, ...]
    names: tuple[str, ...]
    errors: tuple[str, ...]
    prose: tuple[str, ...]

    def keywords(self) -> str:
        """What the keyword list reads, most telling first (the list takes the first
        `MAX_TERMS` words): the names, the error lines, then the prose — not the
        version dumps, checklists and trace lines around them."""
        return "\n".join([" ".join(self.names), *self.errors, *self.prose])


_PYTHON = re.compile(r'File "(?P<path>[^"\n]+)", line (?P<line>\d+)(?:, in (?P<func>[\w<>.]+))?')
# at com.shop.Cart.add(Cart.java:42) / at Foo$Bar.baz(Foo.kt:7)
_JVM = re.compile(r"\bat (?P<qual>[\w$]+(?:\.[\w$<>]+)+)\((?P<file>[\w$-]+\.(?:java|kt|scala|"
                  r"groovy|clj)):(?P<line>\d+)\)")
# at handle (/srv/app/src/router.js:12:5) / at /srv/app/index.js:3:1 / at async f (x.ts:1:2)
_JS = re.compile(r"\bat (?:(?:async )?(?P<func>[\w$.<>\[\] ]+?) \()?(?:file://)?"
                 r"(?P<path>[^\s()'\"]+?\.(?:[cm]?js|jsx|tsx?|vue|svelte)):(?P<line>\d+)"
                 r"(?::\d+)?\)?")
# main.(*Server).Handle(0xc000010000)\n\t/home/u/app/server.go:42 +0x1d
_GO = re.compile(r"^(?P<func>[\w./-]+?(?:\(\*?\w+\)\.\w+)?)\([^\n]*\)\n\s+(?P<path>\S+\.go):"
                 r"(?P<line>\d+)", re.M)
# thread 'main' panicked at src/main.rs:12:5 / at ./src/lib.rs:3:9 (backtrace)
_RUST = re.compile(r"(?:panicked at |\bat )(?:'[^'\n]*', )?(?P<path>[^\s:'\"]+\.rs):"
                   r"(?P<line>\d+)(?::\d+)?")
_RUST_FUNC = re.compile(r"^\s*\d+: (?P<func>[\w:<>]+)\n\s+at ", re.M)
_ERROR = re.compile(r"^\s*(?P<line>(?:[\w.]+(?:Error|Exception|Warning|Exit|Interrupt)|"
                    r"panic|error(?:\[\w+\])?|fatal error)\b:? .{3,200})$", re.M)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
# What an issue template wraps around the report: a collapsed section (environment,
# versions, logs), a checklist, an empty answer, and a dump of `name: value` lines
# (`numpy: 1.23.4`, `OS: Darwin`): no word of them says where the code is broken.
_DETAILS = re.compile(r"<details>.*?(?:</details>|\Z)", re.S | re.I)
_BOILERPLATE = re.compile(r"^\s*(?:[-*] \[[ xX]\] .*|_No response_|<!--.*?-->)\s*$", re.M)
_DUMP = re.compile(r"(?:^[ \t]*[\w.() -]{1,30}:[ \t]+\S[^\n]{0,120}\n){4,}", re.M)
_TRACE_START = re.compile(r"^(?:Traceback \(most recent call last\):|goroutine \d+ \[|"
                          r"thread '.*' panicked|Exception in thread|stack backtrace:)",
                          re.M)
_BACKTICK = re.compile(r"`([^`\n]{2,80})`")
# A template's heading over the environment it asks for ("#### Output of
# `xr.show_versions()`", "**Environment**", "### Versions"): the commands it names
# print versions, they are not where the fault is.
_ENVIRONMENT = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*|\*\*)[^\n]*?\b(?:[Oo]utput of|[Vv]ersions?\b|"
                          r"[Ee]nvironment|[Ss]ystem [Ii]nfo)[^\n]*$", re.M)
_COMMENT = re.compile(r"^[ \t]*(?:#|//)[^\n]*$", re.M)
_PATH = re.compile(r"(?<![\w/.-])(?:\.{0,2}/)?(?:[\w.-]+/)*[\w-]+\.[A-Za-z]{1,5}\b")
_CALLED = re.compile(r"\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\(")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_SHAPED = re.compile(r"\b(?:[a-z]+_[a-z0-9_]+|_[a-z]\w+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|"
                     r"[a-z]+[A-Z]\w*)\b")
_WORD = re.compile(r"\S+")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+")
_NOT_NAMES = frozenset({"e.g", "i.e", "etc", "vs", "http", "https", "www", "True", "False",
                        "None", "true", "false", "null", "nil", "self", "this"})


def read_evidence(text: str) -> Evidence | None:
    """The evidence of a long question or one with a traceback; None for an ordinary
    question (read as a phrase, as before)."""
    if len(_WORD.findall(text)) <= LONG_WORDS and not _has_trace(text):
        return None
    frames = _frames(text)
    text = _URL.sub(" ", text)  # a link names a page, not the code
    prose_text = _prose(text)
    return Evidence(frames, _paths(text, frames), _names(text, frames), _errors(text),
                    _pieces(prose_text))


def _has_trace(text: str) -> bool:
    return bool(_TRACE_START.search(text) or _PYTHON.search(text) or _JVM.search(text)
                or _GO.search(text) or _RUST.search(text) or _JS.search(text))


def _frames(text: str) -> tuple[Frame, ...]:
    found: list[tuple[int, Frame]] = []
    for m in _PYTHON.finditer(text):
        found.append((m.start(), Frame(_clean(m["path"]), int(m["line"]), m["func"] or "")))
    for m in _JVM.finditer(text):
        qual, function = m["qual"].rsplit(".", 1)
        folder = "/".join(qual.split(".")[:-1])  # the package, as folders
        path = f"{folder}/{m['file']}" if folder else m["file"]
        found.append((m.start(), Frame(path, int(m["line"]), f"{qual.split('.')[-1]}.{function}")))
    for m in _JS.finditer(text):
        found.append((m.start(), Frame(_clean(m["path"]), int(m["line"]),
                                       (m["func"] or "").strip())))
    for m in _GO.finditer(text):
        found.append((m.start(), Frame(_clean(m["path"]), int(m["line"]),
                                       m["func"].rsplit("/", 1)[-1])))
    rust_funcs = {m.end(): m["func"] for m in _RUST_FUNC.finditer(text)}
    for m in _RUST.finditer(text):
        function = rust_funcs.get(m.start() + 3, "")  # "at " follows the function's line
        found.append((m.start(), Frame(_clean(m["path"]), int(m["line"]), function)))
    seen: set[Frame] = set()
    ordered = []
    for _, frame in sorted(found, key=lambda pair: pair[0]):
        if frame not in seen:
            seen.add(frame)
            ordered.append(frame)
    return tuple(ordered)


def _clean(path: str) -> str:
    path = path.removeprefix("file://")
    while path.startswith("./"):
        path = path[2:]
    return path


def _paths(text: str, frames: tuple[Frame, ...]) -> tuple[str, ...]:
    """Source files named: the frames' (innermost first: where it broke), then the
    prose's, each once, only names whose extension is a language's."""
    named = [f.path for f in reversed(frames)]
    named += [_clean(m.group(0)) for m in _PATH.finditer(text)]
    out: list[str] = []
    for path in named:
        if path not in out and language_of(path) is not None and "://" not in path:
            out.append(path)
    return tuple(out[:MAX_PATHS])


def _names(text: str, frames: tuple[Frame, ...]) -> tuple[str, ...]:
    candidates = [f.function for f in reversed(frames) if f.function]
    text = _ENVIRONMENT.sub(" ", text)  # `Output of xr.show_versions()` names no fault
    for m in _BACKTICK.finditer(text):
        candidates += _CALLED.findall(m.group(1) + "(") if "(" not in m.group(1) \
            else _CALLED.findall(m.group(1))
        candidates += _DOTTED.findall(m.group(1))
    outside = _FENCE.sub(" ", _DETAILS.sub(" ", text))
    candidates += _CALLED.findall(outside) + _DOTTED.findall(outside)
    candidates += _SHAPED.findall(outside)
    for block in _FENCE.findall(text):  # the example's calls: what it exercises
        code = _COMMENT.sub(" ", block)  # not what its comments say to paste or run
        candidates += _CALLED.findall(code) + _DOTTED.findall(code)
    out: list[str] = []
    for name in candidates:
        name = name.strip(".<>")
        if (len(name) > 2 and name not in out and name.lower() not in _NOT_NAMES
                and language_of(name) is None):  # `app.py` is a path, not a name
            out.append(name)
    return tuple(out[:MAX_NAMES])


def _errors(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m["line"].strip() for m in _ERROR.finditer(text)))[:4]


def _prose(text: str) -> str:
    """The text without code blocks and trace lines: what the model should read."""
    text = _DUMP.sub("\n", _BOILERPLATE.sub("", _DETAILS.sub("\n", _FENCE.sub("\n", text))))
    kept = [line for line in text.splitlines()
            if not (_PYTHON.search(line) or _JVM.search(line) or _JS.search(line)
                    or _RUST.search(line) or line.startswith(("\t", "    "))
                    or _TRACE_START.match(line))]
    return "\n".join(kept)


def _pieces(prose: str) -> tuple[str, ...]:
    """The prose in pieces of at most PIECE_WORDS words, split at paragraph ends where
    one falls near, the first MAX_PIECES of them."""
    pieces: list[str] = []
    current: list[str] = []
    for paragraph in re.split(r"\n\s*\n", prose):
        tokens = paragraph.split()
        while tokens:
            room = PIECE_WORDS - len(current)
            current += tokens[:room]
            tokens = tokens[room:]
            if len(current) >= PIECE_WORDS:
                pieces.append(" ".join(current))
                current = []
        if len(current) >= PIECE_WORDS // 2:  # a paragraph end near a piece's end
            pieces.append(" ".join(current))
            current = []
    if current:
        pieces.append(" ".join(current))
    return tuple(pieces[:MAX_PIECES])
