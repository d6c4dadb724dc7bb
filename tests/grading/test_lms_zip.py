"""``make zip_collect``: an LMS's zip that a student cannot steer.

The zips are built the way an attacker would: an upload that is itself a zip
holding a classmate's notebook, an upload that unpacks to 300 MB of zeros,
names with ``..``, absolute names, folders, links, names that cannot be
decoded or carry invisible characters, and two files for one student. The
LMS's own naming (Canvas's by default) is the only source of a student id.
"""

import copy
import io
import os
import re
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from coursegrader.tools.course import Course, fill_answers
from coursegrader.tools.lms_zip import LmsZipExtractor, plan

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS = "ps1"
CANVAS = LmsZipExtractor.named_regexp.default_value
NOTEBOOKS = {"ps1.ipynb"}
LIMITS = dict(max_files=100, max_file_bytes=10 * 1024**2, max_total_bytes=50 * 1024**2)

NESTED = "an archive inside the archive (not unpacked)"
NOT_PS1 = "not a notebook of the problem set (ps1.ipynb) nor a Python module"
ODD = "a name with control or invisible characters"
ABSOLUTE = "an absolute name or one with backslashes"
CAROL_TWICE = ("2 files for carol's ps1.ipynb and no LMS timestamp to choose by: "
               "none taken, collect it by hand")

pytestmark = [pytest.mark.slow,
              pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def zip_bytes(members):
    """A zip of ``members``: [(name, bytes or ZipInfo-tweaking dict)]."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, *mode in members:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 12, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (mode[0] if mode else stat.S_IFREG | 0o644) << 16
            zf.writestr(info, data)
    return buf.getvalue()


def zeros_member(zf, name, n_bytes):
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 12, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    with zf.open(info, "w", force_zip64=True) as f:
        block = bytes(1 << 20)
        for _ in range(n_bytes >> 20):
            f.write(block)


def bomb(n_bytes=300 * 1024**2):
    """An upload that is a few hundred kB and unpacks to ``n_bytes`` of zeros."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zeros_member(zf, "zeros.ipynb", n_bytes)
    return buf.getvalue()


def without_utf8_flag(data):
    """The zip with the UTF-8 flag of every name cleared, as an old tool writes it."""
    out = bytearray(data)
    for sig, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        i = out.find(sig)
        while i >= 0:
            out[i + flag_at + 1] &= ~0x08   # bit 11 of the little-endian flags
            i = out.find(sig, i + 4)
    return bytes(out)


def with_nul(data):
    """The zip with "ipynb#" in names made "ipynb<NUL>" (Python reads up to the NUL)."""
    return data.replace(b"ipynb#", b"ipynb\x00")


def planned(data, regexp=CANVAS, **limits):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = plan([("class.zip", zf)], named_regexp=regexp, notebooks=NOTEBOOKS,
                       **{**LIMITS, **limits})
    return {m.name: m.why for m in members}


def test_only_the_lms_top_level_names_are_taken():
    nested = zip_bytes([("bob_1_2_ps1.ipynb", b"{}")])
    why = planned(with_nul(zip_bytes([
        ("alice_10_20_ps1.ipynb", b"{}"),
        ("mallory_11_21_ps1.zip", nested),                      # a zip for bob inside
        ("mallory_11_21_ps1.ipynb", nested),                    # named as a notebook
        ("mallory_11_22_notes.ipynb", b"{}"),                   # not a notebook of ps1
        ("mallory_11_23_bob_1_2_ps1.ipynb", b"{}"),             # bob's name inside hers
        ("sub/bob_1_2_ps1.ipynb", b"{}"),
        ("../carol_3_4_ps1.ipynb", b"{}"),
        ("/carol_3_4_ps1.ipynb", b"{}"),
        ("C:\\carol_3_4_ps1.ipynb", b"{}"),
        ("dave_5_6_ps1.ipynb", b"/etc/passwd", stat.S_IFLNK | 0o777),
        ("eve_7_8_ps1\u200b.ipynb", b"{}"),                      # zero-width space
        ("frank_9_9_ps1\u202ebnpyi.ipynb", b"{}"),               # right-to-left
        ("gus_1_1_ps1.ipynb#.zip", b"{}"),                       # "#" becomes NUL
        ("gr\u00e9ta_12_13_ps1.ipynb", b"{}"),                   # plain Unicode: fine
        ("folder/", b""),
    ])))
    assert why == {
        "alice_10_20_ps1.ipynb": "",
        "mallory_11_21_ps1.zip": NESTED,
        "mallory_11_21_ps1.ipynb": NESTED,
        "mallory_11_22_notes.ipynb": NOT_PS1,
        "mallory_11_23_bob_1_2_ps1.ipynb": NOT_PS1,
        "sub/bob_1_2_ps1.ipynb":
            "inside a folder: not at the top level of the LMS's zip",
        "../carol_3_4_ps1.ipynb": "a name with '..'",
        "/carol_3_4_ps1.ipynb": ABSOLUTE,
        "C:\\carol_3_4_ps1.ipynb": ABSOLUTE,
        "dave_5_6_ps1.ipynb": "a symbolic link",
        "eve_7_8_ps1\\u200b.ipynb": ODD,
        "frank_9_9_ps1\\u202ebnpyi.ipynb": ODD,
        "gus_1_1_ps1.ipynb": ODD,
        "gr\u00e9ta_12_13_ps1.ipynb": "",
        "folder/": "a folder",
    }


def test_a_module_is_taken_by_a_name_import_can_use_and_beside_a_notebook():
    """A module is taken under any name ``import`` finds it by (``müller.py``, its
    letters composed or not), and only beside a notebook of the problem set from
    the same student: alone it would replace their earlier submission with a
    folder that cannot be graded."""
    why = planned(zip_bytes([
        ("emil_1_2_ps1.ipynb", b"{}"), ("emil_1_3_m\u00fcller.py", b"x = 1\n"),
        ("emil_1_4_mu\u0308ll.py", b"x = 1\n"),           # NFC: mull (u with umlaut)
        ("emil_1_5_\ufb01le.py", b"x = 1\n"),             # NFKC reads the ligature as "fi"
        ("emil_1_6_class.py", b"x = 1\n"), ("emil_1_7_2d.py", b"x = 1\n"),
        ("fay_3_4_helper.py", b"x = 1\n"),                 # no notebook of ps1
        ("fay_3_5_ps1_final.ipynb", b"{}"),                 # not ps1's notebook
    ]))
    cannot = "a module name Python cannot import: {!r} (an identifier: letters, " \
             "digits and _, not starting with a digit)"
    alone = "a Python module without a notebook of the problem set (ps1.ipynb) from fay: " \
            "not taken"
    assert why == {
        "emil_1_2_ps1.ipynb": "", "emil_1_3_m\u00fcller.py": "",
        "emil_1_4_mu\u0308ll.py": "",
        "emil_1_5_\ufb01le.py": cannot.format("\ufb01le.py"),
        "emil_1_6_class.py": cannot.format("class.py"),
        "emil_1_7_2d.py": cannot.format("2d.py"),
        "fay_3_4_helper.py": alone, "fay_3_5_ps1_final.ipynb": NOT_PS1}


def test_names_that_cannot_be_decoded_are_refused():
    data = without_utf8_flag(zip_bytes([("gr\u00e9ta_12_13_ps1.ipynb", b"{}"),
                                        ("hal_1_1_ps1.ipynb", b"{}")]))
    why = planned(data)
    assert why.pop("hal_1_1_ps1.ipynb") == ""
    assert list(why.values()) == [
        "a name not marked UTF-8 and not ASCII: it cannot be decoded reliably"]


def test_caps_on_size_and_number_are_read_from_the_directory():
    why = planned(bomb(), max_file_bytes=50 * 1024**2)
    assert why == {"zeros.ipynb": "does not follow the LMS's naming (named_regexp)"}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zeros_member(zf, "mallory_1_1_ps1.ipynb", 300 * 1024**2)
        zf.writestr("alice_2_2_ps1.ipynb", b"{}")
    assert planned(buf.getvalue(), max_file_bytes=50 * 1024**2) == {
        "mallory_1_1_ps1.ipynb":
            f"{300 * 1024**2} bytes unpacked: more than {50 * 1024**2}",
        "alice_2_2_ps1.ipynb": ""}
    # the caps on number and bytes are each student's: mallory's upload fails
    # mallory alone, whatever comes after it, and what is not a notebook of the
    # problem set does not count
    many = zip_bytes([("mallory_1_1_ps1.ipynb", b"{}")]
                     + [(f"mallory_1_1_notes-{i}.txt", b"x") for i in range(5)]
                     + [(f"mallory_1_{i}_ps1-{i}.ipynb", b"{}") for i in range(2, 4)]
                     + [(f"s{i}_1_1_ps1.ipynb", b"{}") for i in range(5)])
    why = planned(many, max_files=2)
    assert {n: w for n, w in why.items() if w == ""} == {
        f"s{i}_1_1_ps1.ipynb": "" for i in range(5)}
    over = ("3 files of mallory: more than the limit of 2 a student "
            "(LmsZipExtractor.max_files): none taken, collect it by hand")
    assert why["mallory_1_1_ps1.ipynb"] == why["mallory_1_3_ps1-3.ipynb"] == over
    assert why["mallory_1_1_notes-4.txt"] == "does not follow the LMS's naming (named_regexp)"
    big = zip_bytes([("mallory_1_1_ps1.ipynb", b"{}" * 3), ("alice_2_2_ps1.ipynb", b"{}"),
                     ("mallory_1_2_ps1-1.ipynb", b"{}" * 3)])
    assert planned(big, max_total_bytes=10) == {
        "mallory_1_1_ps1.ipynb": "mallory's files unpack to 12 bytes: more than the "
        "limit of 10 a student (LmsZipExtractor.max_total_bytes): none taken, collect "
        "it by hand",
        "alice_2_2_ps1.ipynb": "",
        "mallory_1_2_ps1-1.ipynb": "mallory's files unpack to 12 bytes: more than "
        "the limit of 10 a student (LmsZipExtractor.max_total_bytes): none taken, "
        "collect it by hand"}


def test_duplicates_by_timestamp_else_none_taken_and_never_fatal():
    plain = planned(zip_bytes([("carol_3_4_ps1.ipynb", b"{}"),
                               ("carol_3_5_ps1-1.ipynb", b"{}"),
                               ("alice_1_2_ps1.ipynb", b"{}")]))
    assert plain == {"alice_1_2_ps1.ipynb": "", "carol_3_4_ps1.ipynb": CAROL_TWICE,
                     "carol_3_5_ps1-1.ipynb": CAROL_TWICE}
    stamped = r"(?P<student_id>[^_]+)_(?P<timestamp>\d{8}T\d{6})_(?P<file_id>.+)\.ipynb"
    older, newer = "carol_20260101T120000_ps1.ipynb", "carol_20260102T090000_ps1.ipynb"
    why = planned(zip_bytes([(older, b"{}"), (newer, b"{}")]), regexp=stamped)
    assert why == {older: f"an older submission of ps1.ipynb (newest: {newer})",
                   newer: ""}


# -- the real `make zip_collect` ------------------------------------------------
@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lmszip")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=[PS], secret="lms-zip-secret", part_timeout=10)
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    c.nbgrader("db assignment add", PS)
    c.nbgrader("generate_assignment", PS)
    released, source = c.released(PS), c.source(PS)

    def text(nb):
        return nbformat.writes(nb).encode()

    solved = text(fill_answers(released, source))
    # dave's honest answer imports one of its functions from the helper.py he
    # uploads beside it, as he ran it in JupyterLab
    reference = fill_answers(released, source)
    part = "multinomial_map_answer"
    for cell in reference.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == part:
            helper = ("import itertools\nimport math\n\nimport numpy as np\n\n\n"
                      + cell.source)
            cell.source = "from helper import multinomial_feature_map\n"
    # erin's the same, from a module whose name is not ASCII
    erins = copy.deepcopy(reference)
    for cell in erins.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == part:
            cell.source = "from m\u00fcller import multinomial_feature_map\n"
    # bob's honest (blank) file comes first; mallory's upload tries to replace it
    with_bob = zip_bytes([("bob_1_2_ps1.ipynb", solved)])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("alice_10_20_ps1.ipynb", solved)
        zf.writestr("bob_30_40_ps1.ipynb", text(released))
        zf.writestr("mallory_50_60_ps1.ipynb", text(released))
        zf.writestr("mallory_50_61_ps1.zip", with_bob)
        zf.writestr("mallory_50_62_ps1-1.ipynb", with_bob)          # a zip named .ipynb
        zf.writestr("mallory_50_63_bob_1_2_ps1.ipynb", solved)
        zf.writestr("../bob_30_40_ps1.ipynb", solved)
        zeros_member(zf, "mallory_50_64_zeros.ipynb", 300 * 1024**2)
        zf.writestr("carol_70_80_ps1.ipynb", solved)                 # two files and
        zf.writestr("carol_70_81_ps1-1.ipynb", text(released))       # no timestamp
        zf.writestr("dave_90_91_ps1.ipynb", text(reference))
        zf.writestr("dave_90_92_helper.py", helper)
        zf.writestr("mallory_50_65_my-notes.py", "x = 1\n")       # not importable
        zf.writestr("erin_95_96_ps1.ipynb", text(erins))
        zf.writestr("erin_95_97_m\u00fcller.py", helper)
    upload = tmp / "submissions.zip"
    upload.write_bytes(buf.getvalue())
    assert upload.stat().st_size < 2 * 1024**2
    return c, _zip_collect(c, upload)


def _zip_collect(c, upload, *flags):
    return subprocess.run(["make", "zip_collect", f"PS={PS}", f"ZIP={upload}", "JOBS=1",
                           *flags], cwd=c.root, env=dict(os.environ, PYTHON=sys.executable),
                          capture_output=True, text=True, timeout=800)


def test_zip_collect_grades_honestly_and_lists_every_file(collected):
    course, proc = collected
    # everyone is graded; the members skipped make the run end non-zero
    assert proc.returncode != 0, proc.stderr[-3000:]
    assert "8 member(s) of the LMS's zip not taken" in proc.stderr
    scores = course.code_scores(PS)
    top = scores["alice"][1]
    assert scores["alice"][0] == top > 0
    assert scores["dave"][0] == top       # his helper.py taken beside his notebook
    assert scores["erin"][0] == top       # her m\u00fcller.py too
    assert scores["bob"][0] == 0          # the blank classmate keeps what he handed in
    assert scores["mallory"][0] == 0
    assert "carol" not in scores          # two files, no timestamp: none taken
    submitted = course.root / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == [
        "alice", "bob", "dave", "erin", "mallory"]
    for student in ("alice", "bob", "mallory"):
        files = sorted(p.name for p in (submitted / student / PS).iterdir())
        assert files == ["ps1.ipynb", "submission_time.json", "timestamp.txt"], student
    assert sorted(p.name for p in (submitted / "dave" / PS).iterdir()) == [
        "helper.py", "ps1.ipynb", "submission_time.json", "timestamp.txt"]
    # the table the run ends with: each member, taken or not, and why
    table = proc.stdout.rsplit("What was taken from", 1)[1]
    rows = {}
    for line in table.splitlines()[1:]:
        m = re.match(r"submissions\.zip\s+(\S+)\s+(\S*)\s+(\S*)\s+(yes|no)\s*(.*)$",
                     line)
        if m:
            rows[m.group(1)] = (m.group(4), m.group(5))
    assert rows == {
        "alice_10_20_ps1.ipynb": ("yes", ""),
        "bob_30_40_ps1.ipynb": ("yes", ""),
        "mallory_50_60_ps1.ipynb": ("yes", ""),
        "mallory_50_61_ps1.zip": ("no", NESTED),
        "mallory_50_62_ps1-1.ipynb": ("no", NESTED),
        "mallory_50_63_bob_1_2_ps1.ipynb": ("no", NOT_PS1),
        "../bob_30_40_ps1.ipynb": ("no", "a name with '..'"),
        "mallory_50_64_zeros.ipynb": ("no", NOT_PS1),
        "carol_70_80_ps1.ipynb": ("no", CAROL_TWICE),
        "carol_70_81_ps1-1.ipynb": ("no", CAROL_TWICE),
        "dave_90_91_ps1.ipynb": ("yes", ""),
        "dave_90_92_helper.py": ("yes", ""),
        "mallory_50_65_my-notes.py": ("no", "a module name Python cannot import: "
                                            "'my-notes.py' (an identifier: letters, "
                                            "digits and _, not starting with a digit)"),
        "erin_95_96_ps1.ipynb": ("yes", ""),
        "erin_95_97_m\u00fcller.py": ("yes", ""),
    }
    assert "7 file(s) taken, 8 skipped" in table
    # a later upload of a module alone is not taken: dave's graded hand-in stays
    kept = {p.name: p.read_bytes() for p in (submitted / "dave" / PS).iterdir()}
    alone = course.root / "module-alone.zip"
    alone.write_bytes(zip_bytes([("dave_90_93_helper.py", b"raise SystemExit\n")]))
    again = _zip_collect(course, alone, "NOGRADE=1")
    assert again.returncode != 0
    assert "a Python module without a notebook of the problem set (ps1.ipynb) from dave: " \
           "not taken" in again.stdout + again.stderr
    assert {p.name: p.read_bytes() for p in (submitted / "dave" / PS).iterdir()} == kept
    assert course.code_scores(PS)["dave"][0] == top
