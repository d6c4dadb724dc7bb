"""`make autograde` then `make similarity`: a submission that runs code it did not
hand in as source is flagged on its own, whatever library ran it; the course's
honest solutions of every problem set are not.

eve hides ada's answers (the reference solution of ps1) as hex text and runs
them through the standard library: ``code.InteractiveInterpreter`` in the
notebook's own namespace (the attack that once scored 10/10 unflagged, pair
similarity 0.00), ``timeit.Timer``, ``cProfile.runctx`` and ``doctest``.
No comparison can read the hex text; the part's runner sees the code compiled
and the record keeps it, or the static scan sees the runner called on text
that is not written out.
"""

import copy
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coursegrader import record
from coursegrader.tools.course import Course, fill_answers

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PROBLEM_SETS = ("ps1", "ps2", "ps3", "ps4", "ps5")
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

#: eve's way of running ada's answer cell ``{text}`` (an expression giving its text)
EVE = {
    "eve_code": ("import code as _c\n"
                 "_c.InteractiveInterpreter(locals()).runsource({text}, '<cell>', 'exec')\n"),
    "eve_timeit": ("import timeit\n"
                   "timeit.Timer({text} + '\\nglobals().update(locals())', "
                   "globals=globals()).timeit(1)\n"),
    "eve_cprofile": "import cProfile\ncProfile.runctx({text}, globals(), globals())\n",
    "eve_doctest": ("import doctest\n"
                    "doctest.run_docstring_examples('>>> exec(' + repr({text}) + ')', "
                    "globals())\n"),
    # the part's report switched off from inside the notebook first: the runner's
    # encoder, found by what its module holds, replaced by one that drops the
    # reports; then exec, looked up by a name built at run time
    "eve_patched": ("import sys\n"
                    "for _mod in list(sys.modules.values()):\n"
                    "    _d = getattr(_mod, '__dict__', {{}})\n"
                    "    if '_reporter' in _d and 'encode' in _d:\n"
                    "        _d['encode'] = (lambda _e: (lambda obj: b'' if "
                    "type(obj).__name__ == 'Ran' else _e(obj)))(_d['encode'])\n"
                    "import builtins\n"
                    "_run = vars(builtins)[''.join(reversed('cexe'))]\n"
                    "_run({text}, globals())\n"),
}
#: what the similarity check must name for each
NAMED = {
    "eve_code": ["ran code it did not hand in as source", "code.py: runsource",
                 "runsource of code that is not written out"],
    "eve_timeit": ["ran code it did not hand in as source", "timeit.py",
                   "Timer of code that is not written out"],
    "eve_cprofile": ["runctx of code that is not written out"],
    "eve_doctest": ["ran code it did not hand in as source", "doctest.py",
                    "run_docstring_examples of code that is not written out"],
    "eve_patched": ["ran code it did not hand in as source", "source text compiled"],
}


def _solution_code_ids(source):
    return {c.metadata["nbgrader"]["grade_id"] for c in source.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")}


def _hidden(reference, source, how):
    """``reference`` with each code answer cell run by ``how`` from hex text."""
    nb = copy.deepcopy(reference)
    ids = _solution_code_ids(source)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") in ids:
            text = f"bytes.fromhex('{cell.source.encode().hex()}').decode()"
            cell.source = how.format(text=text)
    return nb


def _said_of_each(stdout):
    """{problem set: what ``make similarity`` said of it}: each one's lines start
    with a line ``psN: K submissions, ...`` and end where the next one's start."""
    said, ps = {}, None
    for line in stdout.splitlines(keepends=True):
        head = re.match(r"(ps\d+): \d+ submissions, ", line)
        if head:
            ps = head[1]
            said[ps] = ""
        if ps is not None:
            said[ps] += line
    return said


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("unsubmitted_code")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=list(PROBLEM_SETS))
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    make = ["make", f"PYTHON={sys.executable}"]
    records = {}
    for ps in PROBLEM_SETS:
        c.nbgrader("db assignment add", ps)
        c.nbgrader("generate_assignment", ps)
        released, source = c.released(ps), c.source(ps)
        reference = fill_answers(released, source)
        c.hand_in("ada", ps, reference)
        if ps == "ps1":
            for eve, how in EVE.items():
                c.hand_in(eve, ps, _hidden(reference, source, how))
    # every problem set in one run, its submissions shared by the graders
    done = subprocess.run(make + [f"PS={' '.join(PROBLEM_SETS)}", "autograde"], cwd=c.root,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    # and one comparison run for them all, which says each one's findings in turn
    done = subprocess.run(make + [f"PS={' '.join(PROBLEM_SETS)}", "similarity"], cwd=c.root,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    said = _said_of_each(done.stdout)
    assert list(said) == list(PROBLEM_SETS), done.stdout
    for ps in PROBLEM_SETS:
        for folder in (c.root / "autograded").glob(f"*/{ps}"):
            records[(folder.parent.name, ps)] = record.load(folder, ps)
    return c, said, records


def test_the_honest_solutions_of_every_problem_set_run_nothing_unsubmitted(graded):
    _, said, records = graded
    for ps in PROBLEM_SETS:
        ada = records[("ada", ps)]
        assert ada.score == ada.points, (ps, ada.score, ada.points)
        assert ada.unsubmitted_code == (), (ps, ada.unsubmitted_code)
        assert "flagged on its own: ada" not in said[ps], said[ps]


@pytest.mark.parametrize("eve", sorted(EVE))
def test_code_run_from_hex_text_is_flagged_on_its_own_and_named(graded, eve):
    c, said, records = graded
    line = next((l for l in said["ps1"].splitlines()
                 if l.startswith(f"  flagged on its own: {eve}:")), None)
    assert line is not None, said["ps1"]
    for name in NAMED[eve]:
        assert name in line, (name, line)
    page = (c.root / "report" / "ps1-similarity.html").read_text()
    section = page.split("Flagged on their own")[1].split("</ul>")[0]
    assert re.search(rf"<li>{eve}: [^<]*</li>", section), section


def test_a_copy_that_switches_the_report_off_from_inside_is_reported_all_the_same(graded):
    """The runner's encoder rebound to drop the reports changes nothing the part
    reports: every part names the code compiled, and the copy (working code)
    keeps ada's marks, flagged for a person to read, as the other copies are."""
    _, _, records = graded
    eve, ada = records[("eve_patched", "ps1")], records[("ada", "ps1")]
    assert eve.score == ada.score == ada.points
    assert {u.part for u in eve.unsubmitted_code} == {p.part for p in eve.parts}
    assert all("source text compiled" in u.how for u in eve.unsubmitted_code), \
        eve.unsubmitted_code


def test_the_copy_through_the_interactive_interpreter_still_earns_adas_marks(graded):
    """The autograder cannot tell (working code is working code): the record says
    what ran, and the flag is what a person then looks at."""
    _, _, records = graded
    eve, ada = records[("eve_code", "ps1")], records[("ada", "ps1")]
    assert eve.score == ada.score == ada.points
    assert {u.part for u in eve.unsubmitted_code} == {p.part for p in eve.parts}
    assert all("code.py: runsource" in u.how for u in eve.unsubmitted_code)
