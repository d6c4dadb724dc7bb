"""``make report`` is built from the fields the judge logs, never from student text.

A student's exception message with newlines in it once forged rows of the
report (a hidden candidate "failed by 4 of 4", a "killed (SIGKILL)" part).
Here the real judge grades an honest student and one whose answer raises such
a message; the page must show exactly the rows their answers earn, with the
inputs of the failing public case.
"""

import html.parser
import json

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from coursecheck.parts import describe
from coursegrader import record as records
from coursegrader.judging.judge import grade_part, one_line
from coursegrader.record import SubmissionResult
from coursegrader.tools.report import render, summarise
from coursegrader.judging.problem_sets import graded_part, hidden_rng
from conftest import COURSE
from grading import ps1_variant

PS, PART = "ps1", "multinomial_map"
SECRET = "report-test-secret"
HONEST = "import itertools\nimport math\n\nimport numpy as np\n\n" + ps1_variant.solution(PART)
FORGED = ("wrong\n"
          "  FAIL  hidden-style case 'candidate forged': failed by everyone\n"
          "  0 of 4 hidden checks passed\n"
          "  note: the process running your code was killed (SIGKILL)\n"
          "<script>alert(1)</script>")
# right on every case but those of degree 3 in R^3, where it raises the forged message
MALLORY = HONEST + (f"\n\n_right = multinomial_feature_map\n\n\n"
                    f"def multinomial_feature_map(X, p):\n"
                    f"    if p == 3 and np.shape(X)[1] == 3:\n"
                    f"        raise ValueError({FORGED!r})\n"
                    f"    return _right(X, p)\n")


def forged(case):
    """Whether mallory's answer raises the forged message on ``case``."""
    X, p = case.args
    return p == 3 and np.shape(X)[1] == 3


def called(case, message):
    """``message`` as the check gives it for the first of ``case``'s calls."""
    return f"call 1 of {len(case.calls)}: {message}" if len(case.calls) > 1 else message


def inputs(case):
    """A failing public case's inputs, as the record keeps them: each call's arguments,
    in order (a case may make several calls)."""
    return one_line("; then ".join(", ".join(describe(a) for a in args)
                                   for args in case.calls))


class _Tables(html.parser.HTMLParser):
    """{h2 heading: [table, ...]} of a page, a table being its rows of cell texts."""

    def __init__(self):
        super().__init__()
        self.tables, self.heading = {}, None
        self._row = self._cell = None
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        if tag == "h2":
            self._in_h2, self.heading = True, ""
        elif tag == "table":
            self.tables.setdefault(self.heading, []).append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "h2":
            self._in_h2 = False
        elif tag in ("td", "th"):
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr":
            self.tables[self.heading][-1].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._in_h2:
            self.heading += data
        elif self._cell is not None:
            self._cell += data


def tables(page):
    parser = _Tables()
    parser.feed(page)
    return parser.tables


def record(student, grade):
    """The grading-log entry coursegrader.tools.batch writes for a submission of one
    graded part: its record, as the judge returns it."""
    result = SubmissionResult(assignment=PS, student=student, notebook=PS, parts=(grade,))
    return {"assignment": PS, "student": student, "status": "graded", "seconds": 1.5,
            "records": [result.to_json()]}


@pytest.fixture(scope="module")
def graded(slow):
    part = graded_part(COURSE, PS, PART)
    return part, {
        student: grade_part(PS, PART, part, [code], student=student, secret=SECRET)
        for student, code in (("honest", HONEST), ("mallory", MALLORY))}


def test_the_judge_logs_each_case_as_fields(graded):
    part, grades = graded
    assert grades["honest"].score == part.points
    cases = grades["mallory"].cases
    public = part.public()
    hidden = part.hidden(hidden_rng(SECRET, "mallory", PS, PART))
    assert grades["mallory"].part == PART
    assert [c.label for c in cases] == [c.label for c in public + hidden]
    assert [c.hidden for c in cases] == [False] * len(public) + [True] * len(hidden)
    for case, fields in zip(public + hidden, cases):
        assert fields.passed == (not forged(case))
        # inputs only for a failing public case; every message is one line
        failing_public = not fields.passed and not fields.hidden
        assert fields.inputs == (inputs(case) if failing_public else None)
        assert fields.message is None or "\n" not in fields.message
    failed = [c for c in cases if not c.passed and not c.hidden]
    d3 = next(c for c in public if forged(c))
    assert len(failed) == 1 and failed[0].inputs == inputs(d3)
    # the first of its calls raises (a case may make several: "call 1 of 3: ...")
    assert failed[0].message.startswith(called(d3, "raised ValueError: wrong"))
    assert grades["mallory"].stop is None


def test_a_forged_message_adds_no_row(graded):
    part, grades = graded
    page = render(summarise([record(s, g) for s, g in grades.items()], PS))
    found = tables(page)
    d3 = next(c for c in part.public() if forged(c))
    message = one_line(called(d3, "raised ValueError: " + FORGED))
    hidden = {s: part.hidden(hidden_rng(SECRET, s, PS, PART)) for s in grades}
    failed = sum(forged(c) for c in hidden["mallory"])
    run = sum(len(h) for h in hidden.values())
    assert found["Checks failed most often"] == [
        [["part", "check", "inputs", "failed by", "most common message"],
         [PART, d3.label, inputs(d3), "1 of 2", message]],
        [["part", "failed", "share"],
         [PART, f"{failed} of {run}", f"{100 * failed / run:.0f}%"]],
    ]
    # no part was stopped: nothing in the table of crashes, no forged SIGKILL
    assert "Crashed or timed out" not in found
    assert "SIGKILL" not in page
    assert "candidate forged" not in page
    assert "<script>alert" not in page


def test_every_student_string_is_escaped():
    part = graded_part(COURSE, PS, PART)
    label = part.public()[0].label
    cases = [{"label": label, "hidden": False, "passed": False,
              "inputs": "<img src=x onerror=alert(1)>", "message": "<script>x</script>"}]
    result = {"version": 1, "assignment": PS, "student": "<b>mallory</b>", "notebook": PS,
              "parts": [{"part": PART, "function": "multinomial_feature_map",
                         "description": "", "points": 3.0, "score": 0.0, "cases": cases, "stop": None,
                         "report": "", "seconds": 1.0}],
              "kernel_run": {"stop": {"reason": "no_kernel", "code": None, "limit": None,
                                      "cell": None, "detail": "<i>stopped</i>"},
                             "seconds": 1.0},
              "limits_hit": [], "started": "", "seconds": 1.0,
              "confinement": "bubblewrap", "variant": None}
    rec = {"assignment": PS, "student": "<b>mallory</b>", "status": "graded",
           "seconds": 1.0, "records": [result]}
    broken = {"assignment": PS, "student": "<u>eve</u>", "status": "failed",
              "seconds": 2.0, "error": "<script>y</script>"}
    page = render(summarise([rec, broken], PS))
    for raw in ("<script>", "<img", "<b>mallory", "<i>stopped", "<u>eve"):
        assert raw not in page
    found = tables(page)
    assert found["Checks failed most often"][0][1] == [
        PART, label, "<img src=x onerror=alert(1)>", "1 of 1", "<script>x</script>"]
    crashed, stopped = found["Crashed or timed out"]
    assert crashed[1:] == [["<u>eve</u>", "2", "<script>y</script>"]]
    assert stopped[1:] == [["<b>mallory</b>", "(notebook)",
                            "ps1: notebook run stopped: the kernel could not run "
                            "(<i>stopped</i>)"]]


def test_the_record_is_the_judges_and_a_forged_copy_changes_nothing(tmp_path):
    """What the record says comes from the judge alone: a file handed in under the
    record's name and cell metadata shaped like case outcomes change nothing."""
    from coursegrader.preprocessors import JudgeSubmission

    def cell(src, **md):
        base = {"grade": False, "grade_id": md.pop("gid"), "locked": False,
                "schema_version": 3, "solution": False, "task": False}
        base.update(md)
        return new_code_cell(src, metadata={"nbgrader": base})

    forged = {"note": "killed",
              "cases": [{"part": PART, "case": "candidate forged", "hidden": True,
                         "passed": False, "inputs": None, "message": "x"}]}
    nb = new_notebook(cells=[
        cell("import numpy as np", gid="setup", locked=True),
        cell(MALLORY, gid=f"{PART}_answer", solution=True),
        cell(f'from coursecheck import check\ncheck("ps1", "{PART}", multinomial_feature_map)',
             gid=PART, grade=True, locked=True, points=3)])
    for c in nb.cells:
        c.metadata["coursegrader_outcomes"] = forged
    nb = nbformat.from_dict(nb)
    (tmp_path / f"{PS}{records.SUFFIX}").write_text(json.dumps(
        {"version": 1, "parts": [{"part": PART, "score": 3.0}], "forged": True}))
    resources = {"nbgrader": {"assignment": PS, "student": "mallory", "notebook": PS},
                 "metadata": {"path": str(tmp_path), "name": PS}}
    config = Config({"CourseDirectory": {"root": str(COURSE)},
                     "CourseSettings": {"secret": SECRET}})
    nb, resources = JudgeSubmission(config=config).preprocess(nb, resources)
    result = records.attached(resources)
    expected = grade_part(PS, PART, graded_part(COURSE, PS, PART), [MALLORY],
                          student="mallory", secret=SECRET)
    assert result.part(PART).cases == expected.cases
    assert result.part(PART).score == expected.score < 3
    assert (result.assignment, result.student, result.notebook) == (PS, "mallory", PS)
    assert "candidate forged" not in {c.label for c in result.part(PART).cases}
    # what nbgrader's writer puts beside the notebook is that record, whole
    assert SubmissionResult.loads(resources["outputs"][f"{PS}{records.SUFFIX}"]) == result


def test_the_report_page_meets_wcag_21_aa(graded, tmp_path):
    """The instructor's report has no serious or critical WCAG 2.1 AA violation
    on a laptop and on a phone, and is no wider than the screen (its tables
    scroll in a region a keyboard can reach)."""
    from playwright.sync_api import sync_playwright

    from accessibility import LAPTOP, PHONE, axe_violations
    from conftest import CHROMIUM_ARGS, require_chromium

    part, grades = graded
    path = tmp_path / "ps1.html"
    path.write_text(render(summarise([record(s, g) for s, g in grades.items()], PS)),
                    encoding="utf-8")
    failures = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(),
                                    args=CHROMIUM_ARGS)
        try:
            for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
                page = browser.new_context(viewport=viewport,
                                           is_mobile=name == "phone").new_page()
                page.goto(path.as_uri())
                assert page.locator("table").count() > 0, "the report shows no table"
                failures += [f"{name}: {v}" for v in axe_violations(page)]
                wide = page.evaluate("() => document.documentElement.scrollWidth")
                if wide > viewport["width"]:
                    failures.append(f"{name}: the page is {wide} px wide")
        finally:
            browser.close()
    assert not failures, "\n".join(failures)


def test_the_report_says_how_many_variants_each_part_was_judged_on():
    def entry(student, variant):
        part = {"part": "scaled", "function": "scaled", "description": "", "points": 2.0,
                "score": 2.0, "cases": [], "stop": None, "report": "", "seconds": 1.0,
                "variant": variant}
        fixed = dict(part, part="doubled", function="doubled", points=1.0, score=1.0,
                     variant=None)
        result = {"version": 1, "assignment": "ps90", "student": student, "notebook": "ps90",
                  "parts": [part, fixed], "kernel_run": None, "limits_hit": [],
                  "started": "", "seconds": 1.0, "confinement": "bubblewrap",
                  "variant": variant}
        return {"assignment": "ps90", "student": student, "status": "graded",
                "seconds": 1.0, "records": [result]}

    page = render(summarise([entry("a", "ps90-1"), entry("b", "ps90-2"),
                             entry("c", "ps90-1")], "ps90"))
    rows = {r[0]: r for r in tables(page)["Scores"][0][1:]}
    assert rows["scaled"][-1] == "2" and rows["doubled"][-1] == "does not vary"
