"""Python source as Python reads it: the encoding its bytes declare (PEP 263).

A coding cookie (``# coding: utf-7``) makes Python read a module's bytes in an
encoding no other reader applies: to Jupyter, an editor or a comparison of
texts, UTF-7 puts a whole program in one comment line (each line break
written ``+AAo-``), which Python, importing the bytes, runs.  One rule, used
both by the record of the modules handed in (:mod:`coursegrader.judging.modules`)
and the similarity check's reading of cells (:mod:`coursegrader.similarity.material`),
and by the part's watch of the code it runs (:mod:`.code_origin`): which
encodings are plain, and what the bytes say as Python decodes them.
Standard library only: the part's runner imports it in the sandbox.
"""

import codecs
import tokenize

__all__ = ["PLAIN_ENCODINGS", "decoded", "unusual_in_a_file"]

#: The encodings source may declare (PEP 263) without being flagged: UTF-8
#: (with or without a byte-order mark), ASCII and Latin-1, by codecs' names.
PLAIN_ENCODINGS = frozenset({"utf-8", "ascii", "iso8859-1"})


def decoded(data, *, whole=True):
    """``(text, why)``: the source ``data`` (bytes) as Python reads it when it
    imports the module (its byte-order mark and PEP 263 coding cookie
    honoured, as :func:`tokenize.detect_encoding` reads them), and ``None``,
    or why it must be read by a person: a cookie other than UTF-8, ASCII or
    Latin-1 (UTF-7, say, can hide a module's code in a comment for any
    reader but Python's), or bytes that do not decode (Python would not
    import it). ``whole``: False when ``data`` is the start of the file only
    (a character cut at its end is not an error)."""
    end = data.rfind(b"\n") + 1
    # the start of a file: its cookie is read from its whole lines only
    lines = iter((data if whole else data[:end]).splitlines(keepends=True))
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError as exc:          # an unknown codec, or a cookie against the BOM
        return data.decode("utf-8", "replace"), f"its encoding cannot be read ({exc.msg})"
    name = codecs.lookup(encoding).name
    why = None if name in PLAIN_ENCODINGS or name == "utf-8-sig" else \
        f"declares the encoding {encoding} (PEP 263), which only Python may read as it runs"
    try:
        text = codecs.getincrementaldecoder(encoding)().decode(data, final=whole)
    except Exception as exc:    # any codec's error: Python would not import it either
        return data.decode("utf-8", "replace"), \
            why or f"does not decode as {encoding} ({type(exc).__name__})"
    return text, why


def unusual_in_a_file(text):
    """For the text of a cell (a str: its cookie, if any, unread, as the notebook
    runs it), the encoding its UTF-8 bytes declare when Python reads them from a
    file (an import, ``compile`` of bytes) if that file would not read as the
    cell does: a cookie other than UTF-8 (or its aliases), or one under which
    the text decodes to other text (Latin-1 over characters beyond ASCII).
    ``None`` for a cell that reads the same either way (no cookie: the rule of
    almost every cell)."""
    data = text.encode("utf-8", "surrogatepass")
    lines = iter(data.splitlines(keepends=True)[:2])
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError:
        return "an encoding that cannot be read"
    name = codecs.lookup(encoding).name
    if name == "utf-8" or name == "utf-8-sig":     # a byte-order mark is UTF-8's
        return None
    read, why = decoded(data)
    if why is None and read == text:
        return None
    return encoding
