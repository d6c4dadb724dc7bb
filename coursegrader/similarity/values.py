"""The values a submission holds as literals, and a classmate's variant's values among them.

A function that reads the variant ``V`` is right on every variant, so copied
code is the code comparison's business; a variant exposes a copy of a
classmate's *values*: a notebook handed over after the classmate's width was
typed in, or witness vectors worked out on the classmate's samples.

:func:`literals` reads the numbers an answer cell holds as it is printed: every
number of a code cell (``1.37``, ``-0.7071``, ``"1.37"`` for ``float``, and
arithmetic on numbers such as ``137 / 100``) and every list or tuple of numbers
(``[0.41, -0.82, 0.41]``, nested ones too), and every number of a written answer
and every bracketed run of them (``(0.41, -0.82, 0.41)``).  Each literal matches
a value within half a unit of its last printed digit (``1.37`` matches
1.365 to 1.375), so a value typed in rounded still matches, and within a
millionth however many digits it prints; a single number of fewer than three
significant digits (``1.2``) matches only the value it is exactly.

:func:`variant_values` lists what a variant draws (its plain parameters, each
number and each list of numbers) and what it implies (:func:`implied_by`: the
reference answer to each public case of a part that varies, ps4's inner
products and norms, ps5's decision values; and the hidden module's
``implied_values``: ps3's witness vectors, either sign).  Trivially common
numbers (integers, halves, 1, 2 or 5 times a power of ten: 0.1, 1e-6) are
never evidence, nor a value the release holds, nor one that many variants
share (:func:`common_values`, :func:`evidence`).

A submission that holds a classmate's value that is not one of its own is
evidence for a person, never a score change.  A single number of at most three
significant digits is evidence only as a drawn parameter typed into code that
does not read it from ``V`` (:func:`variant_reads`): a width of two decimals
is one of some 150, which honest students write by chance.
"""

import ast
import base64
import binascii
import itertools
import math
import re
from dataclasses import dataclass

import numpy as np

from coursecheck.problems import COURSE_ID
from coursecheck.variants import bind, draw_variant, plain

from ..judging.cells import parse_cell
from ..judging.modules import MODULE

__all__ = ["Literal", "VariantValue", "Evidence", "literals", "variant_values",
           "variant_reads", "ANY", "implied_by", "trivial", "common_values", "evidence",
           "shared_evidence", "space_answers", "other_variants_held"]

#: A number as a reader prints it: digits, an optional fraction, an optional exponent.
_PRINTED = re.compile(r"^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")
_NUMBER = r"[-+\u2212]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_TEXT_NUMBER = re.compile(r"(?<![\w.])(?>" + _NUMBER + r")(?!\w|\.\d)")   # read whole: linear
#: Numbers this large are never evidence (nor read as numbers).
_LARGEST = 1e300
#: Arrays of more numbers than this are not compared (no variant value is that long).
_MAX_ENTRIES = 1000
# numbers apart (a comma, a semicolon or a space between), each read whole and
# never given back: read any other way, an unclosed bracket of numbers takes
# time exponential in its length (500 lines of a table held the check for minutes)
_TEXT_RUN = re.compile(r"[\[(]\s*+(?>" + _NUMBER + r")(?:(?:\s*+[,;]\s*+|\s++)(?>" + _NUMBER
                       + r"))++\s*+[\])]")


@dataclass(frozen=True)
class Literal:
    """Numbers as a submission prints them: ``values`` (flattened), their ``shape``,
    how far from a value they may be and still be it (``tolerance``, per entry),
    their ``text`` (rebuilt from the numbers as printed, cut to 80 characters) and
    the ``cell`` they are in; ``short``: one number of at most three significant
    digits (``1.37``), which anyone may write by chance; ``in_code``: read from
    code (a cell or a module), not from a written answer."""

    values: tuple
    shape: tuple
    tolerance: tuple
    text: str
    cell: str
    short: bool = False
    in_code: bool = True


@dataclass(frozen=True)
class VariantValue:
    """A number or an array of numbers of ``student``'s variant, under ``name``;
    ``drawn``: one of the variant's own parameters (``sigma``, ``samples['a']``),
    not a value it implies."""

    student: str
    name: str
    values: tuple
    shape: tuple
    drawn: bool = False

    @property
    def parameter(self):
        """The key of ``V`` the value is drawn under (``samples`` for ``samples['a']``)."""
        return self.name.split("[", 1)[0]


@dataclass(frozen=True)
class Evidence:
    """``holder``'s answers hold ``owner``'s variant value ``name`` as ``text``, in
    ``cell``, and ``holder``'s own variant has no such value."""

    holder: str
    owner: str
    name: str
    text: str
    cell: str

    def describe(self):
        return f"{self.holder} holds {self.owner}'s {self.name} ({self.text}, in {self.cell})"


def _tolerance(printed, value):
    """Half a unit of the last digit of ``printed``, and at least a millionth of
    ``value`` (or of 1): the same value worked out by another method, printed in full."""
    m = _PRINTED.match(printed.replace("\u2212", "-").replace("_", ""))
    decimals = 0
    if m:
        decimals = len(m.group(2) or "") - int(m.group(3)[:6] if m.group(3) else 0)
    return max(0.5 * 10.0 ** -min(max(decimals, -300), 300), 1e-6 * max(1.0, abs(value)))


def _digits(printed):
    """How many significant digits ``printed`` has."""
    mantissa = re.split(r"[eE]", printed)[0]
    return len(mantissa.lstrip("+-\u2212").replace(".", "").lstrip("0"))


def trivial(x):
    """Whether ``x`` is a number anyone might write: an integer, a half, or 1, 2 or 5
    times a power of ten (0.1, 0.02, 5e-6)."""
    x = abs(float(x))
    if x == 0 or not x < _LARGEST or float(2 * x).is_integer():
        return True
    mantissa = x / 10.0 ** math.floor(math.log10(x))
    return any(abs(mantissa - m) < 1e-9 for m in (1, 2, 5, 10))


def _number(node):
    """The number a node writes out (``-0.5`` included), or None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float) \
            and abs(node.value) < _LARGEST:
        return sign * node.value, node
    if isinstance(node, ast.Constant) and type(node.value) is str \
            and len(node.value) < 40 and _PRINTED.match(node.value.strip()) \
            and any(ch.isdigit() for ch in node.value):
        value = float(node.value)      # a number written as a string, for float()
        if abs(value) < _LARGEST:
            return sign * value, node
    return None


def _printed(node):
    """A number's constant as it is printed: a float's repr is what was typed, less
    any trailing zeros (a looser tolerance); a string, itself."""
    return node.value.strip() if type(node.value) is str else repr(node.value)


_FOLDED = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def _fold(node, depth=8):
    """The value of arithmetic on numbers written out (``1.3 + 0.07``, ``137 / 100``),
    at most ``depth`` operations deep, or None."""
    found = _number(node)
    if found is not None:
        return float(found[0])
    if depth == 0 or not isinstance(node, ast.BinOp) or type(node.op) not in _FOLDED:
        return None
    a, b = _fold(node.left, depth - 1), _fold(node.right, depth - 1)
    if a is None or b is None:
        return None
    try:
        value = _FOLDED[type(node.op)](a, b)
    except (ZeroDivisionError, OverflowError):
        return None
    return value if abs(value) < _LARGEST else None


def _array(node):
    """The numbers (flattened), shape and constant nodes of a list or tuple of numbers,
    or None."""
    found = _number(node)
    if found is not None:
        return [found[0]], (), [found[1]]
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return None
    rows = [_array(e) for e in node.elts]
    if any(r is None for r in rows) or len({r[1] for r in rows}) != 1:
        return None
    return ([v for r in rows for v in r[0]], (len(rows),) + rows[0][1],
            [n for r in rows for n in r[2]])


def _literal(values, shape, printed, cell, in_code):
    """A :class:`Literal`; its text is rebuilt from the numbers as printed (digits,
    a point, an exponent, a sign), never the student's own characters around them."""
    tol = tuple(_tolerance(p, v) for p, v in zip(printed, values))
    short = not _squeezed(shape) and _digits(printed[0]) <= 3
    if not _squeezed(shape) and _digits(printed[0]) < 3:
        # one number of two significant digits (1.2, a width one tries) is only the
        # value it is exactly, never the values it rounds
        tol = (1e-9 * max(1.0, abs(values[0])),)
    shown = [("-" if v < 0 else "") + p.lstrip("+-\u2212") for p, v in zip(printed, values)]
    text = shown[0] if not shape else "[" + ", ".join(shown) + "]"
    return Literal(tuple(float(v) for v in values), _squeezed(shape), tol, text[:80], cell,
                   short, in_code)


def _squeezed(shape):
    """``shape`` without its axes of length one: a row, a column and a vector are one."""
    return tuple(n for n in shape if n != 1)


def _code_literals(source, cell):
    tree = parse_cell(source)
    if tree is None:      # read as text: code that does not parse hides no number
        yield from _text_literals(source, cell, in_code=True)
        return
    signed = {id(n.operand) for n in ast.walk(tree)
              if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd))}
    for node in ast.walk(tree):
        if id(node) in signed:
            continue          # read with its sign, as the operand of - or +
        if isinstance(node, (ast.List, ast.Tuple)):
            found = _array(node)
        elif isinstance(node, (ast.Constant, ast.UnaryOp)):
            one = _number(node)
            found = None if one is None else ([one[0]], (), [one[1]])
        elif isinstance(node, ast.BinOp):
            value = _fold(node)
            if value is not None:
                yield _literal([value], (), [repr(value)], cell, True)
            continue
        else:
            continue
        if found is None:
            continue
        values, shape, nodes = found
        if len(values) <= _MAX_ENTRIES:
            yield _literal(values, shape, [_printed(n) for n in nodes], cell, True)


def _text_literals(source, cell, in_code=False):
    for m in _TEXT_NUMBER.finditer(source):
        printed = m.group().replace("\u2212", "-")
        if abs(float(printed)) < _LARGEST:
            yield _literal([float(printed)], (), [printed], cell, in_code)
    for m in _TEXT_RUN.finditer(source):
        printed = [p.replace("\u2212", "-") for p in re.findall(_NUMBER, m.group())]
        if all(abs(float(p)) < _LARGEST for p in printed):
            yield _literal([float(p) for p in printed], (len(printed),), printed, cell,
                           in_code)


#: A string that may be base64: what the student package's ``answers.json`` writes arrays as.
_BASE64 = re.compile(r"^[A-Za-z0-9+/]{16,}={0,2}$")


def _decoded(text):
    """The float64 numbers a base64 string encodes, as ``answers.json`` encodes an
    array (little-endian, 2 to ``_MAX_ENTRIES`` finite numbers), or None."""
    if len(text) > 12 * _MAX_ENTRIES or not _BASE64.match(text):
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except (ValueError, binascii.Error):
        return None
    if len(raw) % 8 or not 2 <= len(raw) // 8 <= _MAX_ENTRIES:
        return None
    values = np.frombuffer(raw, dtype="<f8")
    if not (np.isfinite(values).all() and (np.abs(values) < _LARGEST).all()):
        return None
    return values.tolist()


def _encoded_literals(source, cell):
    """The arrays a code cell holds as base64 strings, each as a flat :class:`Literal`."""
    tree = parse_cell(source)
    if tree is None:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) is str:
            values = _decoded(node.value)
            if values is not None:
                yield _literal(values, (len(values),), [repr(v) for v in values], cell, True)


def literals(cells, *, limit):
    """The :class:`Literal` s of ``cells`` (each with ``cell``, ``cell_type`` and
    ``source``), at most ``limit``, and whether some were left out."""
    out = []
    for c in cells:
        where = getattr(c, "cell", None) or "a cell the student added"
        if c.cell_type in ("code", MODULE):
            found = itertools.chain(_code_literals(c.source, where),
                                    _encoded_literals(c.source, where))
        elif c.cell_type == "markdown":
            found = _text_literals(c.source, where)
        else:
            continue
        for lit in found:
            if all(trivial(v) for v in lit.values):
                continue
            if len(out) >= limit:
                return out, True
            out.append(lit)
    return out, False


def _walk(value, name):
    """(name, numbers, shape) of every number and rectangular list of numbers in ``value``."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, (int, float)):
        yield name, (float(value),), ()
        return
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, f"{name}[{k!r}]" if name else k)
        return
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            a = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            a = None
        if a is not None and a.size and a.ndim >= 1 and np.isfinite(a).all():
            yield name, tuple(a.ravel().tolist()), a.shape
            return
        for i, v in enumerate(value):
            yield from _walk(v, f"{name}[{i}]")


def variant_values(student, params, implied=None):
    """The :class:`VariantValue` s of ``student``'s variant (parameters ``params``):
    each number and array it draws, and each of ``implied(params)`` ({name: value};
    a value given as ``("±", a)`` matches ``a`` and ``-a``); trivially common ones left out."""
    found = [(*f, True) for f in _walk(params, "")]
    if implied is not None:
        for name, value in implied(params).items():
            if isinstance(value, tuple) and len(value) == 2 and value[0] == "\u00b1":
                a = np.asarray(value[1], dtype=float)
                found += [(name, tuple(a.ravel().tolist()), a.shape, False),
                          (name, tuple((-a).ravel().tolist()), a.shape, False)]
            else:
                found += [(*f, False) for f in _walk(value, name)]
    return [VariantValue(student, name, values, _squeezed(shape), drawn)
            for name, values, shape, drawn in found if not all(trivial(v) for v in values)]


#: What :func:`variant_reads` gives for code that uses ``V`` otherwise than by a
#: constant key (``W = V``, ``V[k]``, ``**V``): it may read any parameter.
ANY = "*"


def variant_reads(sources):
    """The keys of the variant ``V`` that the code of ``sources`` reads by a
    constant key (``V["sigma"]``, ``V.get("c")``), and :data:`ANY` where it uses
    ``V`` in any other way or loads the variant again (``variant("ps4")["sigma"]``);
    code that does not parse reads nothing."""
    keys = set()
    for source in sources:
        tree = parse_cell(source)
        if tree is None:
            continue
        parents = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "variant"):
                keys.add(ANY)              # the variant loaded again: any key of it
            if not (isinstance(node, ast.Name) and node.id == "V"):
                continue
            up = parents.get(node)
            if isinstance(up, ast.Subscript) and up.value is node:
                key = up.slice
            elif (isinstance(up, ast.Attribute) and up.attr == "get"
                  and isinstance(parents.get(up), ast.Call) and parents[up].args):
                key = parents[up].args[0]
            else:
                key = None
            keys.add(key.value if isinstance(key, ast.Constant) and isinstance(key.value, str)
                     else ANY)
    return frozenset(keys)


def _matches(lit, value):
    if lit.shape != value.shape:
        return False
    return all(abs(a - b) <= t for a, b, t in zip(lit.values, value.values, lit.tolerance))


class _Index:
    """Variant values by shape, for finding those within a literal's tolerance fast."""

    def __init__(self, values):
        self.values = values
        by_shape = {}
        for i, v in enumerate(values):
            by_shape.setdefault(v.shape, []).append(i)
        self.arrays = {}
        for shape, idx in by_shape.items():
            rows = np.array([values[i].values for i in idx], dtype=float)
            order = np.argsort(rows[:, 0], kind="stable")
            self.arrays[shape] = (rows[order], np.asarray(idx)[order])

    def near(self, lit):
        found = self.arrays.get(lit.shape)
        if found is None:
            return []
        rows, idx = found
        x, tol = np.asarray(lit.values), np.asarray(lit.tolerance)
        lo = np.searchsorted(rows[:, 0], x[0] - tol[0], side="left")
        hi = np.searchsorted(rows[:, 0], x[0] + tol[0], side="right")
        if hi <= lo:
            return []
        close = (np.abs(rows[lo:hi] - x) <= tol).all(axis=1)
        return [self.values[i] for i in idx[lo:hi][close]]


def _key(value):
    return value.shape, tuple(round(v, 9) for v in value.values)


def implied_by(parts, extra=None):
    """What a variant implies, as ``variant_values`` takes it: the reference answer
    to each public case of each part of ``parts`` ({id: Part}) that varies and has
    a reference, and ``extra(params)`` (a hidden half's ``implied_values``)."""
    def implied(params):
        found = dict(extra(params)) if extra is not None else {}
        for pid, part in parts.items():
            if part.varies and part.reference is not None:
                bound = bind(part, params)
                for i, case in enumerate(bound.public(), 1):
                    found[f"answer to {pid}'s public case {i}"] = plain(
                        np.asarray(bound.reference(*case.args), dtype=float))
        return found
    return implied


def common_values(assignment, draws, share, implied=None):
    """The values (as keys) that more than ``share`` of ``draws`` variants of
    ``assignment``, drawn for made-up students, hold or imply (``implied``, as
    :func:`variant_values` takes it): what a variant draws from a few choices
    (ps3's ``c``), or an answer the same for many widths, whoever the class is."""
    count = {}
    for i in range(draws):
        params = draw_variant(assignment, f"common-{i}", "", course=COURSE_ID).params
        for key in {_key(v) for v in variant_values(None, params, implied)}:
            count[key] = count.get(key, 0) + 1
    return frozenset(k for k, n in count.items() if n > share * draws)


def evidence(held, values, *, released=(), common=frozenset(), common_share=0.05,
             common_min=3, reads=None):
    """Every :class:`Evidence` of a classmate's variant value among a submission's literals.

    ``held``: {student: their :class:`Literal` s}; ``values``: {student: their
    variant's :class:`VariantValue` s}; ``released``: the release's own literals
    (a value it prints is no one's); ``common``: values many variants hold
    (:func:`common_values` of a sample of the problem set's variants).  A value
    held by the variants of at least ``common_min`` students and more than
    ``common_share`` of the class is common too.  No common value is evidence.

    A short literal (one number of at most three significant digits: ``0.37``,
    ``1.41``) is evidence only as a classmate's drawn parameter, written in code
    in place of reading it: in a submission whose code reads that key of ``V``
    nowhere (``reads``: {student: :func:`variant_reads` of its code}) and holds no
    value of its own of that parameter.  A width is drawn from some 150 numbers of
    two decimals, so in a class of a hundred most such numbers are somebody's:
    written anywhere else (a written answer, a test point, a step size), it is
    chance, not a copy.
    """
    reads = reads or {}
    holders = {}
    for student, vs in values.items():
        for key in {_key(v) for v in vs}:
            holders.setdefault(key, set()).add(student)
    limit = max(common_min, common_share * len(values))
    rare = [v for vs in values.values() for v in vs
            if len(holders[_key(v)]) < limit and _key(v) not in common
            and not any(_matches(r, v) for r in released)]
    index = _Index(rare)
    parameters = {v.parameter for v in rare if v.drawn}
    out = {}
    for student, lits in held.items():
        own = values.get(student, [])
        typed = {o.parameter for o in own if o.drawn and any(_matches(lit, o) for lit in lits)}
        read = reads.get(student, frozenset())
        written_in = set() if ANY in read else parameters - read - typed
        for lit in lits:
            near = [v for v in index.near(lit) if v.student != student]
            if lit.short:
                near = [v for v in near if v.drawn and lit.in_code and v.parameter in written_in]
            if not near or any(_matches(lit, o) for o in own):
                continue
            for v in near:
                out.setdefault((student, v.student, v.name),
                               Evidence(student, v.student, v.name, lit.text, lit.cell))
    return sorted(out.values(), key=lambda e: (e.holder, e.owner, e.name))


def shared_evidence(found, *, most=10):
    """{frozenset of two students: descriptions}: each pair one of whom holds the
    other's value, and each pair who both hold a third's; at most ``most``
    descriptions a pair, then how many more."""
    pairs = {}
    by_value = {}
    for e in found:
        pairs.setdefault(frozenset((e.holder, e.owner)), []).append(e.describe())
        by_value.setdefault((e.owner, e.name), []).append(e)
    for (owner, name), es in by_value.items():
        for i, a in enumerate(es):
            for b in es[i + 1:]:
                if a.holder != b.holder:
                    pairs.setdefault(frozenset((a.holder, b.holder)), []).append(
                        f"{a.holder} and {b.holder} both hold {owner}'s {name} "
                        f"({a.text}; {b.text})")
    return {pair: lines[:most] + ([f"{len(lines) - most} more"] if len(lines) > most else [])
            for pair, lines in pairs.items()}


def space_answers(assignment, implied):
    """{variant key: its public answers as :class:`VariantValue` s}, for every variant of
    ``assignment``'s ``Variation.space`` (None when its variants are not finitely
    many): what ``implied`` (:func:`implied_by`) gives, arrays of two numbers or more
    only (a single number may be anyone's), with each array also under its flat shape
    (a matrix written as one list, or as ``answers.json``'s base64, is the same)."""
    from coursecheck.parts import problem_module, variant_key
    variation = getattr(problem_module(assignment), "VARIANT", None)
    if variation is None or variation.space is None:
        return None
    out = {}
    for params in variation.space():
        key = variant_key(params)
        found = []
        for name, values, shape in _walk(implied(params), ""):
            if len(values) < 2 or all(trivial(v) for v in values):
                continue
            found.append(VariantValue(key, name, values, _squeezed(shape)))
            if len(_squeezed(shape)) > 1:
                found.append(VariantValue(key, name, values, (len(values),)))
        out[key] = found
    return out


def other_variants_held(lits, own, answers, *, released=()):
    """The variants (keys of ``answers``, from :func:`space_answers`) other than the
    one keyed ``own`` whose public answers some of ``lits`` hold, sorted; an answer
    that is also one of ``own``'s, or that the release holds, counts for none."""
    mine = answers.get(own, [])
    index = _Index([v for key, vs in answers.items() if key != own for v in vs
                    if not any(_matches(r, v) for r in released)])
    held = set()
    for lit in lits:
        near = index.near(lit)
        if near and not any(_matches(lit, o) for o in mine):
            held.update(v.student for v in near)
    return sorted(held)
