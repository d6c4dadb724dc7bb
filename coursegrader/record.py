"""The record of a graded submission: what the judge found, written once, read by the rest.

The judge (:func:`coursegrader.judging.submission.judge_submission`) returns a
:class:`SubmissionResult`: each auto-graded part with its score and every case
it ran (inputs of a failing public case, the outcome), why a run stopped early
as a :class:`~coursegrader.runners.protocol.StopReason`, which of the
sandbox's limits were hit, the notebook's own run, and the time it all took.
At autograde it is written once, as JSON beside the autograded notebook
(``autograded/<student>/<ps>/<notebook>.result.json``, by nbgrader's own
writer: :func:`attach`), and everything after reads it: the gradebook's scores
(:class:`~coursegrader.preprocessors.save_recorded_grades.SaveRecordedGrades`,
and through them the exports), the grading log and the class report
(:mod:`coursegrader.tools.batch`, :mod:`coursegrader.tools.report`), the
feedback page (:class:`~coursegrader.preprocessors.title_graded_parts.TitleGradedParts`)
and the similarity check (:mod:`coursegrader.tools.similarity`, which compares
the cells the student wrote, as the record keeps them, and flags on its own a
submission whose parts ran code it did not hand in as source, as the parts'
runner reported it: :class:`UnsubmittedCode`).  Nothing reads a log or
a notebook to find these facts again.

What a student wrote (an exception's message, say) is data here: it is never
parsed for structure, and every page escapes it.
"""

import datetime
import enum
import json
import signal
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

from .runners.protocol import StopReason

__all__ = ["Limit", "Stop", "CaseResult", "PartResult", "KernelRunResult", "AnswerCode",
           "UnsubmittedCode", "SubmissionResult", "SUFFIX", "IGNORE", "ANSWER_BYTES", "path",
           "load", "attach", "attached",
           "limits_hit", "now"]

#: The record of notebook ``psN`` is ``psN`` + SUFFIX, beside the autograded notebook.
SUFFIX = ".result.json"
#: The pattern nbgrader must leave out when it copies a submission's files (the
#: record goes to no student: it names the hidden cases).
IGNORE = "*" + SUFFIX
#: At most this many bytes of what the student wrote are kept in a record.
ANSWER_BYTES = 512 * 1024
_RESOURCES_KEY = "coursegrader_result"
_VERSION = 1


class Limit(str, enum.Enum):
    """A limit of the sandbox that a run of student code ran into."""

    PART_SECONDS = "part_seconds"      # a part's wall-clock time
    CPU_SECONDS = "cpu_seconds"        # CPU time of one process
    FILE_BYTES = "file_bytes"          # size of a file written
    OUTPUT_BYTES = "output_bytes"      # bytes sent back to the grader
    CELL_SECONDS = "cell_seconds"      # the notebook's run: one cell's time
    RUN_SECONDS = "run_seconds"        # the notebook's run: the whole run's time


_LIMIT_OF = {StopReason.TIMEOUT: Limit.PART_SECONDS, StopReason.CPU_LIMIT: Limit.CPU_SECONDS,
             StopReason.FILE_LIMIT: Limit.FILE_BYTES, StopReason.OUTPUT_LIMIT: Limit.OUTPUT_BYTES,
             StopReason.CELL_TIMEOUT: Limit.CELL_SECONDS, StopReason.BUDGET: Limit.RUN_SECONDS}


@dataclass(frozen=True)
class Stop:
    """Why a run of student code stopped early.

    ``code``: the exit status of what ended (``-signal`` when killed);
    ``limit``: the limit it ran into (seconds, or bytes); ``cell``: for the
    notebook's run, the index in the notebook of the cell where it stopped;
    ``detail``: for a kernel that could not be run, the runner's account.
    """

    reason: StopReason
    code: Optional[int] = None
    limit: Optional[float] = None
    cell: Optional[int] = None
    detail: Optional[str] = None

    def describe(self, *, kernel=False):
        """The sentence a student and the instructor read (``kernel``: of the notebook's run)."""
        Reason = StopReason
        who = "the notebook's run" if kernel else "your code"
        process = "the process running " + ("the notebook" if kernel else "your code")
        reason, limit = self.reason, self.limit
        if reason is Reason.TIMEOUT:
            return f"{who} timed out after {limit:g} s"
        if reason is Reason.OUTPUT_LIMIT:
            return f"{who} sent back more than {int(limit) // 1024**2} MB"
        if reason is Reason.FILE_LIMIT:
            return (f"{process} was stopped for writing a file of more than "
                    f"{int(limit) // 1024**2} MB")
        if reason is Reason.CPU_LIMIT:
            return f"{process} used more than {limit:g} s of CPU"
        if reason is Reason.KILLED:
            try:
                name = signal.Signals(-self.code).name
            except (ValueError, TypeError):
                name = f"signal {-self.code}" if self.code is not None else "a signal"
            return f"{process} was killed ({name})"
        if reason is Reason.EXITED:
            return f"{process} exited with code {self.code}"
        if reason is Reason.VANISHED:
            return f"{process} stopped answering"
        if reason is Reason.TAMPERED:
            return (f"{process} tampered with the grader's channels (wrote into the "
                    "grader's input channel, or put another file in place of its answer "
                    "channel), which is not allowed; none of its answers counts")
        if reason is Reason.BUDGET:
            return (f"the notebook's run took more than {limit:g} s in all"
                    + ("; this cell and the ones below were not run"
                       if self.cell is not None else ""))
        if reason is Reason.CELL_TIMEOUT:
            return f"this cell did not finish within {limit:g} s"
        if reason is Reason.KERNEL_DIED:
            return "the kernel died while running this cell"
        if reason is Reason.NO_KERNEL:
            return f"the kernel could not run ({self.detail})"
        return f"{who} sent back something unreadable ({self.detail})"


@dataclass(frozen=True)
class CaseResult:
    """One case a part ran: its label, whether it is hidden, the outcome.

    ``inputs`` describes the arguments of a failing public case (a hidden
    case's are never kept); ``message`` says on one line why it failed;
    ``verdict``, for a public case of a part that gives verdicts
    (``Part.verdict``), the student's answer as a verdict (``"yes"``, ``"no"``
    or a short name: :func:`coursegrader.judging.verdicts.verdict_of`), which
    the similarity check compares.
    """

    label: str
    hidden: bool
    passed: bool
    inputs: Optional[str] = None
    message: Optional[str] = None
    verdict: Optional[str] = None


@dataclass(frozen=True)
class PartResult:
    """An auto-graded part: what it is, what it scored, the cases, why its run stopped.

    ``report`` is the text the student is shown under the test cell;
    ``variant``, for a part that varies, the label of the variant it was judged on.
    """

    part: str
    function: str
    description: str
    points: float
    score: float
    cases: tuple = ()
    stop: Optional[Stop] = None
    report: str = ""
    seconds: float = 0.0
    variant: Optional[str] = None


@dataclass(frozen=True)
class KernelRunResult:
    """The notebook's own run in a kernel (for the student's outputs)."""

    stop: Optional[Stop] = None
    seconds: float = 0.0


@dataclass(frozen=True)
class AnswerCode:
    """A cell the student wrote, as the judge read it: code that ran before the
    parts' tests, or a written answer.

    ``cell``: its grade id (None for a cell the student added; a module's path
    in the submission's folder); ``cell_type``: ``"code"``, ``"markdown"`` or
    ``"module"`` (a Python file handed in beside the notebook), ``"compiled"``
    (code handed in compiled: its source is empty) or ``"unread"`` (a module
    whose encoding only Python should read, or that does not decode: ``cell``
    is its path and why, its source empty); ``omitted``:
    bytes of its source not kept, beyond :data:`ANSWER_BYTES` for the whole
    notebook (and as much again for its modules).
    """

    cell: Optional[str]
    source: str
    cell_type: str = "code"
    omitted: int = 0


@dataclass(frozen=True)
class UnsubmittedCode:
    """Code a part's process ran that the submission did not hand in as source.

    The part's runner watches every compile, load of compiled code and code
    object built by hand (:mod:`coursegrader.runners.code_origin`) and reports,
    before it runs, each one whose text is not one of the submission's cells or
    modules (nor an installed module's own file): ``part`` is the part whose
    process ran it, ``how`` the event and where it came in (``"source text
    compiled (code.py: runsource)"``), whatever library ran it.
    """

    part: str
    how: str


@dataclass(frozen=True)
class SubmissionResult:
    """What the judge found in one submitted notebook.

    ``answers`` holds the cells the student wrote, in the notebook's order:
    every code cell that ran before the parts' tests other than the course's
    locked ones (answer cells and cells the student added), and every written
    answer (Markdown answer cells and Markdown cells the student added), up
    to :data:`ANSWER_BYTES` in all, then the Python modules handed in beside
    the notebook (up to as much again); the similarity check compares them (None
    in a record written before the judge kept them).  ``variant``
    is the label of the student's variant the parts were judged on (drawn
    from the student id the route established), None for a problem set
    without variants.  ``unsubmitted_code`` lists the code the parts' processes
    ran that the submission did not hand in as source (at most a few per part;
    empty for honest work): the similarity check flags such a submission on
    its own, since no comparison can read that code.
    """

    assignment: str
    student: str
    notebook: str
    parts: tuple = ()
    kernel_run: Optional[KernelRunResult] = None
    limits_hit: tuple = ()
    started: str = ""
    seconds: float = 0.0
    confinement: str = "bubblewrap"
    answers: Optional[tuple] = None
    variant: Optional[str] = None
    unsubmitted_code: tuple = ()

    @property
    def score(self):
        return round(sum(p.score for p in self.parts), 6)

    @property
    def points(self):
        return sum(p.points for p in self.parts)

    def part(self, part_id):
        """The :class:`PartResult` of ``part_id``, or None."""
        return next((p for p in self.parts if p.part == part_id), None)

    # -- as JSON ------------------------------------------------------------------
    def to_json(self):
        """A plain dict (JSON types only)."""
        data = json.loads(json.dumps(asdict(self), allow_nan=False))
        data["version"] = _VERSION
        return data

    def dumps(self):
        """The record as the JSON text written beside the notebook."""
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False)

    @classmethod
    def from_json(cls, data):
        """The record a dict from :meth:`to_json` describes; ValueError names what is wrong."""
        _need(type(data) is dict and data.get("version") == _VERSION, "a record",
              "a dict of version %d" % _VERSION)
        kernel = data.get("kernel_run")
        return cls(
            assignment=_text(data, "assignment"), student=_text(data, "student"),
            notebook=_text(data, "notebook"),
            parts=tuple(_part(p) for p in _list(data, "parts")),
            kernel_run=None if kernel is None else KernelRunResult(
                stop=_stop(_dict(kernel, "kernel_run").get("stop")),
                seconds=_number(kernel, "seconds")),
            limits_hit=tuple(_enum(Limit, v, "limits_hit") for v in _list(data, "limits_hit")),
            started=_text(data, "started"), seconds=_number(data, "seconds"),
            confinement=_text(data, "confinement"),
            answers=(None if data.get("answers") is None
                     else tuple(_answer(a) for a in _list(data, "answers"))),
            variant=_optional_text(data, "variant"),
            # a record written before the runner watched for it has none
            unsubmitted_code=tuple(_unsubmitted(u) for u in (
                _list(data, "unsubmitted_code") if "unsubmitted_code" in data else ())))

    @classmethod
    def loads(cls, text):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"a record: not JSON ({exc})") from None
        return cls.from_json(data)


# -- reading JSON back: every field checked ----------------------------------------
def _need(condition, where, expected):
    if not condition:
        raise ValueError(f"{where}: expected {expected}")


def _dict(data, where):
    _need(type(data) is dict, where, "an object")
    return data


def _list(data, key):
    _need(type(data.get(key)) is list, key, "a list")
    return data[key]


def _text(data, key):
    _need(type(data.get(key)) is str, key, "a string")
    return data[key]


def _optional_text(data, key):
    _need(data.get(key) is None or type(data.get(key)) is str, key, "a string or null")
    return data.get(key)


def _number(data, key):
    value = data.get(key)
    _need(type(value) in (int, float), key, "a number")
    return float(value)


def _optional_int(data, key):
    _need(data.get(key) is None or type(data.get(key)) is int, key, "a whole number or null")
    return data.get(key)


def _enum(kind, value, where):
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"{where}: {value!r} is not one of "
                         f"{[m.value for m in kind]}") from None


def _stop(data):
    if data is None:
        return None
    _dict(data, "stop")
    limit = data.get("limit")
    _need(limit is None or type(limit) in (int, float), "stop.limit", "a number or null")
    return Stop(reason=_enum(StopReason, data.get("reason"), "stop.reason"),
                code=_optional_int(data, "code"), limit=limit,
                cell=_optional_int(data, "cell"), detail=_optional_text(data, "detail"))


def _case(data):
    _dict(data, "case")
    _need(type(data.get("hidden")) is bool and type(data.get("passed")) is bool, "case",
          "booleans hidden and passed")
    return CaseResult(label=_text(data, "label"), hidden=data["hidden"],
                      passed=data["passed"], inputs=_optional_text(data, "inputs"),
                      message=_optional_text(data, "message"),
                      verdict=_optional_text(data, "verdict"))


def _part(data):
    _dict(data, "part")
    return PartResult(part=_text(data, "part"), function=_text(data, "function"),
                      description=_text(data, "description"),
                      points=_number(data, "points"), score=_number(data, "score"),
                      cases=tuple(_case(c) for c in _list(data, "cases")),
                      stop=_stop(data.get("stop")), report=_text(data, "report"),
                      seconds=_number(data, "seconds"),
                      variant=_optional_text(data, "variant"))


def _answer(data):
    _dict(data, "answer")
    # a record from before cell_type and omitted were kept holds answer code, whole
    cell_type, omitted = data.get("cell_type", "code"), data.get("omitted", 0)
    _need(cell_type in ("code", "markdown", "module", "compiled", "unread"),
          "answer.cell_type", '"code", "markdown", "module", "compiled" or "unread"')
    _need(type(omitted) is int and omitted >= 0, "answer.omitted", "a whole number >= 0")
    return AnswerCode(cell=_optional_text(data, "cell"), source=_text(data, "source"),
                      cell_type=cell_type, omitted=omitted)


def _unsubmitted(data):
    _dict(data, "unsubmitted_code")
    return UnsubmittedCode(part=_text(data, "part"), how=_text(data, "how"))


# -- where it is written and read ----------------------------------------------------
def path(folder, notebook):
    """The record of notebook ``notebook`` in the autograded folder ``folder``."""
    return Path(folder) / f"{notebook}{SUFFIX}"


def load(folder, notebook):
    """The :class:`SubmissionResult` written beside ``folder/<notebook>.ipynb``."""
    return SubmissionResult.loads(path(folder, notebook).read_text(encoding="utf-8"))


def attach(resources, result):
    """Hand ``result`` to the preprocessors after this one and to nbgrader's writer,
    which writes it beside the autograded notebook with the notebook itself."""
    resources[_RESOURCES_KEY] = result
    resources.setdefault("outputs", {})[f"{result.notebook}{SUFFIX}"] = \
        result.dumps().encode("utf-8")


def attached(resources):
    """The :class:`SubmissionResult` an earlier preprocessor attached, or None."""
    return resources.get(_RESOURCES_KEY)


def limits_hit(stops):
    """The limits that the stops ``stops`` (None for none) ran into, in order."""
    return tuple(sorted({_LIMIT_OF[s.reason] for s in stops
                         if s is not None and s.reason in _LIMIT_OF}, key=list(Limit).index))


def now():
    """The current time, in UTC, as a record writes it."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
