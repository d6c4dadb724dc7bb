"""Exports an instructor opens in a spreadsheet, attacked through `make export`.

A student picks an id and a name that a spreadsheet would run as a formula
(``=HYPERLINK(...)``, ``+cmd|' /C calc'!A0``) or the name Canvas gives its
points row ("Points Possible"); the LMS's roster carries the same text. Every
cell of ``grades.csv``, the Canvas and Moodle files and the unmatched lists
must open as text, each student must get exactly their own score, and a
classmate's must not change. The gradebook is nbgrader's, filled through its
API (a written part graded by hand, as Formgrader records it), in a folder
with the course's nbgrader_config.py and Makefile.
"""

import csv
import datetime as dt
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from attacks import SPREADSHEET_FORMULAS, spreadsheet_formulas
from coursegrader.spreadsheet import FORMULA_STARTS, neutralise, writer

COURSE = Path(__file__).resolve().parents[2] / "assignments"
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")

FORMULA_ID = '=HYPERLINK("http://x","y")'
FORMULA_NAME = "+cmd|' /C calc'!A0"
# student id -> (first name, last name, email, ps1 points); all on time
STUDENTS = {
    "alice": ("Alice", "Example", "alice@uni.example", 8),            # the classmate
    FORMULA_ID: (FORMULA_NAME, "-2+3", "@SUM(1+1)*cmd", 7),
    "pp": ("Points", "Possible", "pp@uni.example", 3),
}


#: What a spreadsheet may skip before a formula: control characters, line and
#: paragraph separators, every kind of space, zero-width and format characters.
EXOTIC = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2029",
          "\u2003", "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060", "\ufeff",
          "\u202e", "\u3000", "\x0b\u200b\ufeff ")
#: The signs that start a formula, and forms of them a spreadsheet may fold in.
TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20",
            "\ufe66", "\ufe62", "\u207a")
#: One attacker per exotic run: (id, first, last, email), each a formula behind it.
EXOTIC_STUDENTS = [
    (f"{run}=HYPERLINK(\"http://x\",\"{n}\")",
     f"{run}{TRIGGERS[n % len(TRIGGERS)]}cmd|' /C calc'!A0",
     f"{run}{TRIGGERS[(n + 1) % len(TRIGGERS)]}2+3",
     f"{run}{TRIGGERS[(n + 2) % len(TRIGGERS)]}SUM(1+1)")
    for n, run in enumerate(EXOTIC)]


def shown(text):
    """``text`` (a formula behind what a spreadsheet skips) as the exports write it:
    an apostrophe first, and an underscore after a space right before the
    formula, where an import that splits at spaces would start a cell."""
    return "'" + re.sub(f" (?=[{re.escape(''.join(TRIGGERS))}])", " _", text)


def opens_as_formula(cell):
    """An independent account: past every space, control and format character,
    the first character (or its compatibility form) is a formula sign, and the
    text is not a plain number."""
    rest = cell.lstrip("".join(ch for ch in set(cell)
                               if unicodedata.category(ch)[0] in "ZC" and ch not in "\t\r"))
    if not rest or cell.replace(".", "", 1).lstrip("-").isdigit():
        return False
    return unicodedata.normalize("NFKC", rest[0])[0] in "=+-@\t\r"


def make_course(root, students):
    """A course folder whose gradebook holds ``students`` graded on ps1."""
    root.mkdir()
    shutil.copy(COURSE / "nbgrader_config.py", root)
    shutil.copy(COURSE / "Makefile", root)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id="kernel-methods") as gb:
        gb.add_assignment("ps1", duedate=dt.datetime(2026, 10, 5, 23, 59))
        gb.add_notebook("ps1", "ps1")
        gb.add_grade_cell("answer", "ps1", "ps1", max_score=10, cell_type="markdown")
        for sid, (first, last, email, points) in students.items():
            gb.add_student(sid, first_name=first, last_name=last, email=email)
            gb.add_submission("ps1", sid, timestamp=dt.datetime(2026, 10, 5, 12))
            grade = gb.find_grade("answer", "ps1", "ps1", sid)
            grade.manual_score = points
            grade.needs_manual_grade = False
            gb.db.commit()
    return root


@pytest.fixture
def course(slow, tmp_path):
    return make_course(tmp_path / "course", STUDENTS)


@pytest.fixture
def exotic_course(slow, tmp_path):
    """alice, the classmate, with 8; one attacker per exotic run, each with 1 to 5."""
    students = {"alice": STUDENTS["alice"]}
    for n, (sid, first, last, email) in enumerate(EXOTIC_STUDENTS):
        students[sid] = (first, last, email, 1 + n % 5)
    return make_course(tmp_path / "course", students)


def make(root, *args, check=True):
    done = subprocess.run(["make", "export", "PS=ps1", *args, f"PYTHON={sys.executable}"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    if check and done.returncode:
        raise AssertionError(done.stdout + done.stderr)
    return done


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def assert_no_formula(rows, where):
    """No cell a spreadsheet would run: each starts with none of = + - @ tab CR,
    unless it is a plain number."""
    bad = [(n, cell) for n, row in enumerate(rows, 1) for cell in row
           if neutralise(cell) != cell]
    assert not bad, f"{where}: cells that open as formulas: {bad}"


def assert_listing_safe(path):
    for line in path.read_text().splitlines():
        body = line.strip()
        assert not body.startswith(FORMULA_STARTS), f"{path.name}: {line!r}"
        assert f" {FORMULA_ID}" not in line and f" {FORMULA_NAME}" not in line, line


def test_neutralise_looks_past_every_exotic_leading_character():
    for run in EXOTIC:
        for trigger in TRIGGERS:
            text = run + trigger + "1+1"
            assert opens_as_formula(text), repr(text)
            assert neutralise(text) == shown(text), repr(text)
    # a symbol nobody has checked is not taken for inert
    assert neutralise("\u2795cmd") == "'\u2795cmd"
    # text that starts with what is inert stays as written
    for text in ("Ada", "\u00c9lodie", "\u674e\u96f7", "(Ada)", "'=1", "_x", "\u200bAda",
                 " ", "\u2028", "a=1"):
        assert neutralise(text) == text, repr(text)


def test_neutralise_follows_owasp_and_leaves_numbers():
    for text in ("=1+1", "+1+1", "-1+1", "@SUM(A1)", FORMULA_ID,
                 # what comes before the formula that a spreadsheet may skip, and
                 # the full-width signs some fold into the plain ones
                 "\u00a0=1+1", "\ufeff=1+1", "\uff1d1+1", "\uff0bcmd"):
        assert neutralise(text) == "'" + text
    # a space is where a reader may split too: the piece after it is marked
    assert neutralise(" =1+1") == "' _=1+1" and neutralise("Eve =1") == "Eve _=1"
    # a tab or a line break is also where a reader may split: the piece after it
    # is marked too
    assert neutralise("\t=1") == "'\t_=1" and neutralise("\r=1") == "'\r_=1"
    assert neutralise("\n=1+1") == "'\n_=1+1"
    assert neutralise("-3") == "-3" and neutralise("-2.5") == "-2.5"
    assert neutralise(-3.0) == -3.0 and neutralise(0) == 0
    assert neutralise("Ada") == "Ada" and neutralise("") == ""


def test_grades_csv_holds_no_formula_and_every_score_is_the_students_own(course):
    make(course)
    rows = read(course / "grades.csv")
    assert_no_formula(rows, "grades.csv")
    by_id = {r["student_id"]: r for r in csv.DictReader(open(course / "grades.csv"))}
    attacker = by_id["'" + FORMULA_ID]            # shown as written, as text
    assert attacker["first_name"] == "'" + FORMULA_NAME
    assert attacker["last_name"] == "'-2+3" and attacker["email"] == "'@SUM(1+1)*cmd"
    assert attacker["score"] == "7"
    assert by_id["alice"]["score"] == "8" and by_id["pp"]["score"] == "3"
    assert by_id["alice"]["provisional"] == ""


CANVAS_HEADER = ("Student,ID,SIS User ID,SIS Login ID,Section,ps1 (4401),"
                 "Current Points,Final Score\n")
POINTS_ROW = "    Points Possible,,,,,,(read only),(read only)\n"
CANVAS_STUDENTS = (
    '"Example, Alice",1021,S0001,alice,Kernel Methods 2026,,0,0\n'
    f'"{FORMULA_NAME}",1022,S0002,"{FORMULA_ID.replace(chr(34), chr(34) * 2)}",'
    'Kernel Methods 2026,,0,0\n'
    'Points Possible,1023,S0003,pp,Kernel Methods 2026,,0,0\n'
    '"=1+1",1024,@S0004,=cmd,-Section,,-3,=A1\n'           # not in the gradebook
)


def test_canvas_file_holds_no_formula_and_points_possible_is_a_student(course):
    (course / "canvas.csv").write_text(CANVAS_HEADER + POINTS_ROW + CANVAS_STUDENTS,
                                       encoding="utf-8-sig")
    done = make(course, "LMS=canvas", "ROSTER=canvas.csv")
    rows = read(course / "grades-canvas.csv")
    assert_no_formula(rows, "grades-canvas.csv")
    by_id = {r[1]: r for r in rows[2:]}
    assert rows[1][0] == "    Points Possible" and rows[1][5] == "10"  # the real points row
    assert by_id["1021"][5] == "8"                                       # the classmate
    assert by_id["1022"][5] == "7" and by_id["1022"][0] == "'" + FORMULA_NAME
    assert by_id["1022"][3] == "'" + FORMULA_ID
    assert by_id["1023"][0] == "Points Possible" and by_id["1023"][5] == "3"  # not 10
    assert by_id["1024"][:5] == ["'=1+1", "1024", "'@S0004", "'=cmd", "'-Section"]
    assert by_id["1024"][6] == "-3"                          # the LMS's number stays one
    listing = course / "grades-canvas-unmatched.txt"
    assert "line 6" in listing.read_text() and "line 6" in done.stderr
    assert_listing_safe(listing)


def test_canvas_student_named_points_possible_first_is_still_a_student(course):
    """No points row in the file: the first row is a student, whatever the name."""
    (course / "canvas.csv").write_text(
        CANVAS_HEADER + 'Points Possible,1023,S0003,pp,Kernel Methods 2026,,0,0\n'
        '"Example, Alice",1021,S0001,alice,Kernel Methods 2026,,0,0\n')
    make(course, "LMS=canvas", "ROSTER=canvas.csv")
    rows = read(course / "grades-canvas.csv")
    assert rows[1][:6] == ["Points Possible", "1023", "S0003", "pp",
                           "Kernel Methods 2026", "3"]
    assert rows[2][5] == "8"


def test_moodle_file_and_roster_listing_hold_no_formula(course):
    make(course, "LMS=moodle")
    rows = read(course / "grades-moodle.csv")
    assert_no_formula(rows, "grades-moodle.csv")
    by_id = {r[0]: r for r in rows[1:]}
    assert by_id["'" + FORMULA_ID] == ["'" + FORMULA_ID, "'@SUM(1+1)*cmd",
                                        "'" + FORMULA_NAME, "'-2+3", "7"]
    assert by_id["alice"][4] == "8"
    (course / "moodle.csv").write_text(
        "First name,Last name,ID number,Institution,Department,Email address\n"
        "Alice,Example,alice,Uni,CS,alice@uni.example\n"
        "Eve,Example,=cmd|' /C calc'!A0,Uni,CS,+eve@uni.example\n")
    done = make(course, "LMS=moodle", "ROSTER=moodle.csv")
    assert_no_formula(read(course / "grades-moodle.csv"), "grades-moodle.csv")
    listing = course / "grades-moodle-unmatched.txt"
    assert "line 3" in listing.read_text() and "line 3" in done.stderr
    assert "_=cmd|' /C calc'!A0" in listing.read_text()
    assert_listing_safe(listing)


def test_every_export_neutralises_formulas_behind_exotic_characters(exotic_course):
    """grades.csv, the Canvas file (matched and unmatched roster rows) and the
    Moodle file: no cell opens as a formula, however it is hidden, and every
    score is the student's own."""
    scores = {sid: str(1 + n % 5) for n, (sid, *_) in enumerate(EXOTIC_STUDENTS)}
    make(exotic_course)
    rows = read(exotic_course / "grades.csv")
    assert not [c for row in rows for c in row if opens_as_formula(c)]
    by_id = {r["student_id"]: r for r in csv.DictReader(
        open(exotic_course / "grades.csv", newline="", encoding="utf-8"))}
    assert by_id["alice"]["score"] == "8"
    for sid, first, last, email in EXOTIC_STUDENTS:
        row = by_id[shown(sid)]
        assert row["score"] == scores[sid]
        assert [row["first_name"], row["last_name"], row["email"]] == \
            [shown(first), shown(last), shown(email)]

    make(exotic_course, "LMS=moodle")
    rows = read(exotic_course / "grades-moodle.csv")
    assert not [c for row in rows for c in row if opens_as_formula(c)]
    moodle = {r[0]: r for r in rows[1:]}
    assert moodle["alice"][4] == "8"
    assert all(moodle[shown(sid)][4] == scores[sid] for sid, *_ in EXOTIC_STUDENTS)

    def quoted(text):
        return '"' + text.replace('"', '""') + '"'
    roster = [f'"Example, Alice",1021,S0001,alice,Kernel Methods 2026,,0,0\n']
    for n, (sid, first, last, email) in enumerate(EXOTIC_STUDENTS):
        roster.append(f"{quoted(first)},{2000 + n},{quoted(last)},{quoted(sid)},"
                      f"{quoted(email)},,0,0\n")
    roster.append(f"{quoted(EXOTIC[0] + '=1+1')},1999,{quoted(EXOTIC[7] + '@x')},"
                  f"{quoted(EXOTIC[10] + '=cmd')},x,,0,0\n")       # not in the gradebook
    (exotic_course / "canvas.csv").write_text(CANVAS_HEADER + POINTS_ROW + "".join(roster),
                                              encoding="utf-8", newline="")
    make(exotic_course, "LMS=canvas", "ROSTER=canvas.csv")
    rows = read(exotic_course / "grades-canvas.csv")
    assert not [c for row in rows for c in row if opens_as_formula(c)]
    canvas = {r[1]: r for r in rows[2:]}
    assert canvas["1021"][5] == "8"
    listing = (exotic_course / "grades-canvas-unmatched.txt").read_text(encoding="utf-8")
    for n, (sid, first, *_) in enumerate(EXOTIC_STUDENTS):
        assert canvas[str(2000 + n)][0] == shown(first)
        # matched by the SIS Login ID with the spaces around it trimmed: an id that
        # starts with a space matches nobody and is listed, never given another's score
        if sid.strip() == sid:
            assert canvas[str(2000 + n)][5] == scores[sid]
        else:
            assert canvas[str(2000 + n)][5] == "" and f"line {4 + n}:" in listing
    assert f"line {4 + len(EXOTIC_STUDENTS)}:" in listing
    for line in listing.split("\n"):
        assert not opens_as_formula(line.strip(" ")), repr(line)


#: Names and emails whose pieces after a separator are formulas: a spreadsheet
#: that splits the cell at `;` (Excel in most of Europe), a tab, `|`, `,` or a
#: space would run them. (id, first, last, email, ps1 points)
SPLIT_STUDENTS = {
    "alice": ("Alice", "Example", "alice@uni.example", 8),              # the classmate
    "mallory": ("M;=1+1;@SUM(1+1)*cmd|' /C calc'!A0", "X\t=2+3",
                "m;=HYPERLINK(A1)@example.org", 7),
    "e;=1+1": ("Eve|+cmd", "Y, -2+3", "e;\u200b@x", 5),
    "oscar": ("Oscar =1+1 M", "O @SUM(1+1)", "o -2+3@example.org", 6),
    # a quote opens a quoted field where a reader splits: ""=1+1 reads as =1+1
    "quinn": ('Eve "=HYPERLINK(CHAR(104)) x', 'Q;"=1+1;x', 'q "@x@example.org', 4),
}
SPLIT_ROSTER = (
    '"Example, Alice",1021,S0001,alice,Kernel Methods 2026,,0,0\n'
    'Mallory;=1+1,9,m1;@x,mallory,S1;=2+2,,0,-3\n'
    'Eve|+cmd,10,"e;=1+1\t=3",e;=1+1,S1,,0,0\n'
    'Trudy;=1+1,11,t1,trudy,S1|-cmd,,0,0\n'                    # not in the gradebook
)


def assert_no_piece_is_a_formula(path):
    """Read as a spreadsheet might: whole (the file's own quoting) and split at
    each separator a locale or a text import may use, honouring the quotes or
    not: no cell, and no piece of one, opens as a formula."""
    text = path.read_text(encoding="utf-8")
    for sep in ",;\t| ":
        for quoting in (csv.QUOTE_MINIMAL, csv.QUOTE_NONE):
            for row in csv.reader(text.splitlines(), delimiter=sep, quoting=quoting):
                for cell in row:
                    for piece in re.split(r"[;,\t| ]", cell):
                        assert not opens_as_formula(piece.strip('"')), \
                            (path.name, repr(sep), repr(cell))


@pytest.fixture
def split_course(slow, tmp_path):
    return make_course(tmp_path / "course", SPLIT_STUDENTS)


def test_no_export_holds_a_formula_behind_a_separator(split_course):
    """grades.csv, the Moodle file (with and without its roster) and the Canvas
    file: a name, email or roster cell like `M;=1+1` opens as text in a locale
    whose list separator is `;` or wherever the file is read tab-separated;
    text is quoted, numbers are not, and every score is the student's own."""
    make(split_course)
    grades = split_course / "grades.csv"
    assert_no_piece_is_a_formula(grades)
    by_id = {r["student_id"]: r for r in csv.DictReader(open(grades, newline=""))}
    assert by_id["alice"]["score"] == "8" and by_id["mallory"]["score"] == "7"
    assert by_id["e;_=1+1"]["score"] == "5"
    assert by_id["mallory"]["first_name"] == "M;_=1+1;_@SUM(1+1)*cmd|' /C calc'!A0"
    assert by_id["mallory"]["last_name"] == "X\t_=2+3"
    assert by_id["e;_=1+1"]["email"] == "e;_\u200b@x"
    assert by_id["oscar"]["first_name"] == "Oscar _=1+1 M"
    assert by_id["oscar"]["score"] == "6"
    assert by_id["quinn"]["first_name"] == 'Eve _"=HYPERLINK(CHAR(104)) x'
    assert by_id["quinn"]["last_name"] == 'Q;_"=1+1;x' and by_id["quinn"]["score"] == "4"
    mallory, = [line for line in grades.read_text().splitlines() if '"mallory"' in line]
    assert '"M;_=1+1;' in mallory and ",7,10," in mallory      # text quoted, numbers not

    make(split_course, "LMS=moodle")
    moodle = split_course / "grades-moodle.csv"
    assert_no_piece_is_a_formula(moodle)
    rows = {r[0]: r for r in read(moodle)[1:]}
    assert rows["mallory"] == ["mallory", "m;_=HYPERLINK(A1)@example.org",
                               "M;_=1+1;_@SUM(1+1)*cmd|' /C calc'!A0", "X\t_=2+3", "7"]
    assert rows["alice"][4] == "8" and rows["e;_=1+1"][4] == "5"
    (split_course / "moodle.csv").write_text(
        "First name,Last name,ID number,Email address\n"
        "Alice,Example,alice,alice@uni.example\n"
        "M;=1+1,X,mallory,m;=HYPERLINK(A1)@example.org\n")
    make(split_course, "LMS=moodle", "ROSTER=moodle.csv")
    assert_no_piece_is_a_formula(moodle)
    assert {r[0]: r[4] for r in read(moodle)[1:]} == {"alice": "8", "mallory": "7"}

    (split_course / "canvas.csv").write_text(CANVAS_HEADER + POINTS_ROW + SPLIT_ROSTER)
    make(split_course, "LMS=canvas", "ROSTER=canvas.csv")
    canvas = split_course / "grades-canvas.csv"
    assert_no_piece_is_a_formula(canvas)
    rows = {r[1]: r for r in read(canvas)[2:]}
    assert rows["1021"][5] == "8" and rows["9"][5] == "7" and rows["10"][5] == "5"
    assert rows["9"][:5] == ["Mallory;_=1+1", "9", "m1;_@x", "mallory", "S1;_=2+2"]
    assert rows["9"][7] == "-3" and rows["11"][4] == "S1|_-cmd" and rows["11"][5] == ""
    assert ",-3\n" in canvas.read_text() or ",-3\r\n" in canvas.read_text()


def test_no_reader_starts_a_cell_with_a_formula_whatever_its_quote_or_separator():
    """Each attack, written by the exports' writer in every column and as a line
    of a list, read with `,` `;` tab `|` or space and `"`, `'` or no quote: no
    cell opens as a formula (the apostrophe after `;` was the field `=1+1` to a
    reader quoting with `'`), and each cell is the one it must be."""
    import io
    f = io.StringIO()
    w = writer(f)
    for text in SPREADSHEET_FORMULAS:
        w.writerow([text, 7, text, "-3", text])
    w.writerow(["-3", "x", 1])                # a field that runs on: never a bare -3
    assert spreadsheet_formulas(f.getvalue()) == []
    rows = list(csv.reader(io.StringIO(f.getvalue(), newline="")))
    assert [r[0] for r in rows[:-1]] == [r[2] for r in rows[:-1]] \
        == list(SPREADSHEET_FORMULAS.values())
    assert rows[-1] == ["'-3", "x", "1"] and rows[0][1] == "7" and rows[0][3] == "-3"
    assert ',7,"' in f.getvalue() and ',-3,"' in f.getvalue()     # numbers stay numbers
    listing = "\n".join(neutralise(f"  line 3: {text} ({text})", quoted=False)
                         for text in list(SPREADSHEET_FORMULAS) + ["-3", "=1"])
    assert spreadsheet_formulas(listing) == []


#: Students whose ids, names and emails are the attacks of SPREADSHEET_FORMULAS:
#: (first, last, email, ps1 points).
QUOTE_STUDENTS = {
    "alice": ("Alice", "Example", "alice@uni.example", 8),            # the classmate
    "'=HYPERLINK(\"http://x\",\"y\")": ("x;'=1+1'", "';=1+1", "Eve;''=SUM(1+1)", 7),
    "Ann;-3;=1": (";=1+1", "n,'+2+3", "Mo\t'@cmd|' /C calc'!A0", 6),
    "-3": ("=1+1", "x;'=1+1'", "m,'+1@x", 5),
}


@pytest.fixture
def quote_course(slow, tmp_path):
    return make_course(tmp_path / "course", QUOTE_STUDENTS)


def test_no_export_opens_a_formula_to_a_reader_quoting_with_apostrophes(quote_course):
    """`make export`, `LMS=moodle` (with a roster) and `LMS=canvas`, and their
    unmatched lists, read with every separator and quote a spreadsheet offers:
    no cell a student or the LMS wrote opens as a formula, each is written as it
    must be, and each score is the student's own."""
    def safe(path):
        found = spreadsheet_formulas(path.read_text(encoding="utf-8"))
        assert not found, (path.name, found[:5])

    make(quote_course)
    grades = quote_course / "grades.csv"
    safe(grades)
    by_id = {r["student_id"]: r for r in csv.DictReader(open(grades, newline=""))}
    assert {sid: r["score"] for sid, r in by_id.items()} == {
        "alice": "8", "'=HYPERLINK(\"http://x\",\"y\")": "7", "Ann;_-3;_=1": "6", "-3": "5"}
    hyperlink = by_id["'=HYPERLINK(\"http://x\",\"y\")"]
    assert [hyperlink["first_name"], hyperlink["last_name"], hyperlink["email"]] == \
        ["x;_'=1+1'", "';_=1+1", "Eve;_''=SUM(1+1)"]
    assert [by_id["Ann;_-3;_=1"][k] for k in ("first_name", "last_name", "email")] == \
        [";_=1+1", "n,_'+2+3", "Mo\t_'@cmd|' /C calc'!A0"]

    (quote_course / "moodle.csv").write_text(
        "First name,Last name,ID number,Email address\n"
        "Alice,Example,alice,alice@uni.example\n"
        "A,B,Ann;-3;=1,x\n"
        "\"x;'=1+1'\",Y,\"';=1+1\",\"Zed;''=SUM(1+1)\"\n")          # not in the gradebook
    make(quote_course, "LMS=moodle", "ROSTER=moodle.csv")
    moodle = quote_course / "grades-moodle.csv"
    safe(moodle)
    assert {r[0]: r[4] for r in read(moodle)[1:]} == {"alice": "8", "Ann;_-3;_=1": "6"}
    listing = quote_course / "grades-moodle-unmatched.txt"
    safe(listing)
    # a field starting at "';" reads `;_=1+1/...` to a reader quoting with `'`
    assert "  line 4: ';_=1+1/Zed;_''=SUM(1+1)\n" in listing.read_text()
    assert "  _'=HYPERLINK(\"http://x\",\"y\")\n  _-3\n" in listing.read_text()

    (quote_course / "canvas.csv").write_text(
        CANVAS_HEADER + POINTS_ROW
        + '"Example, Alice",1021,S0001,alice,Kernel Methods 2026,,0,0\n'
        + "\"x;'=1+1'\",1022,\"';=1+1\",\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\","
          "\"S;''=1\",,0,-3\n"
        + "=1+1,1023,x,-3,\"n,'+2+3\",,0,0\n"
        + "\"Trudy;'=1+1'\",1024,\"t;'=2\",trudy,S1,,0,0\n")       # not in the gradebook
    make(quote_course, "LMS=canvas", "ROSTER=canvas.csv")
    canvas = quote_course / "grades-canvas.csv"
    safe(canvas)
    rows = {r[1]: r for r in read(canvas)[2:]}
    assert rows["1021"][5] == "8" and rows["1022"][5] == "7" and rows["1023"][5] == "5"
    assert rows["1022"][:5] == ["x;_'=1+1'", "1022", "';_=1+1",
                                "'=HYPERLINK(\"http://x\",\"y\")", "S;_''=1"]
    assert rows["1022"][7] == "-3" and rows["1023"][0] == "'=1+1"
    assert rows["1023"][3:5] == ["-3", "n,_'+2+3"] and rows["1024"][5] == ""
    listing = quote_course / "grades-canvas-unmatched.txt"
    safe(listing)
    assert "line 6: Trudy;_'=1+1' (SIS Login ID trudy, SIS User ID t;_'=2)" in listing.read_text()


#: How LibreOffice Calc's text import reads a CSV in practice: a locale's list
#: separator (``,`` or ``;``) or tabs, with ``"`` or ``'`` as its quote (``|``
#: and spaces are read by Python's readers in the tests above).
CALC_IMPORTS = [(sep, quote) for sep in ",;\t" for quote in "\"'"]


def calc_formulas(paths, sep, quote, out, profile):
    """The formulas LibreOffice Calc makes of each of ``paths`` (CSV files),
    read with ``sep`` and ``quote`` as its import would: {file name: [formula]}.
    Calc saves each as a flat OpenDocument sheet, where a formula is a cell's
    ``table:formula``; ``profile`` is the folder of Calc's settings."""
    options = f"CSV:{ord(sep)},{ord(quote)},76,1"
    done = subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{profile}", "--headless",
         f"--infilter={options}", "--convert-to", "fods", "--outdir", str(out),
         *map(str, paths)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return {path.name: re.findall(r'table:formula="([^"]*)"',
                                  (out / (path.stem + ".fods")).read_text(encoding="utf-8"))
            for path in paths}


@pytest.fixture
def calc():
    """LibreOffice Calc's ``soffice``: fails the test in CI, skips it elsewhere,
    when it is missing."""
    from conftest import in_ci
    soffice = shutil.which("soffice")
    if soffice is None:
        why = "LibreOffice Calc not found (apt-get install libreoffice-calc)"
        if in_ci():
            pytest.fail(f"{why}; it is required in CI")
        pytest.skip(why)
    return soffice


def test_libreoffice_calc_opens_every_export_without_a_formula(calc, slow, tmp_path):
    """The exports of a class whose ids, names, emails and Canvas roster are every
    attack of this module, opened in LibreOffice Calc with each separator and
    quote its import offers: Calc makes no formula of any cell, and alice's and
    mallory's scores open as numbers. The same rows written by Python's CSV
    writer as they are (quoted only where CSV needs it, and each text alone
    on a line) open with formulas in
    Calc under every setting, so the check sees them."""
    students = {**STUDENTS, **SPLIT_STUDENTS, **QUOTE_STUDENTS}
    for n, (sid, first, last, email) in enumerate(EXOTIC_STUDENTS):
        students[sid] = (first, last, email, 1 + n % 5)
    course = make_course(tmp_path / "course", students)
    make(course)
    make(course, "LMS=moodle")
    (course / "canvas.csv").write_text(CANVAS_HEADER + POINTS_ROW + SPLIT_ROSTER)
    make(course, "LMS=canvas", "ROSTER=canvas.csv")
    exports = [course / name for name in ("grades.csv", "grades-moodle.csv", "grades-canvas.csv")]
    plain = tmp_path / "plain.csv"
    with open(plain, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        for path in exports:
            w.writerows(read(path))
        w.writerows([sid, *info] for sid, info in students.items())
        w.writerows([text] for sid, info in students.items() for text in (sid, *info[:3]))

    for n, (sep, quote) in enumerate(CALC_IMPORTS):
        found = calc_formulas(exports + [plain], sep, quote, tmp_path / f"calc{n}",
                              tmp_path / "profile")
        assert found.pop("plain.csv"), (sep, quote)
        assert found == {path.name: [] for path in exports}, (sep, quote)

    sheet = (tmp_path / "calc0" / "grades.fods").read_text(encoding="utf-8")
    assert 'office:value-type="float" office:value="8"' in sheet
    assert 'office:value-type="float" office:value="7"' in sheet
