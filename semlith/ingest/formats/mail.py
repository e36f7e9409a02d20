"""Mail: .eml messages and .mbox mailboxes, one `## Message: subject` section each.

A message shows From, To, Cc and Date, its body (the plain part, else the HTML part as
text), then each attachment: one in a format semlith reads is extracted in turn, its
headings moved under the message (`### Attachment: name`), up to MAX_NESTING deep; any
other is listed by name and type. An attachment over MAX_ATTACHMENT_BYTES is listed as
not read, and a message over MAX_MESSAGE_BYTES is parsed only that far, so a mail with
a 50 MB attachment costs a bounded parse and still gives its text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from email import policy
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesParser

from semlith.base.languages import language_of
from semlith.ingest.extract import extract_text  # an attachment is a file in itself
from semlith.ingest.formats.html import html_blocks
from semlith.ingest.formats.limits import (
    MAX_ATTACHMENT_BYTES,
    MAX_ATTACHMENTS,
    MAX_MBOX_MESSAGES,
    MAX_MESSAGE_BYTES,
    MAX_NESTING,
    Unreadable,
)
from semlith.ingest.formats.text import Text, one_line
from semlith.ingest.formats.xmlstream import Budget

# A message starts at a "From " line at the start of the file or after a blank line
# (as Python's mailbox reads mbox: a "From " line inside a body follows text).
_MBOX_FROM = re.compile(rb"(?:\A|\n\r?\n)From ")
_HEADERS = ("From", "To", "Cc", "Date")
# compat32, not policy.default: the default policy parses every header it is asked for
# through the header registry (addresses, Content-Type parameters), which was 75-80% of
# the time of an mbox (profiled: 6.1 of 8.3 s for 3,000 plain messages, 21.9 of 30 s
# for 2,000 MIME ones). compat32 hands back the raw strings we decode ourselves.
_PARSER = BytesParser(policy=policy.compat32)
_MAX_MULTIPART_NESTING = 50  # multipart inside multipart; real mail nests 3-4 deep
_HEADING = re.compile(r"^(#{1,6}) ")


def read_eml(data: bytes, out: Text, depth: int) -> None:
    if not data.strip():
        raise Unreadable("mail message: empty file")
    _message(_parse(data), out, depth, level=2)
    if len(data) > MAX_MESSAGE_BYTES:
        out.truncated(f"the message is {len(data):,} bytes; only the first "
                      f"{MAX_MESSAGE_BYTES >> 20} MiB were read")


def read_mbox(data: bytes, out: Text, depth: int) -> None:
    starts = [m.end() - len(b"From ") for m in _MBOX_FROM.finditer(data)]
    if not starts:
        raise Unreadable("mailbox: no \"From \" line starts a message (not an mbox?)")
    for n, start in enumerate(starts):
        if n == MAX_MBOX_MESSAGES:
            out.truncated(f"the mailbox has {len(starts):,} messages; the first "
                          f"{MAX_MBOX_MESSAGES:,} were read")
            return
        end = starts[n + 1] if n + 1 < len(starts) else len(data)
        body = data[start:end]
        body = body[body.find(b"\n") + 1:]  # the "From sender date" line is the mbox's
        _message(_parse(body), out, depth, level=2)


def _parse(data: bytes) -> Message:
    return _PARSER.parsebytes(data[:MAX_MESSAGE_BYTES])


def _message(message: Message, out: Text, depth: int, level: int) -> None:
    headers = _headers(message)
    out.heading(level, f"Message: {headers.get('subject') or '(no subject)'}")
    for name in _HEADERS:
        if headers.get(name.lower()):
            out.line(f"{name}: {headers[name.lower()]}")
    leaves = list(_leaves(message))
    body = _body(leaves)
    if body is not None:
        out.blank()
        text = _content(body)
        if body.get_content_subtype() == "html":
            html_blocks(text, out, Budget(), demote=level)
        else:
            out.line(text.replace("\r\n", "\n").strip("\n"))
    attachments = [part for part in leaves if part is not body and _is_attachment(part)]
    for n, part in enumerate(attachments):
        if n == MAX_ATTACHMENTS:
            out.line(f"(more than {MAX_ATTACHMENTS} attachments; the rest are not read)")
            break
        _attachment(part, out, depth, level + 1)


def _leaves(part: Message, nesting: int = 0) -> Iterator[Message]:
    """The non-multipart parts, in order; an attached message is one leaf."""
    payload = part.get_payload()
    if part.get_content_maintype() != "multipart" or not isinstance(payload, list):
        yield part
    elif nesting < _MAX_MULTIPART_NESTING:
        for sub in payload:
            if isinstance(sub, Message):
                yield from _leaves(sub, nesting + 1)


def _body(leaves: list[Message]) -> Message | None:
    """The first inline plain-text part, else the first inline HTML part."""
    for subtype in ("plain", "html"):
        for part in leaves:
            if part.get_content_type() == f"text/{subtype}" and not _is_attachment(part):
                return part
    return None


def _is_attachment(part: Message) -> bool:
    disposition = str(part.get("Content-Disposition", "")).split(";")[0].strip().lower()
    return disposition == "attachment" or part.get_filename() is not None or \
        part.get_content_type() == "message/rfc822"


def _headers(message: Message) -> dict[str, str]:
    """Subject, From, To, Cc and Date as text, decoded from RFC 2047 words."""
    wanted = {"subject", "from", "to", "cc", "date"}
    found: dict[str, str] = {}
    for name, value in message.items():
        key = name.lower()
        if key in wanted and key not in found:
            try:
                found[key] = one_line(str(make_header(decode_header(str(value)))))
            except (HeaderParseError, LookupError, UnicodeError):  # a bad charset name
                found[key] = one_line(str(value))
    return found


def _content(part: Message) -> str:
    """A text part's decoded text; a part in an unknown charset is read as UTF-8."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    try:
        return payload.decode(part.get_content_charset() or "utf-8", errors="replace")
    except LookupError:
        return payload.decode("utf-8", errors="replace")


def _attachment(part: Message, out: Text, depth: int, level: int) -> None:
    name = one_line(part.get_filename() or "") or "(unnamed)"
    kind = part.get_content_type()
    if kind == "message/rfc822":
        inner = part.get_payload()
        if depth < MAX_NESTING and isinstance(inner, list) and inner and \
                isinstance(inner[0], Message):
            _message(inner[0], out, depth + 1, level)
        else:
            out.line(f"(attached message, not read: past {MAX_NESTING} levels of nesting)")
        return
    out.heading(level, f"Attachment: {name}")
    encoded = part.get_payload()
    size = len(encoded) * 3 // 4 if isinstance(encoded, str) else 0  # base64 expands 4/3
    if language_of(name) is None:
        out.line(f"({kind}, not a format semlith reads)")
    elif size > MAX_ATTACHMENT_BYTES:
        out.line(f"({kind}, ~{size >> 20} MB, not read: over the "
                 f"{MAX_ATTACHMENT_BYTES >> 20} MiB attachment cap)")
    elif depth >= MAX_NESTING:
        out.line(f"({kind}, not read: past {MAX_NESTING} levels of nesting)")
    else:
        _attached_text(name, part, out, depth, level)


def _attached_text(name: str, part: Message, out: Text, depth: int, level: int) -> None:
    from semlith.base.formats import Kind
    from semlith.ingest.formats import extract_document, format_of

    data = part.get_payload(decode=True)
    fmt = format_of(name)
    try:
        if not isinstance(data, bytes):
            raise Unreadable("no content")
        if fmt is None or fmt.kind is not Kind.DOCUMENT:
            out.line(extract_text(name, data))  # text, code, PDF...: escaped as content
            return
        try:
            text = extract_document(fmt.language, data, depth + 1)
        except Unreadable:
            raise
        except Exception as exc:  # as in extract_text: a bad file may fail anywhere
            raise Unreadable(f"{type(exc).__name__}: {exc}"[:200]) from exc
    except Unreadable as exc:
        out.line(f"(not read: {exc})")
        return
    # The attachment's own headings go under the attachment's, so its sections stay
    # inside this message's.
    out.raw("\n".join(_demote(line, level) for line in text.split("\n")))


def _demote(line: str, by: int) -> str:
    match = _HEADING.match(line)
    if match is None:
        return line
    return "#" * min(len(match.group(1)) + by, 6) + line[match.end(1):]
