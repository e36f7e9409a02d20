"""One file as the index takes it: its bytes read again, judged, and cut.

Text reaches the store only through `document.read_document`: secret files are refused
with the reason "secret", credential-shaped strings are redacted; then the generated or
minified check, then the chunks and the code graph's edges. This module reads the file
and nothing else; the indexer writes what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from semlith.base.languages import language_of
from semlith.base.roles import GENERATED_KIND
from semlith.index.edges import file_edges
from semlith.ingest.chunk import Chunked, chunk_file, text_windows
from semlith.ingest.cost import check_size, text_reason
from semlith.ingest.definitions import has_definitions, read_code
from semlith.ingest.document import read_document
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.generated import check_generated, marked_generated
from semlith.ingest.graph import FileEdges, has_edges
from semlith.ingest.reading import content_hash, limit_for, read_file
from semlith.ingest.walk import Candidate


@dataclass(frozen=True, slots=True)
class Cut:
    """A file's chunks and edges, and the hash of the bytes they were cut from."""

    digest: str
    chunked: Chunked
    redacted: int  # credential-shaped strings replaced by a marker
    edges: FileEdges | None  # None: its language has none


def read_walked(item: Candidate) -> bytes:
    """A walked file's bytes, judged again as it is now (it may have become a FIFO or
    grown past its limit since the walk): OSError otherwise."""
    return read_file(item.path, limit_for(item.rel))


def cut(item: Candidate, allowance: int) -> Cut:
    """Read, judge and cut one file, its work held to `allowance` bytes of memory
    (`cost.file_allowance`). Raises Unreadable (a secret, binary, generated or minified,
    too large for the allowance, or not text; `generated.skip_record` says why) or
    OSError."""
    data = read_walked(item)
    # The file may have changed since the scan hashed it: record the hash of the bytes
    # actually indexed, so the next run sees any later change.
    digest = content_hash(data)
    document = read_document(item.rel, data, opted_in=item.opted_in)
    # After the secret rules: a secret is reported as one, even in a generated file.
    check_generated(item.rel, data, opted_in=item.opted_in)
    check_size(document.text, allowance)
    language = language_of(item.rel)
    # Judged before the parse, from the bytes (cost.py): a data table or a file whose
    # parse would not fit the allowance is cut into line windows, and says why.
    plain = text_reason(data, language.grammar, allowance) \
        if language is not None and language.grammar and has_definitions(language) else ""
    if plain:
        chunked = text_windows(document.text, plain)
        edges = FileEdges(failed=f"cut as text: {plain}") if has_edges(language) else None
    else:  # one parse feeds the chunks and the edges (issue #43: each was parsed 3 times)
        code = read_code(document.text, language) \
            if language is not None and has_definitions(language) else None
        chunked = chunk_file(document.text, language, code=code)
        edges = file_edges(document.text, language, code)
    if marked_generated(item.rel, data):  # kept, and weighed as generated
        chunked = replace(chunked, chunks=[replace(c, kind=GENERATED_KIND)
                                           for c in chunked.chunks])
    return Cut(digest, chunked, document.redacted, edges)


def withholds(item: Candidate) -> bool:
    """Whether the secret rules change an indexed file (checked once after they change):
    withhold it, or redact a string in it. Unreadable now: the run finds out."""
    try:
        return read_document(item.rel, read_walked(item), opted_in=item.opted_in).redacted > 0
    except (Unreadable, OSError):
        return True
