"""Write assignments/source/ps1/ps1.ipynb (the instructor's version, with solutions).

Run ``python assignments/tools/make_ps1.py`` after editing the cells below;
the notebook is committed without outputs.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OUT = Path(__file__).resolve().parents[1] / "source" / "ps1" / "ps1.ipynb"


def meta(grade_id, *, grade=False, solution=False, locked=False, points=None):
    md = {"grade": grade, "grade_id": grade_id, "locked": locked,
          "schema_version": 3, "solution": solution, "task": False}
    if grade:
        md["points"] = points
    return {"nbgrader": md}


def locked_md(grade_id, text):
    return new_markdown_cell(text.strip(), metadata=meta(grade_id, locked=True))


def locked_code(grade_id, text):
    return new_code_cell(text.strip(), metadata=meta(grade_id, locked=True))


def answer_code(grade_id, text):
    return new_code_cell(text.strip(), metadata=meta(grade_id, solution=True))


def test_code(part, func, what, points):
    src = f'''
"""Checks {func}: {what} ({points} points)."""
from coursegrader import check
check("ps1", "{part}", {func})
### BEGIN HIDDEN TESTS
check("ps1", "{part}", {func}, hidden=True)
### END HIDDEN TESTS
'''
    return new_code_cell(src.strip(), metadata=meta(part, grade=True, locked=True, points=points))


def written(grade_id, points, model_answer):
    text = "### BEGIN SOLUTION\n" + model_answer.strip() + "\n### END SOLUTION"
    return new_markdown_cell(text, metadata=meta(grade_id, grade=True, solution=True,
                                                 points=points))


TITLE = r"""
# Problem set 1: feature maps and kernel validity

| part | what you hand in | points |
| --- | --- | --- |
| 1 | `quadratic_feature_map(X)` | 2 |
| 2 | `multinomial_feature_map(X, p)` | 3 |
| 3 | `is_kernel(name)` | 2 |
| 4 | `counterexample_points(name)` | 3 |
| 5 | written: which candidates are kernels, and why | 4 |
| 6 | written: two closure rules | 2 |
| | total | 16 |

**How to work.** Write code only in the answer cells (replace the line
`raise NotImplementedError()`), and answers in the cells that say
"YOUR ANSWER HERE". After each answer cell comes a check cell: run it, and it
prints one line per test case, saying which input failed and what was expected
against what your function returned. Before submitting, restart the kernel,
run all cells, and run `nbgrader validate ps1.ipynb` in a terminal.

**Rules for graded functions.** Implement them with NumPy and the standard
library only. The grader calls your functions in a separate process where
`kernlab` and `scikit-learn` cannot be imported, so a graded function that uses
them scores zero; you may use them elsewhere in the notebook to explore. The
grade also uses hidden test cases that the check cells do not show, drawn at
random for each student, so make your functions correct in general rather than
on the public cases.
"""

SETUP = r'''
import itertools
import math

import numpy as np

# The candidate functions of part 3 and 4: k(x, t) for two points x, t of R^2
# (1-D arrays of length 2).
_D_DIAG = np.array([[1.0, 0.0], [0.0, 5.0]])
_D_INDEF = np.array([[-1.0, 2.0], [2.0, 4.0]])

CANDIDATES = {
    "D_diag": lambda x, t: float(x @ _D_DIAG @ t),
    "D_indefinite": lambda x, t: float(x @ _D_INDEF @ t),
    "exp_first": lambda x, t: float(np.exp(x[0] * t[0])),
    "lin_minus_sq": lambda x, t: float(x @ t - (x @ t) ** 2),
    "cubic": lambda x, t: float((x @ t) ** 3),
    "gauss": lambda x, t: float(np.exp(-np.sum((x - t) ** 2))),
    "dist": lambda x, t: float(np.sqrt(np.sum((x - t) ** 2))),
    "sq_dist": lambda x, t: float(np.sum((x - t) ** 2)),
    "neg_lin": lambda x, t: float(-(x @ t)),
    "lin_plus_one": lambda x, t: float(x @ t + 1.0),
    "lin_minus_one": lambda x, t: float(x @ t - 1.0),
    "sum_first": lambda x, t: float(x[0] + t[0]),
    "cos_first": lambda x, t: float(np.cos(x[0] - t[0])),
    "max_first": lambda x, t: float(max(x[0], t[0])),
    "min_abs_first": lambda x, t: float(min(abs(x[0]), abs(t[0]))),
    "norm_product": lambda x, t: float(np.linalg.norm(x) * np.linalg.norm(t)),
}


def gram(name, P):
    """Gram matrix [k(p_i, p_j)] of candidate `name` on the rows of P (shape (m, 2))."""
    k = CANDIDATES[name]
    P = np.asarray(P, dtype=float)
    return np.array([[k(p, q) for q in P] for p in P])
'''

PART1 = r"""
## Part 1: the feature map of $(1 + \langle x, t\rangle)^2$ on $\mathbb{R}^2$ (2 points)

The inhomogeneous polynomial kernel of degree 2 on $\mathbb{R}^2$ is
$K(x, t) = (1 + \langle x, t\rangle)^2$. Expand the square and find a map
$\phi:\mathbb{R}^2\to\mathbb{R}^6$ with $K(x, t) = \langle \phi(x), \phi(t)\rangle$
for all $x, t$.

Write `quadratic_feature_map(X)`: `X` has shape `(n, 2)`, one point per row;
return the array of shape `(n, 6)` whose row $i$ is $\phi(x_i)$. The order of
the six coordinates is yours to choose: the check compares inner products of
rows with the kernel, not the entries themselves.
"""

ANSWER1 = r'''
def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(t)> = (1 + <x, t>)^2, for X of shape (n, 2)."""
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2), got {X.shape}")
    x1, x2 = X[:, 0], X[:, 1]
    s = np.sqrt(2.0)
    # (1 + a)^2 = 1 + 2a + a^2 with a = x1 t1 + x2 t2, and
    # a^2 = (x1 t1)^2 + (x2 t2)^2 + 2 (x1 x2)(t1 t2).
    return np.column_stack([np.ones(len(X)), s * x1, s * x2, x1**2, x2**2, s * x1 * x2])
    ### END SOLUTION
'''

PART2 = r"""
## Part 2: the general multinomial map (3 points)

For $x\in\mathbb{R}^d$ write $z = (1, x_1, \dots, x_d)\in\mathbb{R}^{d+1}$, so that
$1 + \langle x, t\rangle = \langle z, z'\rangle$ where $z'$ is built from $t$ the
same way. By the multinomial theorem,

$$
(1 + \langle x, t\rangle)^p = \sum_{j_0 + j_1 + \dots + j_d = p}
\frac{p!}{j_0!\, j_1! \cdots j_d!}\; \prod_{i=0}^{d} (z_i z'_i)^{j_i},
$$

a sum over all multi-indices $(j_0, \dots, j_d)$ of non-negative integers adding
up to $p$. There are $\binom{d+p}{p}$ of them. Each gives one coordinate of a
feature map: $\phi_j(x) = \sqrt{p!/(j_0!\cdots j_d!)}\;\prod_{i=1}^{d} x_i^{j_i}$
(the factor $z_0^{j_0} = 1$). The exponent $j_0$ of the constant coordinate is
what makes the lower-degree monomials appear with the right weights: a monomial
of total degree $p' = p - j_0$ carries $\binom{p}{p'}$ times its multinomial
coefficient $p'!/(j_1!\cdots j_d!)$.

Write `multinomial_feature_map(X, p)`: `X` has shape `(n, d)`, `p` is a
positive integer; return the array of shape `(n, C(d+p, p))` of feature vectors,
in any order of coordinates. `itertools.combinations_with_replacement` and
`math.factorial` are useful.
"""

ANSWER2 = r'''
def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(t)> = (1 + <x, t>)^p, for X of shape (n, d)."""
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must have shape (n, d), got {X.shape}")
    if int(p) != p or p < 0:
        raise ValueError(f"p must be a non-negative integer, got {p!r}")
    p = int(p)
    n, d = X.shape
    Z = np.column_stack([np.ones(n), X])  # coordinate 0 is the constant 1
    columns = []
    # A multiset of p indices from {0, ..., d} is a multi-index (j_0, ..., j_d).
    for combo in itertools.combinations_with_replacement(range(d + 1), p):
        counts = np.bincount(np.array(combo, dtype=int), minlength=d + 1)
        coef = math.factorial(p) / math.prod(math.factorial(int(c)) for c in counts)
        columns.append(math.sqrt(coef) * np.prod(Z[:, list(combo)], axis=1))
    return np.column_stack(columns)
    ### END SOLUTION
'''

PART3 = r"""
## Part 3: which candidates are kernels? (2 points)

The setup cell defines sixteen functions $K:\mathbb{R}^2\times\mathbb{R}^2\to\mathbb{R}$
in the dictionary `CANDIDATES` (and `gram(name, P)` builds a Gram matrix):

| name | $K(x, t)$ | name | $K(x, t)$ |
| --- | --- | --- | --- |
| `D_diag` | $x^\top D_1 t$, $D_1 = \begin{bmatrix}1 & 0\\ 0 & 5\end{bmatrix}$ | `lin_plus_one` | $x^\top t + 1$ |
| `D_indefinite` | $x^\top D_2 t$, $D_2 = \begin{bmatrix}-1 & 2\\ 2 & 4\end{bmatrix}$ | `lin_minus_one` | $x^\top t - 1$ |
| `exp_first` | $\exp(x_1 t_1)$ | `sum_first` | $x_1 + t_1$ |
| `lin_minus_sq` | $x^\top t - (x^\top t)^2$ | `cos_first` | $\cos(x_1 - t_1)$ |
| `cubic` | $(x^\top t)^3$ | `max_first` | $\max(x_1, t_1)$ |
| `gauss` | $\exp(-\lVert x - t\rVert^2)$ | `min_abs_first` | $\min(\lvert x_1\rvert, \lvert t_1\rvert)$ |
| `dist` | $\lVert x - t\rVert$ | `norm_product` | $\lVert x\rVert\,\lVert t\rVert$ |
| `sq_dist` | $\lVert x - t\rVert^2$ | `neg_lin` | $-x^\top t$ |

A function is a (positive semi-definite) kernel when every Gram matrix it
builds, on any finite set of points, is symmetric positive semi-definite;
equivalently, when it is an inner product of feature vectors.

Write `is_kernel(name)` returning `True` if candidate `name` is a kernel and
`False` if it is not. Decide each case by an argument (part 5 asks you to
write them down): a Gram matrix that looks PSD on random points proves nothing.
"""

ANSWER3 = r'''
def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    ### BEGIN SOLUTION
    verdicts = {
        "D_diag": True,          # D_1 is PSD: phi(x) = (x1, sqrt(5) x2)
        "D_indefinite": False,   # D_2 has eigenvalue (3 - sqrt(41))/2 < 0; K(e1, e1) = -1
        "exp_first": True,       # exp of the kernel x1 t1
        "lin_minus_sq": False,   # K(x, x) = |x|^2 - |x|^4 < 0 for |x| > 1
        "cubic": True,           # third power of the linear kernel
        "gauss": True,           # Gaussian kernel
        "dist": False,           # Gram [[0, r], [r, 0]] has eigenvalue -r
        "sq_dist": False,        # the same with r^2
        "neg_lin": False,        # K(x, x) = -|x|^2
        "lin_plus_one": True,    # sum of two kernels
        "lin_minus_one": False,  # K(0, 0) = -1
        "sum_first": False,      # K(x, x) = 2 x1 < 0 for x1 < 0
        "cos_first": True,       # cos x1 cos t1 + sin x1 sin t1
        "max_first": False,      # K(x, x) = x1 < 0 for x1 < 0
        "min_abs_first": True,   # min kernel on [0, inf) composed with |x1|
        "norm_product": True,    # phi(x) = |x|, a one-dimensional feature map
    }
    if name not in verdicts:
        raise ValueError(f"unknown candidate {name!r}")
    return verdicts[name]
    ### END SOLUTION
'''

PART4 = r"""
## Part 4: counterexamples (3 points)

When a candidate is not a kernel, a finite set of points shows it: its Gram
matrix has a negative eigenvalue (or, equivalently, some vector $c$ gives
$c^\top K c < 0$).

Write `counterexample_points(name)` returning an array `P` of shape `(m, 2)`
with $1 \le m \le 20$ (coordinates at most 1000 in size) such that
`gram(name, P)` has an eigenvalue clearly below zero, for every candidate that
is not a kernel. You may reason out the points for each candidate or search
for them numerically with `np.linalg.eigvalsh`; if you search, use your own
generator (`np.random.default_rng(seed)`), not the global random state.
"""

ANSWER4 = r'''
def counterexample_points(name):
    """Points P, shape (m, 2), on which gram(name, P) has a negative eigenvalue."""
    ### BEGIN SOLUTION
    if name not in CANDIDATES:
        raise ValueError(f"unknown candidate {name!r}")
    rng = np.random.default_rng(0)
    # Few points first: a negative diagonal entry needs one point, an
    # indefinite 2 x 2 block two.
    for m in (1, 2, 3, 4):
        for scale in (0.5, 2.0, 5.0):
            for _ in range(100):
                P = rng.uniform(-scale, scale, size=(m, 2))
                K = gram(name, P)
                if np.linalg.eigvalsh(K)[0] < -1e-3 * max(1.0, np.abs(K).max()):
                    return P
    raise ValueError(f"no counterexample found for {name!r}: is it a kernel?")
    ### END SOLUTION
'''

PART5 = r"""
## Part 5 (written, 4 points)

For the four candidates `D_diag`, `D_indefinite`, `exp_first` and `lin_minus_sq`,
argue whether each is a kernel. When it is, give a feature map (possibly with
infinitely many coordinates); when it is not, give explicit points and the
Gram matrix that fails.
"""

MODEL5 = r"""
* `D_diag`: $x^\top D_1 t = x_1 t_1 + 5 x_2 t_2 = \langle \phi(x), \phi(t)\rangle$
  with $\phi(x) = (x_1, \sqrt5\, x_2)$, so it is a kernel.
* `D_indefinite`: not a kernel. At $x = t = e_1 = (1, 0)$ the one-point Gram
  matrix is $[e_1^\top D_2 e_1] = [-1]$, which is negative. (The eigenvalues of
  $D_2$ are $(3 \pm \sqrt{41})/2$, one of each sign.)
* `exp_first`: a kernel. $e^{x_1 t_1} = \sum_{k \ge 0} (x_1 t_1)^k / k!
  = \langle \phi(x), \phi(t)\rangle$ with the infinite feature map
  $\phi(x) = (x_1^k / \sqrt{k!})_{k \ge 0}$, whose squared norm $e^{x_1^2}$ is finite.
* `lin_minus_sq`: not a kernel. At $x = t = (2, 0)$, $K(x, x) = 4 - 16 = -12 < 0$.
"""

PART6 = r"""
## Part 6 (written, 2 points)

Let $K$ be a kernel on $\mathbb{R}^2$ with feature map $\phi$. Prove that
(a) $K(Ax, At)$ is a kernel for any $2\times 2$ matrix $A$, and
(b) $f(x) K(x, t) f(t)$ is a kernel for any function $f:\mathbb{R}^2\to\mathbb{R}$.
"""

MODEL6 = r"""
(a) $K(Ax, At) = \langle \phi(Ax), \phi(At)\rangle$, so $\psi = \phi\circ A$ is a
feature map for it. (Directly: its Gram matrix on $x_1, \dots, x_m$ is the Gram
matrix of $K$ on $Ax_1, \dots, Ax_m$, which is PSD.)

(b) $f(x)K(x,t)f(t) = \langle f(x)\phi(x), f(t)\phi(t)\rangle$, so $\psi(x) = f(x)\phi(x)$
is a feature map. In matrix terms the new Gram matrix is $F K F$ with
$F = \operatorname{diag}(f(x_1), \dots, f(x_m))$, and
$c^\top F K F c = (Fc)^\top K (Fc) \ge 0$.
"""


def build():
    cells = [
        locked_md("title", TITLE),
        locked_code("setup", SETUP),
        locked_md("part1_task", PART1),
        answer_code("quadratic_map_answer", ANSWER1),
        test_code("quadratic_map", "quadratic_feature_map",
                  "its inner products equal (1 + <x, t>)^2", 2),
        locked_md("part2_task", PART2),
        answer_code("multinomial_map_answer", ANSWER2),
        test_code("multinomial_map", "multinomial_feature_map",
                  "shape (n, C(d+p, p)) and inner products equal (1 + <x, t>)^p", 3),
        locked_md("part3_task", PART3),
        answer_code("kernel_verdicts_answer", ANSWER3),
        test_code("kernel_verdicts", "is_kernel", "the verdict for each candidate", 2),
        locked_md("part4_task", PART4),
        answer_code("counterexample_answer", ANSWER4),
        test_code("counterexample", "counterexample_points",
                  "the Gram matrix on the returned points is not PSD", 3),
        locked_md("part5_task", PART5),
        written("validity_arguments", 4, MODEL5),
        locked_md("part6_task", PART6),
        written("closure_proofs", 2, MODEL6),
    ]
    for cell in cells:
        cell.id = cell.metadata["nbgrader"]["grade_id"].replace("_", "-")
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                       "name": "python3"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(nb)
    return nb


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(build(), OUT)
    print(f"wrote {OUT}")
