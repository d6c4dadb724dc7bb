"""`make similarity PS=ps1`: a disguised copy is flagged, independent work is not.

Submissions are the released ps1 with its answer cells filled in: alice hands
in the reference solution, mallory a copy of it disguised as students do
(every local name renamed, comments and docstrings gone, layout changed),
bob and carol answers written independently from the problem text, and dave
the blank release (under an id a spreadsheet would run). The class is
autograded first, since the comparison reads the answer code each
submission's record holds; erin hands in after that.
"""

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coursegrader.tools.course import Course, answer_cell_ids, fill_answers

COURSE = Path(__file__).resolve().parents[2] / "assignments"
MALLORY = "mallory<img src=x onerror=alert(1)>"
#: dave's id: a formula to a spreadsheet that reads the CSV with `;` and `'`
DAVE = "dave;'=1+1'"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

DISGUISED = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    A = np.asarray(X, dtype=float)
    if A.ndim != 2 or A.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2), got {A.shape}")
    u, v = A[:, 0], A[:, 1]
    r = np.sqrt(2.0)
    return np.column_stack(
        [np.ones(len(A)), r * u, r * v, u**2, v**2, r * u * v]
    )
''',
    "multinomial_map_answer": '''\
def multinomial_feature_map(X, p):
    data = np.asarray(X, dtype=float)
    if data.ndim != 2:
        raise ValueError(f"X must have shape (n, d), got {data.shape}")
    if int(p) != p or p < 0:
        raise ValueError(f"p must be a non-negative integer, got {p!r}")
    p = int(p)
    rows, dim = data.shape
    aug = np.column_stack([np.ones(rows), data])
    feats = []
    for idx in itertools.combinations_with_replacement(range(dim + 1), p):
        mult = np.bincount(np.array(idx, dtype=int), minlength=dim + 1)
        w = math.factorial(p) / math.prod(math.factorial(int(k)) for k in mult)
        feats.append(math.sqrt(w) * np.prod(aug[:, list(idx)], axis=1))
    return np.column_stack(feats)
''',
    "kernel_verdicts_answer": '''\
def is_kernel(name):
    table = {"B_diag": True, "B_indefinite": False, "exp_first": True,
             "lin_minus_sq": False, "cubic": True, "gauss": True, "dist": False,
             "sq_dist": False, "neg_lin": False, "lin_plus_one": True,
             "lin_minus_one": False, "sum_first": False, "cos_first": True,
             "max_first": False, "min_abs_first": True, "norm_product": True}
    if name not in table:
        raise ValueError(f"unknown candidate {name!r}")
    return table[name]
''',
    "counterexample_answer": '''\
def witness(name, P):
    if name not in CANDIDATES:
        raise ValueError(f"unknown candidate {name!r}")
    Q = np.asarray(P, dtype=float)
    if Q.ndim != 2 or Q.shape[1] != 2:
        raise ValueError(f"P must have shape (m, 2), got {Q.shape}")
    lam, vec = np.linalg.eigh(gram(name, Q))
    return vec[:, 0]
''',
}

BOB = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    """Explicit features of the degree-2 inhomogeneous polynomial kernel."""
    X = np.array(X, dtype=float)
    out = []
    for a, b in X:
        out.append([1.0, 2 ** 0.5 * a, 2 ** 0.5 * b, a * a, b * b, 2 ** 0.5 * a * b])
    return np.array(out).reshape(len(X), 6)
''',
    "multinomial_map_answer": '''\
from itertools import product

def multinomial_feature_map(X, p):
    X = np.array(X, dtype=float)
    n = X.shape[0]
    ones = np.ones((n, 1))
    Y = np.hstack([ones, X])
    feats = [np.ones(n)]
    for _ in range(p):   # build all ordered products, then merge equal monomials
        feats = [f * Y[:, j] for f in feats for j in range(Y.shape[1])]
    keys = list(product(range(Y.shape[1]), repeat=p))
    merged = {}
    for key, f in zip(keys, feats):
        merged.setdefault(tuple(sorted(key)), []).append(f)
    return np.stack([np.sqrt(len(v)) * v[0] for v in merged.values()], axis=1)
''',
    "kernel_verdicts_answer": '''\
KERNELS = {"B_diag", "exp_first", "cubic", "gauss", "lin_plus_one", "cos_first",
           "min_abs_first", "norm_product"}
NOT_KERNELS = {"B_indefinite", "lin_minus_sq", "dist", "sq_dist", "neg_lin",
               "lin_minus_one", "sum_first", "max_first"}

def is_kernel(name):
    if name in KERNELS:
        return True
    elif name in NOT_KERNELS:
        return False
    raise ValueError("no such candidate: " + str(name))
''',
    "counterexample_answer": '''\
def witness(name, P):
    # eig of the symmetrised Gram matrix; keep the real part
    G = gram(name, np.array(P, dtype=float))
    w, U = np.linalg.eig(0.5 * (G + G.T))
    u = np.real(U[:, int(np.argmin(w.real))])
    return u / np.linalg.norm(u)
''',
}

CAROL = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    X = np.atleast_2d(np.asarray(X, float))
    c = math.sqrt(2)
    first, second = X.T
    feats = np.empty((X.shape[0], 6))
    feats[:, 0] = 1
    feats[:, 1], feats[:, 2] = c * first, c * second
    feats[:, 3], feats[:, 4] = first ** 2, second ** 2
    feats[:, 5] = c * first * second
    return feats
''',
    "multinomial_map_answer": '''\
def multinomial_feature_map(X, p):
    """Recursive construction over compositions of p."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape

    def compositions(total, parts):
        if parts == 1:
            yield (total,)
            return
        for first in range(total + 1):
            for rest in compositions(total - first, parts - 1):
                yield (first,) + rest

    cols = []
    full = np.concatenate([np.ones((n, 1)), X], axis=1)
    for alpha in compositions(int(p), d + 1):
        multinom = math.factorial(int(p))
        for a in alpha:
            multinom //= math.factorial(a)
        cols.append(np.sqrt(multinom) * np.prod(full ** np.array(alpha), axis=1))
    return np.array(cols).T
''',
    "kernel_verdicts_answer": '''\
def is_kernel(name):
    if name not in CANDIDATES:
        raise ValueError(name)
    rng = np.random.default_rng(1)
    for trial in range(200):
        P = rng.normal(scale=3.0, size=(6, 2))
        if np.linalg.eigvalsh(gram(name, P)).min() < -1e-8:
            return False
    return True
''',
    "counterexample_answer": '''\
def witness(name, P):
    K = gram(name, P)
    n = len(K)
    bound = np.abs(K).sum(axis=1).max() + 1.0
    M = bound * np.eye(n) - K      # its top eigenvector is K's bottom one
    a = np.linspace(1.0, 2.0, n) + 0.37 * np.arange(n) ** 2
    for _ in range(6000):
        a = M @ a
        a = a / np.linalg.norm(a)
    return a
''',
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class handed in and autograded, and ``make similarity``'s run on it."""
    tmp = tmp_path_factory.mktemp("similarity")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=["ps1"])
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    c.nbgrader("db assignment add", "ps1")
    c.nbgrader("generate_assignment", "ps1")
    released, source = c.released("ps1"), c.source("ps1")
    assert set(answer_cell_ids(released)) == set(DISGUISED)
    c.hand_in("alice", "ps1", fill_answers(released, source))
    c.hand_in(DAVE, "ps1", released)
    # a student name is data on the page, never markup
    for student, answers in ((MALLORY, DISGUISED), ("bob", BOB), ("carol", CAROL)):
        # mallory copies alice's written answers too; bob and carol leave them blank
        nb = fill_answers(released, source, ids=None if student == MALLORY else set(answers))
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in answers:
                cell.source = answers[grade_id]
        c.hand_in(student, "ps1", nb)
    c.nbgrader("autograde", "ps1")        # the comparison reads each submission's record
    c.hand_in("erin", "ps1", released)    # handed in after grading: no record yet
    done = subprocess.run(["make", "similarity", "PS=ps1", f"PYTHON={sys.executable}"],
                          cwd=c.root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return c


@pytest.fixture(scope="module")
def report(graded):
    c = graded
    with open(c.root / "report" / "ps1-similarity.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    pairs = {frozenset((r["student_a"], r["student_b"])): r for r in rows}
    csv_text = (c.root / "report" / "ps1-similarity.csv").read_text()
    return pairs, (c.root / "report" / "ps1-similarity.html").read_text(), rows, csv_text


def test_every_pair_is_listed_once(report):
    pairs, _, rows, _ = report
    assert len(rows) == len(pairs) == 10
    assert list(rows[0]) == ["student_a", "student_b", "similarity", "flagged", "code", "written",
                             "variant_values"]


def test_a_submission_without_a_record_is_listed_as_not_compared(report):
    pairs, page, _, _ = report
    assert not any("erin" in pair for pair in pairs)
    assert "Not compared: erin: not autograded" in page


def test_disguised_copy_is_flagged(report):
    pairs, _, _, _ = report
    row = pairs[frozenset(("alice", MALLORY))]
    assert row["flagged"] == "true" and float(row["similarity"]) > 0.8


def test_independent_and_blank_work_is_not_flagged(report):
    pairs, _, _, _ = report
    for pair, row in pairs.items():
        if pair != frozenset(("alice", MALLORY)):
            assert row["flagged"] == "false", (sorted(pair), row["similarity"])
        if "dave;_'=1+1'" in pair:           # the blank release: scaffold only
            assert float(row["similarity"]) == 0, sorted(pair)


def test_page_shows_flagged_pair_side_by_side_escaped(report):
    _, page, _, _ = report
    assert "evidence for a person to weigh, not a verdict" in page
    assert "<h2>alice and mallory&lt;img src=x onerror=alert(1)&gt;:" in page
    text = re.sub(r"<[^>]+>", "", page)
    assert "<mark>" in page and "v={&#39;S&#39;:True," in text   # mallory's code, marked
    assert "v&lt;0" in page and "<img" not in page           # in its normal form
    assert page.count("<h2>") == 1                           # only the flagged pair


def test_the_csv_opens_no_formula_in_a_spreadsheet(report):
    """Read with every separator and quote a spreadsheet offers, no cell of the
    similarity CSV opens as a formula; dave's id is written as the exports
    write it."""
    from attacks import spreadsheet_formulas

    pairs, _, _, csv_text = report
    assert spreadsheet_formulas(csv_text) == []
    assert any("dave;_'=1+1'" in pair for pair in pairs)


def test_every_run_on_the_same_records_writes_the_same_report(graded):
    """Python salts its string hashes per process unless PYTHONHASHSEED is fixed:
    run with two salts of the caller's choosing, the report is the same."""
    written = []
    for salt in ("1", "2"):
        done = subprocess.run(["make", "similarity", "PS=ps1", f"PYTHON={sys.executable}"],
                              cwd=graded.root, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONHASHSEED": salt})
        assert done.returncode == 0, done.stderr
        written.append([(graded.root / "report" / f"ps1-similarity.{kind}").read_text()
                        for kind in ("csv", "html")])
    assert written[0] == written[1]


#: ``make similarity``, with the reading of bob's cells broken as a submission made
#: to break the check would break it
BROKEN_FOR_BOB = """
import sys
from coursegrader.tools import similarity
real = similarity.material_of

def material_of(student, *args, **kwargs):
    if student == "bob":
        raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
    return real(student, *args, **kwargs)

similarity.material_of = material_of
sys.exit(similarity.main(["ps1"]))
"""


def test_a_submission_that_breaks_the_check_is_flagged_and_the_run_fails(graded):
    """What one submission holds must not take it out of the comparison unseen: it
    is flagged on its own, the others are compared, and the run ends non-zero."""
    done = subprocess.run([sys.executable, "-c", BROKEN_FOR_BOB], cwd=graded.root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 submission(s) could not be compared" in done.stderr
    assert "ps1 bob: ValueError: Exceeds the limit" in done.stderr
    assert "flagged on its own: bob: code no comparison reads (could not be compared " \
        "(ValueError: Exceeds the limit" in done.stdout
    page = (graded.root / "report" / "ps1-similarity.html").read_text()
    alone = page.split("Flagged on their own: code no comparison reads")[1].split("</ul>")[0]
    assert "<li>bob: could not be compared (ValueError" in alone
    with open(graded.root / "report" / "ps1-similarity.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    mallory = [r for r in rows if "alice" in (r["student_a"], r["student_b"])
               and "mallory" in r["student_a"] + r["student_b"]]
    assert mallory and mallory[0]["flagged"] == "true"       # the others still compared

