"""Small PDFs built in code for tests: a laid-out paper, and the bad inputs a PDF reader must survive.

No binary fixtures: each file is written object by object with a correct
cross-reference table, so every defect is the one named (a truncated copy, a
password, 2,000 real pages, a content stream that inflates to hundreds of MB).
"""

from __future__ import annotations

import hashlib
import struct
import zlib

_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")
FONTS = b"<< /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> " \
        b"/F2 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >> >>"


def build_pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF of the given objects (object 1 is the catalogue), with its xref table and ``%%EOF``."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref)
    return bytes(out)


def _stream(data: bytes, compress: bool = False) -> bytes:
    if compress:
        data = zlib.compress(data)
        return b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(data), data)
    return b"<< /Length %d >>\nstream\n%s\nendstream" % (len(data), data)


def _escape(text: str) -> bytes:
    return text.encode("latin-1").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def text_pdf(pages: list[list[tuple[str, float, bool, float, float]]]) -> bytes:
    """Pages of (text, font size, bold, x, y) lines on US Letter, Helvetica / Helvetica-Bold."""
    count = len(pages)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (3 + 2 * i) for i in range(count)),
                                                           count)]
    for index, lines in enumerate(pages):
        content = b"".join(b"BT /%s %g Tf %g %g Td (%s) Tj ET\n" % (b"F2" if bold else b"F1", size, x, y, _escape(text))
                           for text, size, bold, x, y in lines)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font %s >> "
                       b"/Contents %d 0 R >>" % (FONTS, 4 + 2 * index))
        objects.append(_stream(content))
    return build_pdf(objects)


def dense_pdf(pages: int, lines: int = 60) -> bytes:
    """`pages` pages of `lines` lines of words each: a valid PDF that takes the layout reader seconds (a few
    tenths of a second a page), for tests of time limits."""
    page = [(f"word{j} " * 12, 9.0, False, 50.0, 740.0 - 11 * j) for j in range(lines)]
    return text_pdf([page] * pages)


def paper_pdf() -> bytes:
    """A two-page one-column paper: title, abstract, numbered headings, a hyphenated word, page numbers,
    a running head, a footnote, references."""
    body = 10.0
    page1 = [
        ("A Study of Layout Heuristics", 20, True, 150, 700),
        ("Ada Lovelace and Charles Babbage", 12, False, 200, 675),
        ("Abstract", 12, True, 280, 640),
        ("We read papers from their page layout alone and measure how", body, False, 100, 620),
        ("well titles and headings survive.", body, False, 100, 607),
        ("1 Introduction", 12, True, 72, 570),
        ("Scientific PDFs carry their structure in fonts. The litera-", body, False, 72, 550),
        ("ture on this is large, and state-of-the-", body, False, 72, 537),
        ("art systems use learned models.", body, False, 72, 524),
        ("1 A footnote in small type.", 7, False, 72, 90),
        ("1", body, False, 303, 40),
    ]
    page2 = [
        ("Layout Heuristics", 8, False, 260, 760),
        ("2 Method", 12, True, 72, 700),
        ("We group characters into lines and lines into sections.", body, False, 72, 680),
        ("3 Conclusion", 12, True, 72, 640),
        ("Fonts tell a lot.", body, False, 72, 620),
        ("References", 12, True, 72, 580),
        ("Knuth, D. 1984. Literate programming. The Computer Journal.", body, False, 72, 560),
        ("2", body, False, 303, 40),
    ]
    page1.insert(0, ("Layout Heuristics", 8, False, 260, 760))
    return text_pdf([page1, page2])


def truncated(data: bytes, keep: float = 0.5) -> bytes:
    """The first `keep` share of a PDF: what an interrupted download leaves."""
    return data[: int(len(data) * keep)]


def many_pages_pdf(pages: int) -> bytes:
    """A PDF with `pages` real (empty) pages: a page-count bomb."""
    kids = b" ".join(b"%d 0 R" % (3 + i) for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages)]
    objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"] * pages
    return build_pdf(objects)


def deflated_spaces(megabytes: int, prefix: bytes = b"") -> bytes:
    """A zlib stream of `prefix` and `megabytes` MB of spaces, built in milliseconds: after a full flush
    the compressor starts afresh, so every further megabyte compresses to the same bytes, repeated;
    the trailer is an empty final block and the Adler-32 of all the data."""
    chunk = b" " * (1 << 20)
    squeeze = zlib.compressobj(9)
    head = squeeze.compress(prefix + chunk) + squeeze.flush(zlib.Z_FULL_FLUSH)
    block = squeeze.compress(chunk) + squeeze.flush(zlib.Z_FULL_FLUSH)
    checksum = _adler32_of_spaces(zlib.adler32(prefix + chunk), (megabytes - 1) << 20)
    return head + block * (megabytes - 1) + b"\x03\x00" + struct.pack(">I", checksum)


def _adler32_of_spaces(checksum: int, count: int) -> int:
    """Adler-32 continued over `count` spaces, in closed form (RFC 1950: A += byte, B += A, mod 65521)."""
    a, b = checksum & 0xFFFF, checksum >> 16
    b = (b + count * a + 0x20 * count * (count + 1) // 2) % 65521
    a = (a + count * 0x20) % 65521
    return (b << 16) | a


def inflating_pdf(megabytes: int) -> bytes:
    """One page whose compressed content stream inflates to `megabytes` MB of spaces: a decompression bomb."""
    data = deflated_spaces(megabytes)
    stream = b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(data), data)
    return build_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                      b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>", stream])


def _rc4(key: bytes, data: bytes) -> bytes:
    state = list(range(256))
    j = 0
    for i in range(256):
        j = (j + state[i] + key[i % len(key)]) % 256
        state[i], state[j] = state[j], state[i]
    out, i, j = bytearray(), 0, 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + state[i]) % 256
        state[i], state[j] = state[j], state[i]
        out.append(byte ^ state[(state[i] + state[j]) % 256])
    return bytes(out)


def encrypted_pdf(user_password: str = "secret", owner_password: str = "owner") -> bytes:
    """A one-page PDF under the standard security handler (RC4 40-bit, revision 2) with a user password:
    it opens only with that password. O and U are computed as PDF 1.7 §7.6.3.3-4 (algorithms 3 and 4)."""
    def pad(password: str) -> bytes:
        return (password.encode("latin-1") + _PAD)[:32]

    file_id = hashlib.md5(b"sciembed test").digest()
    owner = _rc4(hashlib.md5(pad(owner_password)).digest()[:5], pad(user_password))
    permissions = -4
    key = hashlib.md5(pad(user_password) + owner + struct.pack("<i", permissions) + file_id).digest()[:5]
    user = _rc4(key, _PAD)
    content = b"BT /F1 12 Tf 72 700 Td (secret text) Tj ET"
    object_key = hashlib.md5(key + struct.pack("<i", 4)[:3] + b"\x00\x00").digest()[:10]
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font %s >> /Contents 4 0 R >>"
               % FONTS, _stream(_rc4(object_key, content)),
               b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P %d >>" % (owner.hex().encode(), user.hex().encode(),
                                                                            permissions)]
    return build_pdf(objects, b"/Encrypt 5 0 R /ID [<%s> <%s>] " % (file_id.hex().encode(), file_id.hex().encode()))


def object_stream_bomb_pdf(megabytes: int) -> bytes:
    """A PDF 1.5 file whose page tree sits in a compressed object stream (``/Type /ObjStm``) padded with
    `megabytes` MB of spaces, found through a cross-reference stream: resolving the catalogue's /Pages
    inflates the whole object stream."""
    header = b"2 0 "
    body = deflated_spaces(megabytes, header + b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    plain = {1: b"<< /Type /Catalog /Pages 2 0 R >>",
             3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
             4: b"<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
                % (len(header), len(body), body)}
    for number, obj in plain.items():
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, obj)
    offsets[5] = len(out)
    rows = [(0, 0, 65535), (1, offsets[1], 0), (2, 4, 0), (1, offsets[3], 0), (1, offsets[4], 0), (1, offsets[5], 0)]
    table = b"".join(struct.pack(">BIH", *row) for row in rows)
    out += (b"5 0 obj\n<< /Type /XRef /Size 6 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n%s\nendstream\nendobj\n"
            % (len(table), table))
    out += b"startxref\n%d\n%%%%EOF\n" % offsets[5]
    return bytes(out)
