"""ps1 worked out by hand on one student's variant, as a classmate copies it, and
what such an answer earns on another student's variant.

The reference solution reads ``V`` and is right on every variant; a student who
works the parts that vary out by hand writes in their own variant's values
instead: the constant c as a number, the sixteen verdicts and the witnesses of
part 4 (on their own samples) as literal tables by name.  A copy of that
notebook is judged on the copier's variant; :func:`earned` says what each of
its answers scores there, from the problem definitions and the course secret,
as the grader judges it (public and hidden cases).
"""

import numpy as np

from coursecheck.check import call_and_judge
from coursecheck.variants import bind
from coursegrader.judging.problem_sets import graded_parts, hidden_rng
from coursegrader.judging.variants import submission_variant

__all__ = ["by_hand", "answer_function", "earned", "with_answers"]


def _scope(source, params):
    """The source notebook's names, with ``V`` = ``params``: its reference answers."""
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in source.cells}
    scope = {"print": lambda *a, **k: None}
    exec(cells["setup"], scope)
    scope["V"] = params
    exec(cells["candidates"], scope)
    for part_id in ("quadratic_map", "kernel_verdicts", "counterexample"):
        exec(cells[f"{part_id}_answer"], scope)
    return scope, cells


def by_hand(source, params):
    """ps1's answers to the parts that vary as a student works them out on the
    variant ``params`` (``source``: the source notebook, whose answers are the
    reference's): ({part: answer cell}, {candidate: verdict})."""
    scope, cells = _scope(source, params)
    verdicts = {s["name"]: bool(scope["is_kernel"](s["name"])) for s in params["candidates"]}
    witnesses = {name: scope["witness"](name, X).tolist()
                 for name, X in params["samples"].items()}
    quadratic = cells["quadratic_map_answer"]
    assert 'V["c"]' in quadratic
    return {
        "quadratic_map": quadratic.replace('V["c"]', repr(params["c"])),
        "kernel_verdicts": f"VERDICTS = {verdicts!r}\n\n\ndef is_kernel(name):\n"
                           "    return VERDICTS[name]\n",
        "counterexample": f"WITNESSES = {witnesses!r}\n\n\ndef witness(name, P):\n"
                          "    return np.array(WITNESSES[name])\n",
    }, verdicts


def answer_function(cell, func):
    """The function ``func`` an answer cell defines."""
    scope = {"np": np}
    exec(cell, scope)
    return scope[func]


def earned(root, secret, ps, student, part_id, answer):
    """The points ``answer`` (a function) earns on part ``part_id`` of ``student``'s
    variant, public and hidden cases, in the course at ``root`` whose secret is
    ``secret``."""
    part = bind(graded_parts(root, ps)[part_id],
                submission_variant(secret, ps, student).params)
    cases = part.public() + part.hidden(hidden_rng(secret, student, ps, part_id))
    passed = sum(call_and_judge(part, c, answer) is None for c in cases)
    return round(part.points * passed / len(cases), 2)


def with_answers(nb, cells):
    """``nb`` with the answer cells of the parts in ``cells`` ({part: source}) replaced."""
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid.endswith("_answer") and gid[:-len("_answer")] in cells:
            cell.source = cells[gid[:-len("_answer")]]
    return nb
