"""Submissions that try to get points they did not earn, graded in one autograde run.

Each student below hands in problem set 1 (10 auto-graded points) with one
trick; the test asserts the score nbgrader records. All of them are graded by
the same `nbgrader autograde ps1`, so a submission that could stop the grader
would also fail every other test here.
"""

import json
import os
import signal
from pathlib import Path

import nbformat
import numpy as np
import pytest

from coursecheck import CheckFailed, check
from coursecheck.check import run_cases
from coursegrader import landlock
from coursegrader.author import build_notebook
from coursegrader.course import Course
from coursegrader.spec import get_part, local_hidden_rng

COURSE = Path(__file__).resolve().parents[1] / "assignments"
PS1 = COURSE / "source" / "ps1" / "ps1.md"
TOTAL = 10.0
POINTS = {"quadratic_map": 2.0, "multinomial_map": 3.0, "kernel_verdicts": 2.0,
          "counterexample": 3.0}

# nbgrader's gradebook trips SQLAlchemy autoflush warnings; they are not ours to fix.
pytestmark = [pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

# -- answers ------------------------------------------------------------------

WRONG = {
    "quadratic_map_answer": "def quadratic_feature_map(X):\n    return np.zeros((len(X), 6))",
    "multinomial_map_answer": (
        "import math\n\ndef multinomial_feature_map(X, p):\n"
        "    return np.zeros((len(X), math.comb(X.shape[1] + p, p)))"),
    "kernel_verdicts_answer": "def is_kernel(name):\n    return 'yes'",
    "counterexample_answer": "def counterexample_points(name):\n    return None",
}

KERNLAB_MAP = """
def quadratic_feature_map(X):
    import kernlab
    return kernlab.PolynomialFeatures(degree=2, c=1.0).fit_transform(X)
"""

SKLEARN_MAP = """
def multinomial_feature_map(X, p):
    from sklearn.preprocessing import PolynomialFeatures
    features = PolynomialFeatures(degree=p)
    F = features.fit_transform(X)
    weights = [math.factorial(p) / (math.factorial(p - int(r.sum()))
               * math.prod(math.factorial(int(j)) for j in r)) for r in features.powers_]
    return F * np.sqrt(weights)
"""

MONKEYPATCH = """
import numpy as np
import kernlab, coursecheck, coursecheck.check, coursecheck.spec

np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)
np.array_equal = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
np.linalg.eigvalsh = lambda K, *a, **k: -np.ones(len(K))
kernlab.Polynomial.__call__ = lambda self, X, Y=None: np.zeros((len(X), len(X)))
kernlab.is_psd = lambda *a, **k: False
coursecheck.spec.judge_case = lambda *a, **k: None
coursecheck.check.judge_received = lambda *a, **k: None
coursecheck.check.check = lambda *a, **k: print("All checks passed.")
coursecheck.check = coursecheck.check.check
print(2.0)

def quadratic_feature_map(X):
    print(2.0)
    return np.zeros((len(X), 6))
"""

ALWAYS_EQUAL = """
class Anything:
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
    def __array__(self, *a, **k):
        return np.zeros((1, 2))

class AnyArray(np.ndarray):
    def __eq__(self, other):
        return np.ones(self.shape, dtype=bool)

class TrueInt(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def quadratic_feature_map(X):
    return np.zeros((len(X), 6)).view(AnyArray)

def multinomial_feature_map(X, p):
    return Anything()

def is_kernel(name):
    return TrueInt(1)

def counterexample_points(name):
    return [Anything()]
"""

NOISY = """
import sys, warnings
warnings.warn("a warning at import time")
print("noise on stderr", file=sys.stderr)
"""

LOOP = "def multinomial_feature_map(X, p):\n    while True:\n        pass"

KILL_KERNEL = """
import os, signal

def quadratic_feature_map(X):
    os.kill(os.getpid(), signal.SIGKILL)
"""

SIGNAL_GRADER = """
import os, signal

def is_kernel(name):
    os.kill(os.getppid(), signal.SIGUSR1)
    return name in {"D_diag", "exp_first", "cubic", "gauss", "lin_plus_one",
                    "cos_first", "min_abs_first", "norm_product"}
"""

READ_SOLUTIONS = """
import os

def quadratic_feature_map(X):
    # the instructor's Markdown source holds the solution: read it and run it
    for path in [os.path.join(os.getcwd(), "..", "..", "..", "source", "ps1", "ps1.md"),
                 SOURCE_PATH]:
        try:
            text = open(path).read()
            break
        except OSError as exc:
            error = exc
    else:
        raise error
    code = text[text.index("def quadratic_feature_map"):]
    code = code[:code.index("```")]
    namespace = {"np": np}
    exec(code, namespace)
    return namespace["quadratic_feature_map"](X)
""".replace("SOURCE_PATH", repr(str(PS1)))


# Tricks that reach around in-process guards: a new interpreter, a foreign
# function interface, the gradebook, the course secret, a flood of output,
# a helper process left behind by the notebook's kernel.
SPAWN_PYTHON = """
import multiprocessing, os, tempfile
import numpy as np

CHILD = '''
import sys, numpy as np, kernlab
X = np.load(sys.argv[1])
np.save(sys.argv[2], kernlab.PolynomialFeatures(degree=2, c=1.0).fit_transform(X))
'''

def quadratic_feature_map(X):
    # a fresh interpreter has no audit hook: let it import kernlab
    folder = tempfile.mkdtemp()
    src, dst = os.path.join(folder, "x.npy"), os.path.join(folder, "phi.npy")
    np.save(src, X)
    ctx = multiprocessing.get_context("spawn")
    p = ctx.Process(target=exec, args=("import sys; sys.argv = ['', %r, %r]; exec(%r)"
                                       % (src, dst, CHILD),))
    p.start()
    p.join()
    return np.load(dst)
"""

CFFI_EXEC = """
import os, sys, tempfile
import numpy as np

def multinomial_feature_map(X, p):
    import cffi
    ffi = cffi.FFI()
    ffi.cdef("int fork(void); int execv(const char *, char *const []);"
             "int waitpid(int, int *, int);")
    libc = ffi.dlopen(None)
    folder = tempfile.mkdtemp()
    src, dst = os.path.join(folder, "x.npy"), os.path.join(folder, "phi.npy")
    np.save(src, X)
    code = ("import numpy as np, kernlab; X = np.load(%r); "
            "np.save(%r, kernlab.PolynomialFeatures(degree=%d, c=1.0).fit_transform(X))"
            % (src, dst, p))
    args = [ffi.new("char[]", s.encode()) for s in (sys.executable, "-c", code)]
    pid = libc.fork()
    if pid == 0:
        libc.execv(args[0], ffi.new("char *[]", args + [ffi.NULL]))
        os._exit(1)
    libc.waitpid(pid, ffi.new("int *"), 0)
    return np.load(dst)
"""

GRADEBOOK = """
import os, sqlite3

def _raise_my_grades():
    # the gradebook sits three folders above the submission's folder
    db = sqlite3.connect(os.path.join(os.getcwd(), "..", "..", "..", "gradebook.db"))
    db.execute("UPDATE grade SET manual_score = 100")
    db.commit()
    db.close()

def is_kernel(name):
    _raise_my_grades()
    return "yes"
"""

SECRET_SEEKER = """
import glob, os

def _secret():
    found = set()
    if os.environ.get("COURSEGRADER_SECRET"):
        found.add(os.environ["COURSEGRADER_SECRET"])
    here = os.getcwd()
    paths = [os.path.join(here, *[".."] * up, ".grader_secret") for up in range(1, 6)]
    paths += glob.glob("/proc/[0-9]*/environ") + glob.glob("/proc/[0-9]*/cmdline")
    paths += [os.path.join(here, "stash.txt")]
    for path in paths:
        try:
            with open(path, "rb") as f:
                if b"robustness-test" in f.read():
                    found.add("robustness-test")
        except Exception:
            pass
    return found
"""

SECRET_KERNEL_CELL = SECRET_SEEKER + """
if _secret():
    with open("stash.txt", "w") as f:
        f.write("robustness-test")
"""

SECRET_ANSWER = SECRET_SEEKER + """
def is_kernel(name):
    # with the secret the hidden cases could be drawn and answered in advance;
    # here, having it is enough to earn the points
    if "robustness-test" not in _secret():
        return "no secret"
    return name in {"D_diag", "exp_first", "cubic", "gauss", "lin_plus_one",
                    "cos_first", "min_abs_first", "norm_product"}
"""

FLOOD = """
import os

def counterexample_points(name):
    block = b"x" * 2**20
    while True:
        for fd in range(3, 8):
            try:
                os.write(fd, block)
            except OSError:
                pass
"""

# A process that answers quadratic_map requests with kernlab, from the
# submission folder; the two helper cells below start it in different ways.
HELPER_SOURCE = """
import os, time
import numpy as np
import kernlab
os.setsid()
folder, stop = os.getcwd(), time.time() + 60
while time.time() < stop:
    for name in os.listdir(folder):
        if name.startswith("request-") and name.endswith(".npy"):
            X = np.load(os.path.join(folder, name))
            phi = kernlab.PolynomialFeatures(degree=2, c=1.0).fit_transform(X)
            try:
                np.save(os.path.join(folder, "answer" + name[7:]), phi)
            except OSError:
                pass
    time.sleep(0.02)
"""

HELPER_CELL = """
import multiprocessing

HELPER = """ + repr(HELPER_SOURCE) + """
# a helper process with kernlab, left running after the kernel is shut down
multiprocessing.get_context("spawn").Process(target=exec, args=(HELPER,)).start()
"""

HELPER_CLIENT = """
import os, time, uuid
import numpy as np

def quadratic_feature_map(X):
    key = uuid.uuid4().hex
    np.save(f"request-{key}.npy", X)
    stop = time.time() + 1.0
    while time.time() < stop:
        try:
            return np.load(f"answer-{key}.npy")
        except (OSError, ValueError):
            time.sleep(0.02)
    return np.zeros((len(X), 6))
"""


# Code that switches off the in-process audit hook by editing the globals of
# the hook's frame, reached through the traceback of a refused operation.
# Only the kernel's rules (Landlock) stand after that.
DISABLE_GUARD = """
import os

def _disable_guard():
    try:
        open("/proc/1/environ", "rb")
    except Exception as exc:
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        g = tb.tb_frame.f_globals
        g["_under"] = lambda path, roots: False
        for name in ("FORBIDDEN_MODULES", "ESCAPE_MODULES", "_ESCAPE_MODULES"):
            if name in g:
                g[name] = ()
        for name in ("_BLOCKED_EVENTS", "_BLOCKED", "_PATH_WRITE_EVENTS", "_WRITE_EVENTS",
                     "_PATH_EVENTS"):
            if name in g:
                g[name] = frozenset()
"""

UNGUARDED_IMPORT = DISABLE_GUARD + """
def quadratic_feature_map(X):
    _disable_guard()
    import kernlab
    return kernlab.PolynomialFeatures(degree=2, c=1.0).fit_transform(X)
"""

UNGUARDED_HELPER_CELL = DISABLE_GUARD + SECRET_SEEKER + """
import sys
_disable_guard()
if _secret():
    with open("stash.txt", "w") as f:  # the submission's folder, read by the sandbox
        f.write("robustness-test")
os.posix_spawn(sys.executable, [sys.executable, "-c", HELPER], os.environ)
""".replace("HELPER", repr(HELPER_SOURCE))


# With the hook switched off, replace the submission's notebook by a link to
# the instructor's source notebook, which nbgrader would then overwrite.
PLANT_SYMLINK = DISABLE_GUARD + """
def quadratic_feature_map(X):
    _disable_guard()
    for name in os.listdir("."):
        if name.endswith(".ipynb"):
            os.remove(name)
            os.symlink(os.path.join("..", "..", "..", "source", "ps1", "ps1.ipynb"), name)
    return np.zeros((len(X), 6))
"""


# -- students -------------------------------------------------------------------

def _reference_answers():
    nb = build_notebook(PS1)
    out = {}
    for cell in nb.cells:
        md = cell.metadata.get("nbgrader", {})
        if md.get("solution"):
            out[md["grade_id"]] = "\n".join(line for line in cell.source.split("\n")
                                            if "SOLUTION" not in line)
    return out


def _with_answers(released, answers):
    nb = nbformat.from_dict(json.loads(nbformat.writes(released)))
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell.source = answers[gid]
    return nb


def _cell(nb, gid):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == gid)


def _edit_tests(nb):
    for gid in ("kernel_verdicts", "counterexample"):
        cell = _cell(nb, gid)
        cell.source = 'print("All checks passed.")\n2'
        cell.metadata.nbgrader["points"] = 100
        cell.metadata.nbgrader["locked"] = False
    setup = _cell(nb, "setup")
    setup.source += "\n\ndef gram(name, P):\n    return -np.eye(len(P))\n"
    return nb


def _delete_tests(nb):
    nb.cells = [c for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id")
                not in ("kernel_verdicts", "counterexample")]
    return nb


def _student_cell_after(nb, gid, source):
    index = nb.cells.index(_cell(nb, gid))
    nb.cells.insert(index + 1, nbformat.v4.new_code_cell(source))
    return nb


def _test_cell_first(nb):
    """The test cell of part 1 moved above its answer cell."""
    answer, test = _cell(nb, "quadratic_map_answer"), _cell(nb, "quadratic_map")
    i, j = nb.cells.index(answer), nb.cells.index(test)
    nb.cells[i], nb.cells[j] = test, answer
    return nb


def _duplicate_test_cell(nb):
    """A second kernel_verdicts test cell at the end, printing full marks."""
    fake = nbformat.from_dict(json.loads(json.dumps(_cell(nb, "kernel_verdicts"))))
    fake["id"] = "fake-kernel-verdicts"
    fake.source = "print(2)\n2"
    fake.metadata.nbgrader["points"] = 100
    nb.cells.append(nbformat.v4.new_code_cell("def is_kernel(name):\n    return 'still wrong'"))
    nb.cells.append(fake)
    return nb


def _test_cell_as_answer(nb):
    """The counterexample test cell turned into an answer cell, checksum updated."""
    from nbgrader.utils import compute_checksum
    test = _cell(nb, "counterexample")
    test.source = "print(3)\n3"
    test.metadata.nbgrader.update(solution=True, grade=False, locked=False)
    test.metadata.nbgrader["checksum"] = compute_checksum(test)
    return nb


def _old_metadata(nb):
    """A cell with nbgrader metadata of an older schema (nbgrader would stop
    grading everyone on it)."""
    nb.cells.append(nbformat.v4.new_code_cell(
        "x = 1", metadata={"nbgrader": {"grade": False, "solution": True, "locked": False,
                                        "grade_id": "mine", "schema_version": 1}}))
    return nb


# Submissions nbgrader refuses outright (nothing graded, nothing recorded).
REFUSED = {"test_cell_as_answer": _test_cell_as_answer}


def _students():
    ref = _reference_answers()
    noisy_ref = {k: (NOISY + "\n" + v if k.endswith("_answer") else v) for k, v in ref.items()}
    students = {
        # name: (answers, notebook edit or None, expected {part: points})
        "honest": (ref, None, POINTS),
        "calls_libraries": ({**ref, "quadratic_map_answer": KERNLAB_MAP,
                             "multinomial_map_answer": "import math\n" + SKLEARN_MAP},
                            None, {**POINTS, "quadratic_map": 0, "multinomial_map": 0}),
        "monkeypatches": ({**WRONG, "quadratic_map_answer": MONKEYPATCH}, None,
                          dict.fromkeys(POINTS, 0)),
        "always_equal": ({**ref, **{k: ALWAYS_EQUAL if k == "quadratic_map_answer" else "pass"
                                    for k in WRONG}}, None, dict.fromkeys(POINTS, 0)),
        "edits_locked_cells": ({**ref, **{k: WRONG[k] for k in ("kernel_verdicts_answer",
                                                              "counterexample_answer")}},
                               _edit_tests, {**POINTS, "kernel_verdicts": 0, "counterexample": 0}),
        "deletes_test_cells": ({**ref, **{k: WRONG[k] for k in ("kernel_verdicts_answer",
                                                              "counterexample_answer")}},
                               _delete_tests, {**POINTS, "kernel_verdicts": 0,
                                               "counterexample": 0}),
        "infinite_loop": ({**ref, "multinomial_map_answer": LOOP}, None,
                          {**POINTS, "multinomial_map": 0}),
        "writes_stderr": (noisy_ref, lambda nb: _student_cell_after(nb, "setup", NOISY), POINTS),
        "kills_kernel": ({**ref, "quadratic_map_answer": KILL_KERNEL}, None,
                         {**POINTS, "quadratic_map": 0}),
        "signals_grader": ({**ref, "kernel_verdicts_answer": SIGNAL_GRADER}, None,
                           {**POINTS, "kernel_verdicts": 0}),
        "reads_solutions": ({**ref, "quadratic_map_answer": READ_SOLUTIONS}, None,
                            {**POINTS, "quadratic_map": 0}),
        "test_cell_first": (ref, _test_cell_first, {**POINTS, "quadratic_map": 0}),
        "duplicates_test_cell": ({**ref, "kernel_verdicts_answer": WRONG["kernel_verdicts_answer"]},
                                 _duplicate_test_cell, {**POINTS, "kernel_verdicts": 0}),
        "old_metadata": (ref, _old_metadata, POINTS),
        "spawns_python": ({**ref, "quadratic_map_answer": SPAWN_PYTHON,
                           "multinomial_map_answer": CFFI_EXEC}, None,
                          {**POINTS, "quadratic_map": 0, "multinomial_map": 0}),
        "tampers_gradebook": ({**ref, "kernel_verdicts_answer": GRADEBOOK},
                              lambda nb: _student_cell_after(
                                  nb, "setup", GRADEBOOK + "\n_raise_my_grades()"),
                              {**POINTS, "kernel_verdicts": 0}),
        "seeks_secret": ({**ref, "kernel_verdicts_answer": SECRET_ANSWER},
                         lambda nb: _student_cell_after(nb, "setup", SECRET_KERNEL_CELL),
                         {**POINTS, "kernel_verdicts": 0}),
        "floods_output": ({**ref, "counterexample_answer": FLOOD}, None,
                          {**POINTS, "counterexample": 0}),
        "leaves_helper": ({**ref, "quadratic_map_answer": HELPER_CLIENT},
                          lambda nb: _student_cell_after(nb, "setup", HELPER_CELL),
                          {**POINTS, "quadratic_map": 0}),
    }
    if landlock.available():  # without Landlock the audit hook is the only guard
        students.update({
            "disables_sandbox_guard": ({**ref, "quadratic_map_answer": UNGUARDED_IMPORT},
                                       None, {**POINTS, "quadratic_map": 0}),
            "disables_kernel_guard": (
                {**ref, "quadratic_map_answer": HELPER_CLIENT,
                 "kernel_verdicts_answer": SECRET_ANSWER},
                lambda nb: _student_cell_after(nb, "setup", UNGUARDED_HELPER_CELL),
                {**POINTS, "quadratic_map": 0, "kernel_verdicts": 0}),
            "plants_symlink": ({**ref, "quadratic_map_answer": PLANT_SYMLINK}, None,
                               {**POINTS, "quadratic_map": 0}),
        })
    return students


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("robust")
    course = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                            assignments=["ps1"], secret="robustness-test",
                            cell_timeout=15, part_timeout=8)
    course.nbgrader("db assignment add", "ps1")
    course.nbgrader("generate_assignment", "ps1")
    released = course.released("ps1")
    students = _students()
    for name, (answers, edit, _) in students.items():
        nb = _with_answers(released, answers)
        if edit is not None:
            nb = edit(nb)
        folder = course.root / "submitted" / name / "ps1"
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / "ps1.ipynb")
        (folder / "timestamp.txt").write_text("2026-01-10 12:00:00.000000 UTC")
    broken = course.root / "submitted" / "invalid_json" / "ps1"
    broken.mkdir(parents=True)
    (broken / "ps1.ipynb").write_text('{"cells": [ this is not JSON')
    for name, edit in REFUSED.items():
        folder = course.root / "submitted" / name / "ps1"
        folder.mkdir(parents=True)
        nbformat.write(edit(_with_answers(released, WRONG)), folder / "ps1.ipynb")
        (folder / "timestamp.txt").write_text("2026-01-10 12:00:00.000000 UTC")

    received = []
    previous = signal.signal(signal.SIGUSR1, lambda *a: received.append(a[0]))
    # The secret also in the environment (the grader prefers it to the file).
    saved = os.environ.get("COURSEGRADER_SECRET")
    os.environ["COURSEGRADER_SECRET"] = "robustness-test"
    try:
        status = course.nbgrader("autograde", "ps1", check=False)
    finally:
        signal.signal(signal.SIGUSR1, previous)
        if saved is None:
            del os.environ["COURSEGRADER_SECRET"]
        else:
            os.environ["COURSEGRADER_SECRET"] = saved
    return course, students, status, received


def test_expected_total_for_every_trick(graded):
    course, students, _, _ = graded
    scores = course.code_scores("ps1")
    got = {name: scores[name][0] for name in students}
    want = {name: sum(parts.values()) for name, (_, _, parts) in students.items()}
    assert got == want
    assert all(scores[name][1] == TOTAL for name in students)


@pytest.mark.parametrize("name", list(_students()))
def test_expected_points_per_part(graded, name):
    course, students, _, _ = graded
    cells = course.cell_scores("ps1")
    got = {part: cells[(name, part)] or 0.0 for part in POINTS}
    assert got == pytest.approx(students[name][2])


def test_invalid_json_gets_nothing_and_stops_no_one(graded):
    course, students, status, _ = graded
    assert status != 0  # nbgrader reports the broken submissions ...
    for name in ["invalid_json", *REFUSED]:
        assert not (course.root / "autograded" / name / "ps1").exists(), name
        assert course.code_scores("ps1").get(name, (0.0, TOTAL))[0] == 0, name
    for name in students:  # ... and grades everyone else
        assert (course.root / "autograded" / name / "ps1" / "ps1.ipynb").exists(), name


def test_nothing_outside_the_submission_was_written(graded):
    course = graded[0]
    assert course.source("ps1") == build_notebook(PS1)
    for name in graded[1]:
        notebook = course.root / "autograded" / name / "ps1" / "ps1.ipynb"
        assert notebook.is_file() and not notebook.is_symlink(), name
    for leftover in ("stash.txt", "gradebook.db"):
        assert not list((course.root / "autograded").rglob(leftover))


def test_grader_process_was_never_signalled(graded):
    assert graded[3] == []


def test_reports_say_what_went_wrong(graded):
    course = graded[0]

    def report(student, part):
        nb = course.notebook("autograded", student, "ps1", "ps1.ipynb")
        return "".join(o.get("text", "") for o in _cell(nb, part).outputs)

    assert "importing kernlab is not allowed" in report("calls_libraries", "quadratic_map")
    assert "importing sklearn.preprocessing is not allowed" in report("calls_libraries", "multinomial_map")
    assert "timed out" in report("infinite_loop", "multinomial_map")
    assert "killed" in report("kills_kernel", "quadratic_map")
    assert "unsupported type" in report("always_equal", "quadratic_map")
    assert "not allowed" in report("reads_solutions", "quadratic_map")
    assert "signalling other processes is not allowed" in report("signals_grader",
                                                                 "kernel_verdicts")
    assert "starting processes is not allowed" in report("spawns_python", "quadratic_map")
    assert "importing cffi is not allowed" in report("spawns_python", "multinomial_map")
    assert "sqlite3.connect is not allowed" in report("tampers_gradebook", "kernel_verdicts")
    assert "timed out" in report("floods_output", "counterexample")
    nb = course.notebook("autograded", "writes_stderr", "ps1", "ps1.ipynb")
    for part in POINTS:
        assert all(o.get("name") != "stderr" for o in _cell(nb, part).outputs)


def _all_cases_pass(part_id, func):
    part = get_part("ps1", part_id)
    cases = part.public() + part.hidden(local_hidden_rng("ps1", part_id))
    return [msg for _, _, msg in run_cases(part, [(c, False) for c in cases], func)] \
        == [None] * len(cases)


def test_shortcuts_would_pass_without_the_sandbox():
    # The calls to kernlab and scikit-learn compute the right answers: only
    # running them where those libraries cannot be imported stops them.
    import math
    ns = {"np": np, "math": math}
    exec(KERNLAB_MAP + SKLEARN_MAP, ns)
    assert _all_cases_pass("quadratic_map", ns["quadratic_feature_map"])
    assert _all_cases_pass("multinomial_map", ns["multinomial_feature_map"])
    # so does running the instructor's solution read from the course folder
    exec(READ_SOLUTIONS, ns)
    assert _all_cases_pass("quadratic_map", ns["quadratic_feature_map"])


def test_check_warns_about_shortcuts_in_the_graders_words(capsys):
    import math
    from coursecheck.policy import forbidden_import_message
    ns = {"np": np, "math": math}
    exec(KERNLAB_MAP + SKLEARN_MAP, ns)
    for part_id, func, module in [("quadratic_map", "quadratic_feature_map", "kernlab"),
                                  ("multinomial_map", "multinomial_feature_map", "sklearn")]:
        with pytest.raises(CheckFailed) as info:
            check("ps1", part_id, ns[func])
        assert forbidden_import_message(module) in str(info.value)
        assert f"WARNING {forbidden_import_message(module)}" in capsys.readouterr().out
    # a module imported at the top of the notebook and used inside the function
    import kernlab
    ns["kernlab"] = kernlab
    exec("def quadratic_feature_map(X):\n"
         "    return kernlab.PolynomialFeatures(degree=2, c=1.0).fit_transform(X)\n", ns)
    with pytest.raises(CheckFailed, match=forbidden_import_message("kernlab")):
        check("ps1", "quadratic_map", ns["quadratic_feature_map"])