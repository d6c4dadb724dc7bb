"""`make similarity PS=ps1` after `make autograde`: every disguised copy is flagged,
no independent work is.

A class of ps1 is handed in and graded with the instructor's commands: alice
hands in the reference solution, eight classmates (``ps1_honest``) their own
independent answers, and the copiers copy a classmate and disguise it as
students do (``ps1_copies``): the code moved verbatim into a cell of their own
with the answer cells emptied, a no-op after each line, a counter moved on
after each line and read by an always-true test, the loops rewritten, every
name changed, the code moved into a module handed in beside the notebook
(``helper.py``), the code in an added cell dressed as the
course's locked setup cell, every name the code reads passed through a
function that returns it (``_i(np).asarray(_i(X))``) or put into something
and taken out again (``(np,)[0]``, ``next(iter((np,)))``, ``[np].pop()``), a
classmate's written answers reworded, written with Cyrillic and Greek
look-alikes of Latin letters, with zero-width spaces, HTML markup or hidden
text inside the words, and padding in front of it all. Each copy earns what
the original earns from the autograder (it is working code); the similarity check must flag each one with
its original, and no pair of independent submissions. What a student wrote is
data on the page, never markup.
"""

import base64
import copy
import csv
import importlib.util
import itertools
import marshal
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from coursegrader.tools.course import Course, fill_answers, with_answers

from attacks import HOSTILE, HOSTILE_CODE
from grading.ps1_copies import (CODE_PARTS, LOOPS_REWRITTEN, WRITTEN_PARTS,
                                empty_tags_and_emphasis, hidden_inside_words,
                                html_entities_and_comments, shown_as_nothing_inside_words,
                                inside_words, shrunk_inside_words, spaced_by_formulas,
                                TOO_DEEP,
                                into_extra_cell, into_module, into_temporaries,
                                locals_on_a_namespace, operators_as_calls, look_alike_letters,
                                noop_after_each_line, picked_from_literals, renamed, reworded,
                                through_identity, with_a_live_counter, zero_width_spaces)
from grading.ps1_honest import HONEST

COURSE = Path(__file__).resolve().parents[2] / "assignments"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

#: A dead function, repeated to pad a submission far beyond the bounds.
DEAD = "def unused_{i}(a, b):\n    c = a * {i} + b\n    return c - {i}\n\n"
INJECTION = "</pre><script>alert(1)</script><img src=x onerror=alert(2)>"

#: copier: (whom they copied, what the similarity check must see: "code" or "written")
COPIERS = {
    "copier_extra_cell": ("alice", "code"),
    "copier_noop": ("alice", "code"),
    "copier_loops": ("alice", "code"),
    "copier_renamed": ("emil", "code"),
    "copier_padded": ("dora", "code"),
    "copier_written": ("bob", "written"),
    "copier_injects": ("gus", "code"),
    "copier_fake_locked": ("carol", "code"),
    "copier_module": ("fay", "code"),
    "copier_identity": ("alice", "code"),
    "copier_look_alikes": ("carol", "written"),
    "copier_zero_width": ("emil", "written"),
    "copier_tuple_picks": ("alice", "code"),
    "copier_dict_picks": ("emil", "code"),
    "copier_round_trips": ("ivan", "code"),
    "copier_hidden_text": ("fay", "written"),
    "copier_computed_picks": ("hana", "code"),
    "copier_shown_as_nothing": ("ivan", "written"),
    "copier_long_reference": ("alice", "code"),
    "copier_too_deep": ("emil", "code"),
    "copier_spaced_formulas": ("gus", "written"),
    "copier_shrunk_text": ("carol", "written"),
    "copier_builtin_picks": ("bob", "code"),
    "copier_raw_html": ("emil", "written"),
    "copier_entities": ("dora", "written"),
    "copier_empty_tags": ("hana", "written"),
    "copier_temporaries": ("ivan", "code"),
    "copier_namespace": ("emil", "code"),
    "copier_live_counter": ("fay", "code"),
    "copier_operator_calls": ("hana", "code"),
}
#: A copy of alice's code run from marshalled bytes, and of fay's handed in
#: compiled (helper.pyc in a zip): no comparison can read either, so each
#: submission is flagged on its own.
BUILT = "copier_marshal"
COMPILED = "copier_compiled"
#: gus's answers wrapped one by one in what no reading sees through: flagged on its
#: own (its pair with gus may stay under the thresholds)
AT_SCALE = "copier_at_scale"


def _grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _notebook(released, answers, extra=(), before=None):
    """``released`` with the answer cells ``answers`` ({grade id: source}) and the
    cells ``extra`` added before the cell ``before`` (default: at the end)."""
    nb = with_answers(released, answers)
    at = len(nb.cells) if before is None else [_grade_id(c) for c in nb.cells].index(before)
    nb.cells[at:at] = list(extra)
    return nb


def _hand_in_the_class(c):
    released, source = c.released("ps1"), c.source("ps1")
    scaffold = {_grade_id(cell): cell.source for cell in released.cells}
    reference = {_grade_id(cell): cell.source
                 for cell in fill_answers(released, source).cells}
    blank_written = {part: scaffold[part] for part in WRITTEN_PARTS}
    blank_code = {part: scaffold[part] for part in CODE_PARTS}
    c.hand_in("alice", "ps1", _notebook(released, reference))
    for student, answers in HONEST.items():
        c.hand_in(student, "ps1", _notebook(released, answers))
    c.hand_in("blank", "ps1", released)

    # the reference moved verbatim into a cell of the copier's own
    moved, extra = into_extra_cell({**reference, **blank_written})
    c.hand_in("copier_extra_cell", "ps1",
              _notebook(released, moved, [new_code_cell(extra)], before="quadratic_map"))
    names = {"X": "data", "x1": "first", "x2": "second", "s": "root2", "Z": "aug",
             "columns": "feats", "combo": "idx", "counts": "mult", "coef": "w",
             "verdicts": "table", "rng": "gen", "m": "count", "scale": "sc", "P": "pts",
             "K": "G", "n": "rows", "d": "dims"}
    c.hand_in("copier_noop", "ps1", _notebook(
        released, {**noop_after_each_line(renamed(reference, names)), **blank_written}))
    # every operation of ivan's code, and every returned value and test, in a
    # temporary of its own
    c.hand_in("copier_temporaries", "ps1", _notebook(
        released, {**into_temporaries(HONEST["ivan"], returns=True), **blank_written}))
    # fay's code one operation a line, a counter moved on after every line and
    # read by an always-true test of every return
    c.hand_in("copier_live_counter", "ps1", _notebook(
        released, {**with_a_live_counter(into_temporaries(HONEST["fay"], returns=True)),
                   **blank_written}))
    # emil's variables kept as attributes of a namespace; hana's operators as calls
    # of the operator module
    c.hand_in("copier_namespace", "ps1", _notebook(
        released, {**locals_on_a_namespace(HONEST["emil"]), **blank_written}))
    c.hand_in("copier_operator_calls", "ps1", _notebook(
        released, {**operators_as_calls(HONEST["hana"]), **blank_written}))
    c.hand_in("copier_loops", "ps1", _notebook(
        released, {**reference, **LOOPS_REWRITTEN, **blank_written}))
    emil = {"Xt": "aug", "features": "cols", "counts": "cnt", "denom": "den", "scale": "sc",
            "col": "column", "best": "winner", "best_val": "lowest", "pts": "P",
            "lam": "ev", "prod": "cross", "SQRT2": "R2"}
    c.hand_in("copier_renamed", "ps1", _notebook(
        released, {**renamed(HONEST["emil"], emil), **blank_written}))
    # dora's code, renamed, a no-op after each line, moved into a cell of its own
    # below 600 kB of padding in another: the padding is cut, the copy is not
    dora = noop_after_each_line(renamed(HONEST["dora"], {
        "rows": "lines", "result": "res", "exps": "E", "grow": "build", "weight": "w"}))
    moved, extra = into_extra_cell({**dora, **blank_written})
    padding = "".join(DEAD.format(i=i) for i in range(10_000))
    c.hand_in("copier_padded", "ps1", _notebook(
        released, moved, [new_code_cell(padding), new_code_cell(extra)],
        before="quadratic_map_answer"))
    edits = {"validity_arguments": [("is a kernel:", "is a valid kernel:"),
                                    ("a negative number", "which is negative"),
                                    ("giving infinitely many features",
                                     "so the feature map is infinite")],
             "closure_proofs": [("so the new function", "hence the function"),
                                ("Again a feature map exists", "So a feature map exists")]}
    c.hand_in("copier_written", "ps1", _notebook(
        released, {**blank_code, **reworded(HONEST["bob"], edits)}))
    # carol's code in an added cell above the setup cell, dressed as the setup cell
    # (its metadata, its grade id): nbgrader keeps the later cell of a repeated id
    # as the course's, so this one runs as the student's (a cell dressed with a
    # grade id of its own fails nbgrader's validation, and the submission with it)
    moved, extra = into_extra_cell({**HONEST["carol"], **blank_written})
    setup = next(cell for cell in released.cells if _grade_id(cell) == "setup")
    dressed = new_code_cell(extra)
    dressed.metadata = copy.deepcopy(setup.metadata)
    c.hand_in("copier_fake_locked", "ps1", _notebook(released, moved, [dressed],
                                                     before="setup"))
    # fay's code moved into helper.py beside the notebook, imported through sys.path
    moved, module = into_module({**HONEST["fay"], **blank_written})
    folder = c.hand_in("copier_module", "ps1", _notebook(released, moved))
    (folder / "helper.py").write_text(module)
    # alice's code compiled, marshalled and run from the bytes
    blob = base64.b64encode(marshal.dumps(compile(
        "\n\n".join(reference[part] for part in CODE_PARTS), "answers", "exec"))).decode()
    hidden = {part: "# done above\n" for part in CODE_PARTS}
    hidden[CODE_PARTS[0]] = ("import base64\nimport marshal\n\n"
                             f"exec(marshal.loads(base64.b64decode('{blob}')), globals())\n")
    c.hand_in(BUILT, "ps1", _notebook(released, {**hidden, **blank_written}))
    # fay's code compiled into helper.pyc inside lib.zip, which Python imports
    # from the zip without a source (a .pyc beside the notebook nbgrader drops)
    zipped = {**moved, CODE_PARTS[0]: moved[CODE_PARTS[0]].replace(
        "os.getcwd()", "os.path.join(os.getcwd(), 'lib.zip')")}
    folder = c.hand_in(COMPILED, "ps1", _notebook(released, zipped))
    with zipfile.ZipFile(folder / "lib.zip", "w") as z:
        z.writestr("helper.pyc", importlib.util.MAGIC_NUMBER + bytes(12)
                   + marshal.dumps(compile(module, "helper", "exec")))
    # alice's code with every name it reads passed through ``def _i(v): return v``
    c.hand_in("copier_identity", "ps1", _notebook(
        released, {**through_identity(reference), **blank_written}))
    # carol's written answers with Cyrillic and Greek letters for Latin ones that look
    # the same, and emil's with a zero-width space after every third letter
    c.hand_in("copier_look_alikes", "ps1", _notebook(
        released, {**blank_code, **look_alike_letters(HONEST["carol"])}))
    c.hand_in("copier_zero_width", "ps1", _notebook(
        released, {**blank_code, **zero_width_spaces(HONEST["emil"])}))
    # alice's code with every name it reads written ``(n,)[0]``, emil's ``{0: n}[0]``
    c.hand_in("copier_tuple_picks", "ps1", _notebook(
        released, {**picked_from_literals(reference, "({},)[0]"), **blank_written}))
    c.hand_in("copier_dict_picks", "ps1", _notebook(
        released, {**picked_from_literals(HONEST["emil"], "{{0: {}}}[0]"), **blank_written}))
    # ivan's with every name it reads put into something and taken out again, in turn
    c.hand_in("copier_round_trips", "ps1", _notebook(released, {
        **picked_from_literals(HONEST["ivan"], "next(iter(({},)))", "[{}].pop()",
                               "dict(k={})['k']", "(lambda _x={}: _x)()"),
        **blank_written}))
    # dora's written answers with letters as HTML character references and empty
    # comments inside words, hana's with no-break spaces, empty tags and Markdown
    # bold inside words: each renders as the original, word for word
    c.hand_in("copier_entities", "ps1", _notebook(
        released, {**blank_code, **html_entities_and_comments(HONEST["dora"])}))
    c.hand_in("copier_empty_tags", "ps1", _notebook(
        released, {**blank_code, **empty_tags_and_emphasis(HONEST["hana"])}))
    # fay's written answers with letters inside each word in elements that show nothing
    c.hand_in("copier_hidden_text", "ps1", _notebook(
        released, {**blank_code, **hidden_inside_words(HONEST["fay"])}))
    # hana's code picked by what is worked out from constants; ivan's written answers padded with <audio> and phantoms;
    # alice's notebook verbatim, with a character reference of 5,000 digits (which
    # html.unescape refused, leaving the copy out of the comparison) in <audio>
    c.hand_in("copier_computed_picks", "ps1", _notebook(released, {
        **picked_from_literals(HONEST["hana"], "({}, 0)[0 * 1]", "(0, {})[2 > 1]",
                               "({} if [0] else None)", "({},)[len(())]"),
        **blank_written}))
    c.hand_in("copier_shown_as_nothing", "ps1", _notebook(
        released, {**blank_code, **shown_as_nothing_inside_words(HONEST["ivan"])}))
    # emil's code verbatim behind a dead cell too deep for the default
    # recursion limit; gus's written answers with every space $\ $; carol's with
    # letters in <small> three deep inside every word
    c.hand_in("copier_too_deep", "ps1", _notebook(
        released, {**HONEST["emil"], **blank_written}, [new_code_cell(TOO_DEEP)],
        before="quadratic_map"))
    c.hand_in("copier_spaced_formulas", "ps1", _notebook(
        released, {**blank_code, **spaced_by_formulas(HONEST["gus"])}))
    c.hand_in("copier_shrunk_text", "ps1", _notebook(
        released, {**blank_code, **shrunk_inside_words(HONEST["carol"])}))
    # bob's code picked by builtins of constants and a library's constant;
    # emil's written answers with a processing instruction and CDATA inside words
    c.hand_in("copier_builtin_picks", "ps1", _notebook(released, {
        **picked_from_literals(HONEST["bob"], "({}, 0)[isinstance(0, str)]",
                               "({},)[ord(chr(0))]", "({0}, {0})[len('ab') % 2]",
                               "({},)[sum(())]"),
        **blank_written}))
    c.hand_in("copier_raw_html", "ps1", _notebook(
        released, {**blank_code, **inside_words(HONEST["emil"], "<?zq?>", "<![CDATA[zq]]>")}))
    # gus's code with every name picked by what the check cannot work out
    # (``__name__ == "x"``) and his written answers with ``$\displaystyle$`` in every
    # word: wrapping at this scale flags on its own, however it is spelt
    c.hand_in(AT_SCALE, "ps1", _notebook(released, {
        **picked_from_literals(HONEST["gus"], '({0}, 0)[__name__ == "x"]'),
        **inside_words(HONEST["gus"], "$\\displaystyle$")}))
    bomb = dict(reference)
    bomb[WRITTEN_PARTS[0]] += "<audio>&#" + "9" * 5000 + ";</audio>"
    c.hand_in("copier_long_reference", "ps1", _notebook(released, bomb))
    # gus's answers, with markup in a cell that does not parse and in the written answers
    c.hand_in("copier_injects", "ps1", _notebook(
        released, {**HONEST["gus"],
                   "closure_proofs": HONEST["gus"]["closure_proofs"] + INJECTION},
        [new_code_cell(f"x = 1 {INJECTION}"), new_code_cell(HOSTILE_CODE),
         new_markdown_cell(HOSTILE)]))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("similarity_attacks")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=["ps1"])
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    c.nbgrader("db assignment add", "ps1")
    c.nbgrader("generate_assignment", "ps1")
    _hand_in_the_class(c)
    make = ["make", f"PYTHON={sys.executable}", "PS=ps1"]
    done = subprocess.run(make + ["autograde"], cwd=c.root, capture_output=True,
                          text=True, timeout=800)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    scores = c.code_scores("ps1")
    done = subprocess.run(make + ["similarity"], cwd=c.root, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(c.root / "report" / "ps1-similarity.csv", newline="") as f:
        rows = {frozenset((r["student_a"], r["student_b"])): r for r in csv.DictReader(f)}
    page = (c.root / "report" / "ps1-similarity.html").read_text()
    c.similarity_said = done.stdout
    return c, scores, rows, page


def test_every_submission_is_graded_and_compared(graded):
    _, scores, rows, _ = graded
    students = {"alice", "blank", *HONEST, *COPIERS, BUILT, COMPILED, AT_SCALE}
    assert set(scores) == students
    assert len(rows) == len(students) * (len(students) - 1) // 2


def test_the_honest_answers_pass_the_public_checks_and_more(graded):
    """The honest data is a fair test of false positives: real working answers."""
    _, scores, _, _ = graded
    for student in ("alice", *HONEST):
        assert scores[student][0] >= 8, (student, scores[student])


@pytest.mark.parametrize("copier", sorted(COPIERS))
def test_a_disguised_copy_earns_the_originals_marks_and_is_flagged(graded, copier):
    _, scores, rows, _ = graded
    original, seen_in = COPIERS[copier]
    if seen_in == "code":     # the autograder cannot tell: working code is working code,
        # judged on the copier's own variant (so a search that fails on a candidate of
        # the original's may succeed on the copier's, and the other way round)
        assert scores[copier][0] >= 9 and scores[original][0] >= 9, (scores[copier],
                                                                     scores[original])
    row = rows[frozenset((copier, original))]
    assert row["flagged"] == "true", (copier, original, row)
    assert float(row[seen_in]) >= (0.6 if seen_in == "code" else 0.5), row


def test_no_two_independent_submissions_are_flagged(graded):
    _, _, rows, _ = graded
    honest = ["alice", "blank", *HONEST]
    for a, b in itertools.combinations(honest, 2):
        row = rows[frozenset((a, b))]
        assert row["flagged"] == "false", (a, b, row)
        assert float(row["code"]) < 0.4 and float(row["written"]) < 0.3, (a, b, row)


def test_a_copier_is_flagged_with_whom_they_copied_only(graded):
    _, _, rows, _ = graded
    sources = {}
    for copier, (original, _) in COPIERS.items():
        sources.setdefault(original, set()).add(copier)
    for copier, (original, _) in COPIERS.items():
        for other in ("alice", *HONEST):
            if other != original:
                assert rows[frozenset((copier, other))]["flagged"] == "false", (copier, other)


def test_code_run_from_marshalled_bytes_earns_its_marks_and_is_flagged_on_its_own(graded):
    c, scores, _, page = graded
    assert scores[BUILT] == scores["alice"]         # working code is working code
    section = page.split("Flagged on their own")[1].split("</ul>")[0]
    alone = [(student, why) for student, why in
             re.findall(r"<li>([^:<]+): ([^<]*)</li>", section) if student != AT_SCALE]
    assert [student for student, _ in alone] == [COMPILED, BUILT]   # no honest one
    assert alone[0][1].endswith("code handed in compiled: lib.zip")
    assert "marshal" in alone[1][1] and "exec of code that is not written out" in alone[1][1]
    # and the parts' runner saw both run code not handed in as source
    assert alone[0][1].startswith("ran code it did not hand in as source: ")
    assert "compiled code loaded" in alone[0][1]
    assert alone[1][1].startswith("ran code it did not hand in as source: ")
    assert scores[COMPILED] == scores["fay"]
    for student in (BUILT, COMPILED):
        assert f"flagged on its own: {student}: code no comparison reads" in \
            c.similarity_said


def test_look_alike_letters_zero_width_spaces_and_identity_calls_read_as_the_copy(graded):
    """What changes how the copy is stored but not what it says or does: the copy
    shares all of its original, and only of its original."""
    c, scores, rows, page = graded
    for copier, original, share in (("copier_identity", "alice", "code"),
                                    ("copier_look_alikes", "carol", "written"),
                                    ("copier_zero_width", "emil", "written")):
        row = rows[frozenset((copier, original))]
        assert row["flagged"] == "true" and float(row[share]) == 1.0, (copier, row)
    assert scores["copier_identity"] == scores["alice"]       # working code is working code
    # and words that mix Latin and Cyrillic letters flag the look-alike copy on its own
    section = page.split("Flagged on their own: words that mix Latin and Cyrillic")[1]
    said = dict(re.findall(r"<li>([^:<]+): ([^<]*)</li>", section.split("</ul>")[0]))
    assert list(said) == ["copier_look_alikes"]                # no honest one
    assert said["copier_look_alikes"].startswith("d\u0456\u0430g (Cyrillic \u0456 \u0430), ")
    assert ("flagged on its own: copier_look_alikes: written answers with words that mix "
            "Latin and Cyrillic letters: d\u0456\u0430g (Cyrillic \u0456 \u0430)"
            ) in c.similarity_said


def test_literal_picks_and_html_markup_read_as_the_copy(graded):
    """Code whose every name is picked out of a literal again, written answers in
    HTML that renders as the original: the copy shares all of its original, earns
    what it earns, and the page shows the words as they read."""
    _, scores, rows, page = graded
    for copier, original, share in (("copier_tuple_picks", "alice", "code"),
                                    ("copier_dict_picks", "emil", "code"),
                                    ("copier_round_trips", "ivan", "code"),
                                    ("copier_hidden_text", "fay", "written"),
                                    ("copier_computed_picks", "hana", "code"),
                                    ("copier_shown_as_nothing", "ivan", "written"),
                                    ("copier_long_reference", "alice", "code"),
                                    ("copier_too_deep", "emil", "code"),
                                    ("copier_spaced_formulas", "gus", "written"),
                                    ("copier_shrunk_text", "carol", "written"),
                                    ("copier_builtin_picks", "bob", "code"),
                                    ("copier_raw_html", "emil", "written"),
                                    ("copier_entities", "dora", "written"),
                                    ("copier_empty_tags", "hana", "written")):
        row = rows[frozenset((copier, original))]
        assert row["flagged"] == "true" and float(row[share]) == 1.0, (copier, row)
    assert scores["copier_tuple_picks"] == scores["alice"]    # working code is working code
    assert scores["copier_dict_picks"] == scores["emil"]
    assert scores["copier_round_trips"] == scores["ivan"]
    # text hidden by HTML flags the submission on its own, and no honest one
    styled = page.split("Flagged on their own: HTML that may style or hide text")[1]
    named = re.findall(r"<li>([^:<]+): ", styled.split("</ul>")[0])
    assert named == [AT_SCALE, "copier_hidden_text", "copier_injects", "copier_long_reference",
                     "copier_raw_html", "copier_shown_as_nothing", "copier_shrunk_text",
                     "copier_spaced_formulas"]
    assert scores["copier_builtin_picks"] == scores["bob"]
    assert scores["copier_computed_picks"] == scores["hana"]
    section = next(s for s in page.split("<section>")
                   if re.match(r"\s*<h2>(copier_entities and dora|dora and copier_entities):", s))
    assert "&amp;#101;" not in section and "&lt;!----&gt;" not in section
    assert "definition" in section                  # "def<!---->ini<!---->tio<!---->n"


def test_wrapping_at_scale_flags_on_its_own_however_it_is_spelt(graded):
    """Names wrapped one by one in a way no reading sees through, and a formula in
    every word: the copy may share little with gus, but it is flagged on its own,
    with what it did, and no honest submission is."""
    c, scores, _, page = graded
    assert scores[AT_SCALE] == scores["gus"]
    said = c.similarity_said
    assert re.search(r"flagged on its own: copier_at_scale: code no comparison reads \(\d+ "
                     r"values picked out of a literal container again", said), said[-3000:]
    styled = page.split("Flagged on their own: HTML that may style or hide text")[1]
    mine = re.search(r"<li>copier_at_scale: ([^<]*)</li>", styled)
    assert mine and re.match(r"\d+ formulas inside words", mine.group(1)), styled[:2000]
    for student in ("alice", *HONEST):
        assert f"flagged on its own: {student}:" not in said


def test_the_blank_release_shares_nothing(graded):
    _, _, rows, _ = graded
    for pair, row in rows.items():
        if "blank" in pair:
            assert float(row["similarity"]) == 0, sorted(pair)


def test_what_the_bounds_cut_is_said_for_that_submission(graded):
    c, _, rows, page = graded
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page))
    assert "What was cut" in page
    assert re.search(r"copier_padded: \d+ kB of its cells beyond what the record keeps "
                     r"not compared; code cut at 100 kB: \d+ kB of \d+ kB", text)
    assert re.search(r"copier_injects: 1 code cell\(s\) do not parse as Python", text)
    noted = re.findall(r"<li>([^:<]+):", page.split("What was cut")[1].split("</ul>")[0])
    assert noted == ["copier_compiled", "copier_injects", "copier_marshal", "copier_module",
                     "copier_padded"]
    assert re.search(r"copier_module: [^<]*its modules compared with its cells: helper\.py",
                     text)
    # the 8 MB of padding shows as no more than the pair it is in: about 10 kB a
    # flagged pair, side by side, whatever the size of what was handed in
    flagged = sum(r["flagged"] == "true" for r in rows.values())
    assert flagged >= len(COPIERS)
    assert len(page.encode()) < 12_000 * flagged


def test_what_a_student_wrote_is_text_on_the_page(graded):
    _, _, _, page = graded
    section = next(s for s in page.split("<section>")
                   if re.match(r"\s*<h2>(copier_injects and gus|gus and copier_injects):", s))
    assert "<script" not in page and "<img" not in page and "onerror=alert" not in page
    assert "&lt;/V&gt;&lt;V&gt;V(1)&lt;/V&gt;" in page      # the cell read token by token
    assert "onerror" not in section     # an attribute is no word: the words as they show
    # and the markup that may hide text is named, as text, on its own
    styled = page.split("Flagged on their own: HTML that may style or hide text")[1]
    assert "<li>copier_injects: &lt;script&gt;" in styled.split("</ul>")[0]
    assert "default-src 'none'" in page                     # and no script would run


def test_the_page_runs_nothing_a_student_wrote_and_reads_on_a_laptop_and_a_phone(graded):
    """In Chromium: no attack of the hostile answer runs, and the page has no serious
    or critical WCAG 2.1 AA violation on a laptop and on a phone."""
    from playwright.sync_api import sync_playwright

    from accessibility import LAPTOP, PHONE, axe_violations
    from conftest import CHROMIUM_ARGS, require_chromium

    c = graded[0]
    path = c.root / "report" / "ps1-similarity.html"
    failures = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        try:
            for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
                page = browser.new_context(viewport=viewport).new_page()
                page.goto(path.as_uri())
                assert page.evaluate("typeof window.pwned") == "undefined"
                assert page.get_by_text("copier_injects and gus").count() or \
                    page.get_by_text("gus and copier_injects").count()
                failures += [f"{name}: {v}" for v in axe_violations(page)]
        finally:
            browser.close()
    assert not failures, "\n".join(failures)
