"""The caps that bound every document reader, with why each has the value it has.

They are constants, not settings: each only has to stop hostile input early while
letting every real document through, and no user has a reason to move them. Every cap
is listed in `LIMITS_DOC`, which docs/configuration.md is generated from.

What happens at a cap: malformed or hostile structure (a zip bomb, a DTD, XML nested
too deep, an encrypted file) skips the file with the reason; plain volume (rows, cells,
messages, characters) keeps the text read so far and ends it with a `[truncated: ...]`
line, so the start of a huge but honest file is still found.
"""

from __future__ import annotations

# The documents' size cap is a default of the format table's rows (base/formats.py).
from semlith.base.formats import MAX_DOCUMENT_BYTES as MAX_DOCUMENT_BYTES


class Unreadable(Exception):
    """A file whose text cannot be extracted; str(exc) is the reason shown to users."""


MAX_TEXT_CHARS = 4_000_000  # bound on any extractor's output (ingest/extract.py)

# -- zip containers (docx, xlsx, pptx, odt, ods, odp, epub) -------------------------------
# Read from the end-of-directory record before `zipfile` parses the directory: a 64 MiB
# file can declare ~1.4 million entries (~46 bytes each), seconds of parsing. A
# 2,000-slide deck has ~6,000.
MAX_ZIP_ENTRIES = 20_000
# Expanded bytes read from one member (as declared in the directory, and as counted while
# reading). The 20,000-paragraph test document's body is 6.3 MB.
MAX_MEMBER_BYTES = 64 << 20
# Expanded bytes read from all members of one document together.
MAX_EXPANDED_BYTES = 256 << 20
# Apache POI's default (ZipSecureFile: minimum inflate ratio 0.01). Real XML parts
# compress 5-20x (the test document's body 8x, a sheet of a million empty rows 7-20x);
# zeros compress 1,000x. Small members may have any ratio.
MAX_RATIO = 100
RATIO_FLOOR_BYTES = 1 << 20

# -- XML -------------------------------------------------------------------------------
# Word nests ~15 deep (table in table in text box); 256 is far past any real part.
MAX_XML_DEPTH = 256
# Elements parsed per document. The worst real case is a sheet of styled empty cells:
# 2 M of them took 14.5 s (p50 of 3, load ~9.7 on 2 cores; 3.2 M, the 64 MiB member
# cap, took 24 s). Real documents reach the text cap first: a 20,000-paragraph Word
# body is 77 k elements (counted), 38,000 rows of 5 cells (4 M characters) 490 k.
MAX_XML_ELEMENTS = 2_000_000

# -- spreadsheets ----------------------------------------------------------------------
# Rows looked at per sheet, empty or not (an empty repeated ODF row counts once). A
# sheet of a million empty rows stops here in ~0.1 s instead of parsing all of them.
MAX_SHEET_ROWS = 100_000
# Columns read per row; wider rows are cut (a `[truncated ...]` line says so).
MAX_ROW_CELLS = 512
# Shared strings kept per workbook (~100 bytes of memory each).
MAX_SHARED_STRINGS = 1_000_000

# -- mail ------------------------------------------------------------------------------
# Bytes of one message given to the parser; a mail with a 50 MB attachment is cut here
# and the attachment reported as not read.
MAX_MESSAGE_BYTES = 16 << 20
# Messages read from one mbox.
MAX_MBOX_MESSAGES = 10_000
# Decoded size of an attachment extracted in turn (the walk's cap for ordinary files).
MAX_ATTACHMENT_BYTES = 8 << 20
# Attachments extracted per message.
MAX_ATTACHMENTS = 20
# A document inside a mail inside a mail: the outer file is depth 0.
MAX_NESTING = 2

# name -> (value as shown, meaning), rendered into docs/configuration.md.
LIMITS_DOC: dict[str, tuple[str, str]] = {
    "MAX_DOCUMENT_BYTES": ("64 MiB", "Largest Office, OpenDocument, EPUB or mail file indexed "
                           "(other files: 8 MiB); larger ones are skipped as too large."),
    "MAX_ZIP_ENTRIES": (f"{MAX_ZIP_ENTRIES:,}", "Entries in a document's zip directory, "
                        "checked before the directory is parsed; more skips the file."),
    "MAX_MEMBER_BYTES": ("64 MiB", "Expanded bytes read from one part of a zip container; "
                         "the rest of the part is not read (partial text)."),
    "MAX_EXPANDED_BYTES": ("256 MiB", "Expanded bytes read from all parts of one document "
                           "together (partial text)."),
    "MAX_RATIO": (f"{MAX_RATIO}", "Expansion ratio of a part larger than 1 MiB, from the zip "
                  "directory, before reading; more skips the file as a zip bomb."),
    "MAX_XML_DEPTH": (f"{MAX_XML_DEPTH}", "Nesting of XML elements; deeper skips the file. "
                      "No XML with a DTD is read, so no entity is ever expanded or fetched."),
    "MAX_XML_ELEMENTS": (f"{MAX_XML_ELEMENTS:,}", "XML elements parsed per document "
                         "(partial text)."),
    "MAX_SHEET_ROWS": (f"{MAX_SHEET_ROWS:,}", "Rows looked at per sheet, empty ones included "
                       "(partial text)."),
    "MAX_ROW_CELLS": (f"{MAX_ROW_CELLS}", "Cells read per row (partial text)."),
    "MAX_SHARED_STRINGS": (f"{MAX_SHARED_STRINGS:,}", "Shared strings kept per workbook; "
                           "later ones read as empty cells."),
    "MAX_MESSAGE_BYTES": ("16 MiB", "Bytes of one mail message parsed; the rest (usually a "
                          "large attachment) is not read."),
    "MAX_MBOX_MESSAGES": (f"{MAX_MBOX_MESSAGES:,}", "Messages read from one mbox file "
                          "(partial text)."),
    "MAX_ATTACHMENT_BYTES": ("8 MiB", "Decoded size of a mail attachment extracted in turn; "
                             "a larger one is listed, not read."),
    "MAX_ATTACHMENTS": (f"{MAX_ATTACHMENTS}", "Attachments extracted per message."),
    "MAX_NESTING": (f"{MAX_NESTING}", "Depth of attachments extracted in turn (a document "
                    "attached to a mail attached to a mail)."),
}
