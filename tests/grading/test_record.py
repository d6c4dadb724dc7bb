"""The record of a graded submission (coursegrader/record.py): written once, read back whole.

The judge returns a SubmissionResult; nbgrader's writer puts it beside the
autograded notebook as JSON, and the gradebook, the grading log, the report
and the feedback read it.  Its JSON must give back exactly the record, refuse
anything else by naming the field, and say why a run stopped in the words a
student reads, from enumerated reasons only.
"""

import ast
import json
import pathlib
import signal

import pytest

import coursegrader
from coursegrader import record
from coursegrader.record import (AnswerCode, CaseResult, KernelRunResult, Limit, PartResult,
                                 Stop, SubmissionResult, UnsubmittedCode)
from coursegrader.runners.protocol import StopReason

GRADER = pathlib.Path(coursegrader.__file__).parent


def _result(**change):
    parts = (
        PartResult(part="quadratic_map", function="quadratic_feature_map",
                   description="its inner products equal (1 + <x, t>)^2", points=2.0,
                   score=1.33,
                   cases=(CaseResult("4 points in R^2", False, True),
                          CaseResult("a line", False, False, inputs="array of shape (2, 2)",
                                     message="expected shape (2, 6), got (2, 5)"),
                          CaseResult("random 5 points in R^2", True, False,
                                     message="raised ValueError: <b>no</b> ...")),
                   stop=Stop(StopReason.TIMEOUT, limit=3.0),
                   report="quadratic_feature_map [quadratic_map]: 1 of 3 checks passed",
                   seconds=3.2),
        PartResult(part="kernel_verdicts", function="is_kernel", description="", points=2.0,
                   score=0.0, stop=Stop(StopReason.KILLED, code=-signal.SIGKILL)),
    )
    fields = dict(assignment="ps1", student="alice", notebook="ps1", parts=parts,
                  kernel_run=KernelRunResult(Stop(StopReason.CELL_TIMEOUT, limit=60, cell=4),
                                             seconds=12.5),
                  limits_hit=record.limits_hit([p.stop for p in parts]
                                               + [Stop(StopReason.CELL_TIMEOUT, limit=60)]),
                  started="2026-11-24T10:20:00+00:00", seconds=14.0, variant=None,
                  answers=(AnswerCode("quadratic_map_answer",
                                      "def quadratic_feature_map(X):\n    return X  # <b>\n"),
                           AnswerCode("kernel_verdicts_answer", "")),
                  unsubmitted_code=(UnsubmittedCode(
                      "quadratic_map", "source text compiled (code.py: runsource)"),))
    fields.update(change)
    return SubmissionResult(**fields)


def test_the_json_gives_back_exactly_the_record():
    result = _result()
    assert SubmissionResult.from_json(result.to_json()) == result
    assert SubmissionResult.loads(result.dumps()) == result
    assert SubmissionResult.loads(_result(variant="b").dumps()).variant == "b"
    data = json.loads(result.dumps())
    assert data["parts"][0]["stop"] == {"reason": "timeout", "code": None, "limit": 3.0,
                                        "cell": None, "detail": None}
    assert data["limits_hit"] == ["part_seconds", "cell_seconds"]
    assert result.score == 1.33 and result.points == 4.0
    assert result.part("kernel_verdicts").stop.code == -signal.SIGKILL
    assert result.part("nonexistent") is None
    assert data["answers"][0] == {"cell": "quadratic_map_answer",
                                  "source": "def quadratic_feature_map(X):\n    return X  # <b>\n",
                                  "cell_type": "code", "omitted": 0}


def test_a_record_from_before_the_answers_were_kept_reads_as_none_kept():
    data = _result().to_json()
    del data["answers"]
    assert SubmissionResult.from_json(data).answers is None
    assert SubmissionResult.loads(_result(answers=None).dumps()).answers is None


def test_code_run_without_being_handed_in_is_kept_and_read_back():
    data = _result().to_json()
    assert data["unsubmitted_code"] == [
        {"part": "quadratic_map", "how": "source text compiled (code.py: runsource)"}]
    del data["unsubmitted_code"]      # a record written before the runner watched
    assert SubmissionResult.from_json(data).unsubmitted_code == ()


def test_answers_recorded_before_their_type_was_kept_read_as_whole_code():
    data = _result().to_json()
    for answer in data["answers"]:
        del answer["cell_type"], answer["omitted"]
    assert SubmissionResult.from_json(data) == _result()


def test_it_is_written_once_beside_the_notebook_and_handed_on(tmp_path):
    result, resources = _result(), {}
    record.attach(resources, result)
    assert record.attached(resources) is result
    assert list(resources["outputs"]) == ["ps1" + record.SUFFIX]
    # as nbgrader's writer writes its outputs, into the autograded folder
    (tmp_path / "ps1.result.json").write_bytes(resources["outputs"]["ps1.result.json"])
    assert record.path(tmp_path, "ps1") == tmp_path / "ps1.result.json"
    assert record.load(tmp_path, "ps1") == result
    assert record.IGNORE == "*.result.json"


@pytest.mark.parametrize("change,field", [
    (lambda d: d.update(version=2), "a record"),
    (lambda d: d.pop("parts"), "parts"),
    (lambda d: d["parts"][0].update(score="2"), "score"),
    (lambda d: d["parts"][0]["stop"].update(reason="status 9"), "stop.reason"),
    (lambda d: d["parts"][0]["cases"][0].update(passed="yes"), "case"),
    (lambda d: d.update(limits_hit=["memory"]), "limits_hit"),
    (lambda d: d["kernel_run"].update(seconds=None), "seconds"),
    (lambda d: d.update(student=7), "student"),
    (lambda d: d["answers"][0].update(source=None), "source"),
    (lambda d: d.update(answers=["def f(): pass"]), "answer"),
    (lambda d: d["answers"][0].update(cell_type="raw"), "answer.cell_type"),
    (lambda d: d["answers"][0].update(omitted=-1), "answer.omitted"),
    (lambda d: d.update(unsubmitted_code="code.py"), "unsubmitted_code"),
    (lambda d: d.update(unsubmitted_code=[["p", "how"]]), "unsubmitted_code"),
    (lambda d: d["unsubmitted_code"][0].update(how=None), "how"),
])
def test_anything_else_is_refused_by_naming_the_field(change, field):
    data = _result().to_json()
    change(data)
    with pytest.raises(ValueError, match=field):
        SubmissionResult.from_json(data)
    with pytest.raises(ValueError, match="not JSON"):
        SubmissionResult.loads("{ not json")


@pytest.mark.parametrize("stop,kernel,words", [
    (Stop(StopReason.TIMEOUT, limit=2.0), False, "your code timed out after 2 s"),
    (Stop(StopReason.OUTPUT_LIMIT, limit=16 * 1024**2), False,
     "your code sent back more than 16 MB"),
    (Stop(StopReason.KILLED, code=-signal.SIGKILL), False,
     "the process running your code was killed (SIGKILL)"),
    (Stop(StopReason.EXITED, code=9), False,
     "the process running your code exited with code 9"),
    (Stop(StopReason.CPU_LIMIT, limit=120), False,
     "the process running your code used more than 120 s of CPU"),
    (Stop(StopReason.FILE_LIMIT, limit=64 * 1024**2), False,
     "the process running your code was stopped for writing a file of more than 64 MB"),
    (Stop(StopReason.TAMPERED), False,
     "the process running your code tampered with the grader's channels (wrote into the "
     "grader's input channel, or put another file in place of its answer channel), which "
     "is not allowed; none of its answers counts"),
    (Stop(StopReason.BUDGET, limit=600.0, cell=3), True,
     "the notebook's run took more than 600 s in all; this cell and the ones below were "
     "not run"),
    (Stop(StopReason.BUDGET, limit=600.0), True, "the notebook's run took more than 600 s "
                                                 "in all"),
    (Stop(StopReason.CELL_TIMEOUT, limit=60, cell=2), True,
     "this cell did not finish within 60 s"),
    (Stop(StopReason.KERNEL_DIED, cell=2), True, "the kernel died while running this cell"),
    (Stop(StopReason.OUTPUT_LIMIT, limit=16 * 1024**2), True,
     "the notebook's run sent back more than 16 MB"),
])
def test_a_stop_is_said_in_the_words_a_student_reads(stop, kernel, words):
    assert stop.describe(kernel=kernel) == words


def test_each_limit_hit_is_named_once_in_order():
    stops = [Stop(StopReason.BUDGET), None, Stop(StopReason.TIMEOUT), Stop(StopReason.EXITED),
             Stop(StopReason.TIMEOUT), Stop(StopReason.FILE_LIMIT)]
    assert record.limits_hit(stops) == (Limit.PART_SECONDS, Limit.FILE_BYTES,
                                        Limit.RUN_SECONDS)
    assert record.limits_hit([None, Stop(StopReason.KILLED)]) == ()


def _imports(path):
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", ["tools/report.py", "tools/batch.py",
                                    "preprocessors/save_recorded_grades.py",
                                    "preprocessors/title_graded_parts.py",
                                    "preprocessors/link_book_sections.py",
                                    "tools/section_summary.py"])
def test_the_readers_take_the_record_and_parse_no_log_or_notebook(module):
    """The report, the grading log, the gradebook's scores and the feedback's titles
    come from the record: none of them reads a notebook file, and the log and the
    report match no text (the feedback's titles are the headings of the problem
    set's own locked cells)."""
    imported = _imports(GRADER / module)
    assert "nbformat" not in imported, (module, imported)
    if module.startswith("tools/"):
        assert "re" not in imported, (module, imported)
    assert "record" in (GRADER / module).read_text(), module
