"""Small Office packages built in tests, for hostile variations of real structure."""

from __future__ import annotations

import io
import struct
import zipfile

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
S_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_RELS = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '{}</Relationships>')
_REL = '<Relationship Id="{id}" Type="{type}" Target="{target}"/>'


def package(parts: dict[str, bytes | str], *, stored: bool = False) -> bytes:
    buffer = io.BytesIO()
    method = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def docx(document: bytes | str, *, stored: bool = False) -> bytes:
    """A Word package whose word/document.xml is `document` as given."""
    rel = _REL.format(id="rId1", type=f"{R_NS}/officeDocument", target="word/document.xml")
    return package({"_rels/.rels": _RELS.format(rel), "word/document.xml": document},
                   stored=stored)


def docx_body(body: str) -> bytes:
    return docx(f'<w:document xmlns:w="{W_NS}"><w:body>{body}</w:body></w:document>')


def paragraph(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def xlsx(sheet_data: bytes | str, name: str = "Data") -> bytes:
    """A workbook of one sheet whose <sheetData> holds `sheet_data`."""
    rel = _REL.format(id="rId1", type=f"{R_NS}/officeDocument", target="xl/workbook.xml")
    sheet_rel = _REL.format(id="rId1", type=f"{R_NS}/worksheet", target="worksheets/sheet1.xml")
    data = sheet_data.encode() if isinstance(sheet_data, str) else sheet_data
    return package({
        "_rels/.rels": _RELS.format(rel),
        "xl/_rels/workbook.xml.rels": _RELS.format(sheet_rel),
        "xl/workbook.xml": f'<workbook xmlns="{S_NS}" xmlns:r="{R_NS}"><sheets><sheet '
                           f'name="{name}" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/worksheets/sheet1.xml": b'<worksheet xmlns="' + S_NS.encode() +
                                    b'"><sheetData>' + data + b"</sheetData></worksheet>",
    })


def ods(table: str) -> bytes:
    """An OpenDocument spreadsheet of one table with the given rows."""
    content = (
        '<office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body>'
        f'<office:spreadsheet><table:table table:name="Data">{table}</table:table>'
        '</office:spreadsheet></office:body></office:document-content>')
    return package({"mimetype": "application/vnd.oasis.opendocument.spreadsheet",
                    "content.xml": content})


def set_flag_bits(data: bytes, bits: int) -> bytes:
    """Every local and central header of the zip with `bits` set in its flags."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = out.find(signature)
        while at >= 0:
            flags = struct.unpack_from("<H", out, at + offset)[0]
            struct.pack_into("<H", out, at + offset, flags | bits)
            at = out.find(signature, at + 4)
    return bytes(out)


def set_expanded_size(data: bytes, size: int) -> bytes:
    """Every header of the zip declaring `size` expanded bytes (a lying directory)."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = out.find(signature)
        while at >= 0:
            struct.pack_into("<I", out, at + offset, size)
            at = out.find(signature, at + 4)
    return bytes(out)
