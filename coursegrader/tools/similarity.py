"""Which submissions to a problem set share what is graded: code and written answers.

``make similarity PS=ps1`` compares every pair of autograded submissions to
``ps1``. What is compared is what each submission's record holds
(:class:`~coursegrader.record.SubmissionResult`'s ``answers``: every cell the
student wrote, code or Markdown, the added ones too, and the Python modules
handed in beside the notebook), so a problem set is
compared once it is autograded; a submission without a record is listed as
not compared.  A submission whose latest hand-in failed to grade
(:func:`coursegrader.gradebook.grading_failures`) is compared as handed in,
read from ``submitted/`` (:mod:`coursegrader.similarity.handed_in`), never
from the record of an earlier submission, so that making one's latest
hand-in ungradable sheds no flag; it is named to the instructor (on the
terminal and on the page) as not graded and compared as handed in, or, where
even that cannot be read, as not compared and why.  A submission whose cells
break the check itself is flagged on its own, "could not be compared", and
``make similarity`` ends non-zero naming it, having compared the others. The code is compared in a normal form (:mod:`coursegrader.similarity.code`)
with copydetect's winnowing (the method of MOSS), the written answers as
runs of words (:mod:`coursegrader.similarity.text`); what the release holds
never counts, and each submission is read within bounds
(:class:`~coursegrader.similarity.material.SimilarityCheck`).

For a problem set with variants, the numbers each submission's cells hold as
written (:mod:`coursegrader.similarity.values`) are compared with the values of
each classmate's variant, drawn again from the course secret and the student
id as the judge drew them: a submission holding a classmate's value that is
not one of its own flags the pair, as do two submissions holding the same
value of a third's variant; and two students of different variants who hand
in the same verdicts (a part declared ``Part(verdict=True)``, as the record
keeps them) where their variants' right verdicts differ are flagged
(:mod:`coursegrader.similarity.verdicts`).

It writes ``report/ps1-similarity.csv`` (``student_a,student_b,similarity,
flagged,code,written,variant_values``; each share is the larger of the two
shares of one submission's material found in the other, similarity the
larger of code and written, and variant_values who holds whose value, as
what and where) and ``report/ps1-similarity.html``, the flagged pairs side
by side with the shared passages marked, the submissions flagged on their
own because they hold code no comparison reads (code their parts ran that
they did not hand in as source, whatever library ran it, as the record keeps
it; code built from data:
marshal, a code or function object built by hand, ``exec`` of decoded bytes;
code handed in compiled; a module or a cell in an encoding only Python should
read, such as UTF-7; modules the bounds left out),
and what the bounds cut. A high
similarity is a reason for a person to look, not a finding.
"""

import sys

#: Python salts ``hash()`` afresh in every process unless PYTHONHASHSEED is set.
#: The code's fingerprints no longer use it (:mod:`..similarity.fingerprints`:
#: copydetect's did, and the same submissions scored a few hundredths apart from
#: one run to the next); the command still runs with the salt fixed, so that
#: nothing else that goes through a set of strings can change what a run writes:
#: every run on the same records writes the same report.
if __name__ == "__main__":
    from coursegrader.settings import run_with_fixed_hash_seed
    run_with_fixed_hash_seed("coursegrader.tools.similarity")

import argparse
import itertools
from pathlib import Path

import nbformat
from nbgrader.coursedir import CourseDirectory

from coursecheck.parts import variant_key

from .. import record
from ..gradebook import grading_failures, open_gradebook
from ..judging.modules import MODULE, student_modules
from ..judging.problem_sets import graded_parts, hidden_module
from ..judging.variants import submission_variant
from ..judging.verdicts import known_verdicts, right_verdicts
from ..preprocessors.bound_submission import BoundSubmission
from ..preprocessors.judge_submission import JudgeSubmission
from ..secret import course_secret
from ..settings import CourseSettings
from ..similarity.compare import compare
from ..similarity.handed_in import NotGraded
from ..similarity.material import (SimilarityCheck, Scaffold, boilerplate, material_of,
                                   uncomparable)
from ..similarity.page import write_report
from ..similarity.values import (common_values, evidence, implied_by, other_variants_held,
                                 shared_evidence, space_answers, variant_values)
from ..similarity.verdicts import handed_in, verdict_evidence
from .command_input import InputError, load_config

__all__ = ["SimilarityCheck", "not_graded", "recorded_materials", "variant_evidence",
           "flag_tables", "compare_all", "main"]


def recorded_materials(coursedir, ps, scaffold, check, not_graded=None):
    """The :class:`~coursegrader.similarity.material.Material` of each submission
    to ``ps`` from its record, and the submissions not compared, each with why.

    ``not_graded``: a :class:`~coursegrader.similarity.handed_in.NotGraded` naming the submissions whose latest
    hand-in failed to grade; those are read as handed in, not from a record."""
    not_graded = not_graded or NotGraded({})
    root = Path(coursedir.root)
    graded = root / coursedir.autograded_directory
    submitted = {nb.parent.parent.name for nb in
                 (root / coursedir.submitted_directory).glob(f"*/{ps}/{ps}.ipynb")}
    recorded = {r.parent.parent.name for r in graded.glob(f"*/{ps}/{ps}{record.SUFFIX}")}
    boiler = boilerplate(scaffold, check)
    materials, skipped = [], []
    for student in sorted(submitted | recorded | set(not_graded.reasons)):
        if student in not_graded.reasons:
            material = not_graded.material(coursedir, ps, student, scaffold, check, boiler,
                                           skipped)
            if material is not None:
                materials.append(material)
            continue
        try:
            result = record.load(graded / student / ps, ps)
            if result.answers is None:
                skipped.append(f"{student}: graded before records kept the student's "
                               f"cells (make autograde PS={ps} FORCE=1 grades it again)")
                continue
        except FileNotFoundError:
            skipped.append(f"{student}: not autograded, no record to compare "
                           f"(make autograde PS={ps} first)")
            continue
        except (OSError, ValueError) as exc:   # one bad record must not stop the others
            skipped.append(f"{student}: its record could not be read ({exc})")
            continue
        try:
            materials.append(material_of(
                student, result.answers, scaffold, check, boiler,
                omitted=sum(a.omitted for a in result.answers if a.cell_type != MODULE),
                unsubmitted=result.unsubmitted_code, variant=result.variant,
                verdicts=handed_in(result.parts)))
        except Exception as exc:   # what one student wrote must not stop the others
            materials.append(uncomparable(student, exc, check, boiler))
    return materials, skipped


def not_graded(config, coursedir, ps):
    """The :class:`~coursegrader.similarity.handed_in.NotGraded` of ``ps``: the
    gradebook's failures, each student's
    variant drawn as the judge draws it (none without the course secret)."""
    with open_gradebook(config) as gb:
        reasons = grading_failures(gb, ps)
    settings = CourseSettings(config=config)
    secret_file = Path(JudgeSubmission(config=config).secret_file)
    secret = (course_secret(settings, secret_file)
              if reasons and (settings.secret or secret_file.is_file()) else None)

    def variant_of(student):
        if secret is None:
            return None
        try:
            drawn = submission_variant(secret, ps, student)
        except Exception:   # variant_evidence names what cannot be drawn
            return None
        return drawn.label if drawn is not None else None
    return NotGraded(reasons, variant_of, BoundSubmission(config=config).max_bytes)


def variant_evidence(coursedir, ps, materials, scaffold, check, config):
    """The :class:`~coursegrader.similarity.values.Evidence` of classmates' variant
    values among ``materials``' numbers, the
    :class:`~coursegrader.similarity.verdicts.VerdictEvidence` of students of
    different variants handing in the same verdicts where their variants' right
    ones differ, and the submissions whose variant could not be compared, each
    with why.

    Each student's variant is drawn again from the course secret and the student
    id, as the judge drew it; a record judged on another variant (the secret
    changed since) is not compared.  Without the course secret nothing is.
    """
    varied = [m for m in materials if m.variant is not None]
    if not varied:
        return [], [], []
    settings = CourseSettings(config=config)
    secret_file = Path(JudgeSubmission(config=config).secret_file)
    if not settings.secret and not secret_file.is_file():
        return [], [], [f"variants not compared: no course secret ({secret_file}) to draw "
                        "them from"]
    secret = course_secret(settings, secret_file)
    parts = graded_parts(coursedir.root, ps)
    implied = implied_by(parts,
                         getattr(hidden_module(coursedir.root, ps), "implied_values", None))
    values, rights, skipped, own, known = {}, {}, [], {}, {}
    for m in varied:
        try:
            drawn = submission_variant(secret, ps, m.student)
            if drawn is None or drawn.label != m.variant:
                skipped.append(f"{m.student}: its variant not compared (judged on "
                               f"{m.variant}, the course secret draws "
                               f"{drawn.label if drawn else 'none'})")
                continue
            values[m.student] = variant_values(m.student, drawn.params, implied)
            own[m.student] = variant_key(drawn.params)
            rights[m.student] = {pid: right_verdicts(part, drawn.params)
                                 for pid, part in parts.items() if part.verdict}
            known[m.student] = {pid: known_verdicts(part, drawn.params)
                                for pid, part in parts.items() if part.verdict}
        except Exception as exc:   # one student's variant must not stop the others
            skipped.append(f"{m.student}: its variant could not be drawn "
                           f"({type(exc).__name__}: {exc})")
    held = {m.student: m.numbers for m in varied if m.student in values}
    flag_tables(ps, [m for m in varied if m.student in own], own, implied, scaffold, check)
    found = evidence(held, values, released=scaffold.numbers,
                     common=common_values(ps, check.common_draws, check.common_share,
                                          implied),
                     common_share=check.common_share, common_min=check.common_min,
                     reads={m.student: m.reads for m in varied})
    verdicts = verdict_evidence({m.student: m.verdicts for m in varied}, rights,
                                least=check.verdict_min, share=check.verdict_share,
                                known=known)
    return found, verdicts, skipped


def flag_tables(ps, materials, own, implied, scaffold, check):
    """Flag on its own each of ``materials`` that holds the public answers of
    ``check.other_variants`` variants or more other than its own (``own``: {student:
    their variant's key}), when ``ps``'s variants are finitely many: a table of every
    variant's public answers, read off the student package, which honest work on
    one's own variant never holds."""
    answers = space_answers(ps, implied)
    if answers is None:
        return
    for m in materials:
        held = other_variants_held(m.numbers, own[m.student], answers,
                                   released=scaffold.numbers)
        if len(held) >= check.other_variants:
            shown = ", ".join(held[:3]) + (", ..." if len(held) > 3 else "")
            m.tables.append(f"holds the public answers of {len(held)} variants other than "
                           f"its own ({shown}), as a table of the course package's answers "
                           "does")


def compare_all(materials, check, variant_values=None):
    """Every pair of ``materials``, the most similar first; ``variant_values``:
    {frozenset of two students: why they share a variant's value}."""
    shared = variant_values or {}
    pairs = [compare(a, b, check,
                     variant_values=shared.get(frozenset((a.student, b.student)), ()))
             for a, b in itertools.combinations(materials, 2)]
    pairs.sort(key=lambda p: (-p.similarity, p.a.student, p.b.student))
    return pairs


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
        failures = []
        for ps in args.assignments:
            release = root / coursedir.release_directory / ps / f"{ps}.ipynb"
            if not release.is_file():
                raise InputError([f"{ps}: {release} is missing "
                                  f"(make generate PS={ps} first)"])
            modules = [m.source for m in student_modules(release.parent, record.ANSWER_BYTES)]
            scaffold = Scaffold.of(nbformat.read(release, as_version=4).cells, modules)
            failed = not_graded(config, coursedir, ps)
            materials, skipped = recorded_materials(coursedir, ps, scaffold, check, failed)
            found, verdicts, not_drawn = variant_evidence(coursedir, ps, materials, scaffold,
                                                          check, config)
            skipped += not_drawn
            shared = shared_evidence(found)
            for v in verdicts:
                shared.setdefault(frozenset((v.a, v.b)), []).append(v.describe())
            pairs = compare_all(materials, check, shared)
            table, page = write_report(ps, materials, pairs, root / "report", check, skipped,
                                       failed.compared)
            n = sum(p.flagged for p in pairs)
            print(f"{ps}: {len(materials)} submissions, {len(pairs)} pairs, {n} flagged "
                  f"(code {check.threshold:.0%}, written {check.written_threshold:.0%}, "
                  f"or a value of a classmate's variant): {table}, {page}")
            for e in found[:20]:
                print(f"  variant value: {e.describe()}")
            if len(found) > 20:
                print(f"  and {len(found) - 20} more values of a classmate's variant: {table}")
            for v in verdicts[:20]:
                print(f"  verdicts: {v.describe()}")
            if len(verdicts) > 20:
                print(f"  and {len(verdicts) - 20} more pairs of the same verdicts: {table}")
            for m in materials:
                if m.flags:
                    print(f"  flagged on its own: {m.student}: code no comparison reads "
                          f"({'; '.join(m.flags)})")
                for line in m.tables:
                    print(f"  flagged on its own: {m.student}: {line}")
                if m.mixed_scripts:
                    print(f"  flagged on its own: {m.student}: written answers with words "
                          f"that mix Latin and Cyrillic letters: {', '.join(m.mixed_scripts)}")
                if m.styled_markup:
                    print(f"  flagged on its own: {m.student}: written answers with HTML "
                          f"that may style or hide text: {', '.join(m.styled_markup)}")
            for student, why in failed.compared:
                print(f"  not graded, compared as handed in: {student}: its latest hand-in "
                      f"failed to grade ({why})")
            for line in skipped:
                print(f"  not compared: {line}", file=sys.stderr)
            failures += [f"{ps} {m.student}: {m.failed}" for m in materials if m.failed]
        if failures:
            print(f"{len(failures)} submission(s) could not be compared, each flagged on "
                  "its own: read them yourself", file=sys.stderr)
            for line in failures:
                print(f"  {line}", file=sys.stderr)
            return 1
        return 0
    except InputError as exc:
        exc.report()
        return 2


if __name__ == "__main__":
    sys.exit(main())
