"""Which submissions to a problem set share answer code: copydetect's winnowing.

The answer code of a submission is the text of its answer cells (the code
cells with a solution in the source notebook), as its record holds it: the
judge keeps each answer cell's code in the submission's
:class:`~coursegrader.record.SubmissionResult`, so a problem set is compared
once it is autograded (``make autograde PS=ps1``); a submission without a
record is listed as not compared. Every name is reduced to its
kind and comments, docstrings and layout are dropped before fingerprinting
(copydetect), so renaming, deleting comments and reformatting do not hide a
copy. Fingerprints found in the released notebook (the scaffold of each
answer cell, the public examples and checks) are boilerplate and never count.

``make similarity PS=ps1`` writes ``report/ps1-similarity.csv``
(``student_a,student_b,similarity,flagged``; similarity is the larger of
the two shares of answer code found in the other submission) and
``report/ps1-similarity.html``, the flagged pairs side by side with the
matching passages marked. A high similarity is a reason for a person to
look, not a finding.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import itertools
import sys
from pathlib import Path

import jinja2
import nbformat
import numpy as np
from copydetect import CodeFingerprint, compare_files
from nbgrader.coursedir import CourseDirectory
from traitlets import Float, Integer
from traitlets.config import Configurable

from .. import record
from .deadlines import InputError, load_config

__all__ = ["SimilarityCheck", "Pair", "answer_code", "recorded_answers", "compare",
           "write_report", "main"]

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "similarity"


class SimilarityCheck(Configurable):
    """How much shared answer code flags a pair of submissions."""

    threshold = Float(
        0.6, min=0.0, max=1.0,
        help="A pair is flagged when at least this share of one submission's answer "
             "code (after boilerplate) is found in the other.").tag(config=True)
    noise = Integer(
        25, min=5,
        help="Matches shorter than this many characters of normalised code are "
             "ignored (copydetect's noise threshold).").tag(config=True)
    guarantee = Integer(
        30, min=5,
        help="Matches at least this long are always found (copydetect's guarantee "
             "threshold; at least noise).").tag(config=True)


@dataclasses.dataclass
class Pair:
    student_a: str
    student_b: str
    similarity: float
    flagged: bool
    code_a: str = ""
    code_b: str = ""
    slices_a: np.ndarray | None = None
    slices_b: np.ndarray | None = None


def _answer_ids(source: nbformat.NotebookNode) -> list[str]:
    return [c.metadata["nbgrader"]["grade_id"] for c in source.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]


def answer_code(result: record.SubmissionResult, ids: list[str]) -> str:
    """The answer cells a submission's record holds (by grade id), in the order of ``ids``."""
    cells = {a.cell: a.source for a in result.answers}
    return "\n\n".join(cells.get(i, "") for i in ids)


def recorded_answers(coursedir: CourseDirectory, ps: str,
                     ids: list[str]) -> tuple[dict[str, str], list[str]]:
    """The answer code of each submission to ``ps`` from its record ({student: code}),
    and the submissions not compared, each with why."""
    root = Path(coursedir.root)
    graded = root / coursedir.autograded_directory
    submitted = {nb.parent.parent.name for nb in
                 (root / coursedir.submitted_directory).glob(f"*/{ps}/{ps}.ipynb")}
    recorded = {r.parent.parent.name for r in graded.glob(f"*/{ps}/{ps}{record.SUFFIX}")}
    answers, skipped = {}, []
    for student in sorted(submitted | recorded):
        try:
            result = record.load(graded / student / ps, ps)
            if result.answers is None:
                skipped.append(f"{student}: graded before records kept the answer code "
                               f"(make autograde PS={ps} FORCE=1 grades it again)")
                continue
            answers[student] = answer_code(result, ids)
        except FileNotFoundError:
            skipped.append(f"{student}: not autograded, no record to compare "
                           f"(make autograde PS={ps} first)")
        except (OSError, ValueError) as exc:   # one bad record must not stop the others
            skipped.append(f"{student}: its record could not be read ({exc})")
    return answers, skipped


def _fingerprint(code: str, check: SimilarityCheck,
                 boilerplate=None) -> CodeFingerprint:
    win = max(1, check.guarantee - check.noise + 1)
    return CodeFingerprint("answers.py", check.noise, win, boilerplate=boilerplate,
                           fp=io.StringIO(code))


def compare(answers: dict[str, str], scaffold: str,
            check: SimilarityCheck) -> list[Pair]:
    """Every pair of ``answers`` (student -> code), best match first."""
    boiler = np.array(sorted(_fingerprint(scaffold, check).hashes), dtype=np.int64)
    prints = {s: _fingerprint(code, check, boiler) for s, code in answers.items()}
    pairs = []
    for a, b in itertools.combinations(sorted(answers), 2):
        overlap, (sim_a, sim_b), (sl_a, sl_b) = compare_files(prints[a], prints[b])
        sim = float(max(sim_a, sim_b)) if overlap else 0.0
        pairs.append(Pair(a, b, round(sim, 4), sim >= check.threshold and overlap > 0,
                          answers[a], answers[b], sl_a, sl_b))
    pairs.sort(key=lambda p: (-p.similarity, p.student_a, p.student_b))
    return pairs


def _segments(code: str, slices) -> list[tuple[str, bool]]:
    """``code`` cut into (text, part of a match) pieces."""
    out, at = [], 0
    if slices is not None and len(slices) and len(slices[0]):
        for start, end in sorted(zip(slices[0].tolist(), slices[1].tolist())):
            start, end = max(int(start), at), int(end)
            if start > at:
                out.append((code[at:start], False))
            if end > start:
                out.append((code[start:end], True))
                at = end
    out.append((code[at:], False))
    return [s for s in out if s[0]]


def write_report(ps: str, pairs: list[Pair], folder: Path, check: SimilarityCheck,
                 skipped: list[str]) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    table = folder / f"{ps}-similarity.csv"
    with open(table, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student_a", "student_b", "similarity", "flagged"])
        for p in pairs:
            w.writerow([p.student_a, p.student_b, f"{p.similarity:.4f}",
                        str(p.flagged).lower()])
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    flagged = [dict(a=p.student_a, b=p.student_b, similarity=p.similarity,
                    left=_segments(p.code_a, p.slices_a),
                    right=_segments(p.code_b, p.slices_b)) for p in pairs if p.flagged]
    page = folder / f"{ps}-similarity.html"
    page.write_text(env.get_template("report.html.j2").render(
        ps=ps, flagged=flagged, n_pairs=len(pairs), threshold=check.threshold,
        noise=check.noise, skipped=skipped), encoding="utf-8")
    return table, page


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.similarity",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("assignments", nargs="+")
    args = parser.parse_args(argv)
    try:
        config = load_config()
        check = SimilarityCheck(config=config)
        coursedir = CourseDirectory(config=config)
        root = Path(coursedir.root)
        for ps in args.assignments:
            source = root / coursedir.source_directory / ps / f"{ps}.ipynb"
            release = root / coursedir.release_directory / ps / f"{ps}.ipynb"
            if not source.is_file() or not release.is_file():
                raise InputError([f"{ps}: {source} or {release} is missing "
                                  f"(make generate PS={ps} first)"])
            ids = _answer_ids(nbformat.read(source, as_version=4))
            released = nbformat.read(release, as_version=4)
            scaffold = "\n\n".join(c.source for c in released.cells
                                   if c.cell_type == "code")
            answers, skipped = recorded_answers(coursedir, ps, ids)
            pairs = compare(answers, scaffold, check)
            table, page = write_report(ps, pairs, root / "report", check, skipped)
            n = sum(p.flagged for p in pairs)
            print(f"{ps}: {len(answers)} submissions, {len(pairs)} pairs, {n} flagged "
                  f"(threshold {check.threshold:.0%}): {table}, {page}")
            for line in skipped:
                print(f"  not compared: {line}", file=sys.stderr)
        return 0
    except InputError as exc:
        exc.report()
        return 2


if __name__ == "__main__":
    sys.exit(main())
