"""Write assignments/source/ps2/ps2.ipynb and assignments/source/ps3/ps3.ipynb.

These are the instructor's versions, with solutions and hidden tests; nbgrader
strips both when it generates the student release. Run

    python assignments/tools/make_ps2_3.py

after editing the cells below. The notebooks are written without outputs.
Test cases and expected values live in coursegrader/problems/ps2.py and ps3.py.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

SOURCE = Path(__file__).resolve().parents[1] / "source"


# ----------------------------------------------------------------------------
# cell builders (nbgrader 0.9 metadata, schema version 3)
# ----------------------------------------------------------------------------

def _meta(grade_id, *, grade=False, solution=False, locked=False, points=None):
    md = {"grade": grade, "grade_id": grade_id, "locked": locked,
          "schema_version": 3, "solution": solution, "task": False}
    if grade:
        md["points"] = points
    return {"nbgrader": md}


class Notebook:
    """Collects cells with stable ids so that rebuilding gives the same file."""

    def __init__(self, name):
        self.name = name
        self.cells = []

    def _add(self, cell, grade_id):
        cell["id"] = grade_id.replace("_", "-")
        self.cells.append(cell)

    def text(self, grade_id, text):
        """A read-only markdown cell."""
        self._add(new_markdown_cell(text.strip(), metadata=_meta(grade_id, locked=True)), grade_id)

    def setup(self, grade_id, code):
        """A read-only code cell (imports and given helpers)."""
        self._add(new_code_cell(code.strip(), metadata=_meta(grade_id, locked=True)), grade_id)

    def answer(self, grade_id, code):
        """A code cell the student edits; the solution sits between BEGIN/END SOLUTION."""
        self._add(new_code_cell(code.strip(), metadata=_meta(grade_id, solution=True)), grade_id)

    def check(self, part, func, what, points):
        """The read-only test cell of an auto-graded part."""
        unit = "point" if points == 1 else "points"
        src = f'''
"""Checks {func}: {what} ({points} {unit})."""
from coursegrader import check
check("{self.name}", "{part}", {func})
### BEGIN HIDDEN TESTS
check("{self.name}", "{part}", {func}, hidden=True)
### END HIDDEN TESTS
'''
        self._add(new_code_cell(src.strip(), metadata=_meta(part, grade=True, locked=True, points=points)), part)

    def written(self, grade_id, points, model_answer):
        """A manually graded markdown answer; nbgrader replaces the model answer by a stub."""
        text = "### BEGIN SOLUTION\n" + model_answer.strip() + "\n### END SOLUTION"
        cell = new_markdown_cell(text, metadata=_meta(grade_id, grade=True, solution=True, points=points))
        self._add(cell, grade_id)

    def write(self):
        nb = new_notebook(cells=self.cells, metadata={
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        })
        nbformat.validate(nb)
        path = SOURCE / self.name / f"{self.name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
        return path


HOW_TO_WORK = r"""
**How to work.** Write code only in the answer cells (replace the lines
`# YOUR CODE HERE` and `raise NotImplementedError()`), and written answers in
the cells that say "YOUR ANSWER HERE". Each answer cell is followed by a check
cell: run it, and it prints one line per test case, naming the input that
failed and what was expected against what your function returned. Keep the
function names and arguments exactly as given. Before submitting, restart the
kernel, run all cells, and run `nbgrader validate {name}.ipynb` in a terminal.

**Rules for graded functions.** {allowed} The grader calls your functions in a
separate process in which `kernlab` and `scikit-learn` cannot be imported, so a
graded function that uses them scores zero; you may use them in cells of your
own at the end of the notebook to explore. The grade also uses hidden test
cases that the check cells do not show, drawn at random for each student, so
make your functions correct in general and not only on the cases you see.
Partial credit is given per test case.
"""


# ============================================================================
# Problem set 2: ridge regression
# ============================================================================

def build_ps2():
    nb = Notebook("ps2")
    nb.text("title", r"""
# Problem set 2: ridge regression in the primal, in the dual, in a basis and with a kernel

| part | what you hand in | points |
| --- | --- | --- |
| 1 | `ridge_primal(X, y, lam)` | 3 |
| 2 | `ridge_dual(X, y, lam)` | 3 |
| 3 | written: what each route costs | 2 |
| 4 | `ridge_intercept(X, y, lam)` | 3 |
| 5 | `bump_gram(centres, sigma)` | 2 |
| 6 | written: the inner product of two Gaussian bumps | 2 |
| 7 | `basis_ridge(T, y, centres, sigma, lam)` | 3 |
| 8 | `kernel_ridge_predict(X, y, X_new, sigma, lam)` | 3 |
| | total | 21 |
""" + HOW_TO_WORK.format(
        name="ps2",
        allowed="Implement them with NumPy and SciPy (`scipy.linalg`).",
    ))

    nb.setup("setup", r"""
import numpy as np
import scipy.linalg
""")

    nb.text("conventions", r"""
## Conventions

Training data are $n$ points $x_1, \dots, x_n \in \mathbb{R}^d$ with real targets
$y_1, \dots, y_n$. In code the points are the rows of an array `X` of shape
`(n, d)` (so one-dimensional data have shape `(n, 1)`) and the targets form a
1-D array `y` of shape `(n,)`. The regularisation weight $\lambda > 0$ is called
`lam`. Return 1-D arrays where the task asks for a vector.

Whenever you solve a linear system with a symmetric positive definite matrix,
factor it (`scipy.linalg.cho_factor` and `cho_solve`, or
`scipy.linalg.solve(M, b, assume_a="pos")`). Never form an inverse: it costs
more and loses accuracy.
""")

    # ---------------------------------------------------------------- part 1
    nb.text("ridge_primal_task", r"""
## Part 1: ridge regression in the primal (3 points)

Ridge regression fits a linear function $f(x) = w^\top x$ by minimising

$$
E(w) = \lVert y - Xw \rVert^2 + \lambda \lVert w \rVert^2 .
$$

The gradient is $\nabla E(w) = -2X^\top(y - Xw) + 2\lambda w$. Setting it to zero
gives the *regularised normal equations*

$$
(X^\top X + \lambda I_d)\, w = X^\top y .
$$

For $\lambda > 0$ the matrix on the left is positive definite: for any $z \neq 0$,
$z^\top (X^\top X + \lambda I_d) z = \lVert X z\rVert^2 + \lambda\lVert z\rVert^2 > 0$.
So the system has exactly one solution, even when $d > n$ and $X^\top X$ alone is
singular, and $E$ is strictly convex, so that solution is the minimiser.

Write `ridge_primal(X, y, lam)` returning $w$ as an array of shape `(d,)`.
""")
    nb.answer("ridge_primal_answer", r'''
def ridge_primal(X, y, lam):
    """Ridge weights w of shape (d,) from the d x d system (X^T X + lam I) w = X^T y."""
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    d = X.shape[1]
    M = X.T @ X + lam * np.eye(d)
    return scipy.linalg.cho_solve(scipy.linalg.cho_factor(M), X.T @ y)
    ### END SOLUTION
''')
    nb.check("ridge_primal", "ridge_primal", "the weights solve the d x d normal equations", 3)

    # ---------------------------------------------------------------- part 2
    nb.text("ridge_dual_task", r"""
## Part 2: the same weights from an $n \times n$ system (3 points)

Rearrange the optimality condition of part 1 as
$w = \frac{1}{\lambda} X^\top (y - Xw)$. It says that the optimal $w$ is a
combination of the training points,

$$
w = X^\top \alpha = \sum_{i=1}^n \alpha_i x_i ,
\qquad \alpha = \frac{1}{\lambda}(y - Xw) .
$$

Substituting $w = X^\top\alpha$ into the definition of $\alpha$ gives
$\lambda\alpha = y - XX^\top\alpha$, that is

$$
(XX^\top + \lambda I_n)\,\alpha = y .
$$

The entries of $XX^\top$ are the inner products $\langle x_i, x_j\rangle$, and a
prediction needs only inner products too:
$f(x) = \sum_i \alpha_i \langle x_i, x\rangle$. This is the *dual* form; the
vector $\alpha$ holds the dual coefficients.

Write `ridge_dual(X, y, lam)` returning $\alpha$ as an array of shape `(n,)`.
Then convince yourself, in a scratch cell, that `X.T @ ridge_dual(X, y, lam)`
equals `ridge_primal(X, y, lam)` on some random data with $d < n$ and with $d > n$.
""")
    nb.answer("ridge_dual_answer", r'''
def ridge_dual(X, y, lam):
    """Dual coefficients alpha of shape (n,) from the n x n system (X X^T + lam I) alpha = y."""
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n = X.shape[0]
    B = X @ X.T + lam * np.eye(n)
    return scipy.linalg.cho_solve(scipy.linalg.cho_factor(B), y)
    ### END SOLUTION
''')
    nb.check("ridge_dual", "ridge_dual", "alpha solves the n x n dual system", 3)

    # ---------------------------------------------------------------- part 3
    nb.text("costs_task", r"""
## Part 3 (written): what each route costs (2 points)

Count floating-point operations to leading order (forming a $p \times p$ product
$A^\top A$ of an $n \times p$ matrix costs about $np^2$; a Cholesky factorisation of
a $p\times p$ matrix about $p^3/3$; triangular solves and matrix-vector products
are of lower order here).

1. Give the leading cost of training in the primal (part 1) and in the dual
   (part 2), and the cost of one prediction $f(x)$ in each form once trained.
2. Which route would you take for (a) $n = 500$ documents described by
   $d = 20\,000$ word counts, and (b) $n = 10^6$ sensor readings with $d = 30$
   features? Say why in one sentence each.
3. In case (a) each document contains only about $k = 200$ distinct words.
   How does that change the cost of the dual route, and why does the primal
   route not profit in the same way?
""")
    nb.written("costs", 2, r"""
1. Primal: forming $X^\top X$ costs about $nd^2$ and factoring it $d^3/3$, so
   training is $O(nd^2 + d^3)$; a prediction $w^\top x$ costs $O(d)$.
   Dual: forming $XX^\top$ costs about $n^2 d$ and factoring it $n^3/3$, so
   training is $O(n^2 d + n^3)$; a prediction $\sum_i \alpha_i\langle x_i, x\rangle$
   costs $O(nd)$ and needs every training point to be kept (unless we form
   $w = X^\top\alpha$ once, at cost $nd$, after which predictions are $O(d)$).
2. (a) $n \ll d$: the dual costs about $500^2\cdot 2\cdot 10^4 + 500^3/3 \approx 5\cdot 10^9$
   operations against about $500\cdot(2\cdot 10^4)^2 + (2\cdot 10^4)^3/3 \approx 2.9\cdot 10^{12}$
   for the primal, so the dual wins by a factor of several hundred.
   (b) $n \gg d$: the primal needs about $10^6\cdot 30^2 \approx 10^9$ operations and a
   $30\times 30$ system, while the dual would need a $10^6\times 10^6$ matrix
   ($10^{12}$ entries, which does not even fit in memory), so the primal wins.
3. An inner product of two sparse vectors with $k$ non-zeros each costs $O(k)$,
   not $O(d)$, so forming $XX^\top$ costs $O(n^2 k)$ and the dual route is
   $O(n^2 k + n^3)$, independent of $d$. The primal route must still build and
   factor the $d\times d$ matrix $X^\top X + \lambda I$, whose factor is dense in
   general; its $d^3/3$ term does not shrink with sparsity.
""")

    # ---------------------------------------------------------------- part 4
    nb.text("ridge_intercept_task", r"""
## Part 4: a free intercept (3 points)

A model $f(x) = w^\top x + b$ whose offset $b$ is penalised would change its fit
when the targets are shifted by a constant, which is rarely wanted. So we leave
$b$ out of the penalty:

$$
\min_{w, b}\; \lVert y - Xw - b\mathbf{1} \rVert^2 + \lambda \lVert w \rVert^2 .
$$

Setting the derivative in $b$ to zero gives $b = \bar y - \bar x^\top w$, where
$\bar y$ is the mean target and $\bar x$ the mean training point. Substituting
back, $y - Xw - b\mathbf 1 = (y - \bar y\mathbf 1) - (X - \mathbf 1\bar x^\top)w$, so $w$ is
plain ridge regression (part 1) on *centred* data: subtract $\bar x$ from every
row of $X$ and $\bar y$ from every target, fit $w$ without intercept, then read
off $b$.

Write `ridge_intercept(X, y, lam)` returning the pair `(w, b)`: `w` of shape
`(d,)` and `b` a float. You may call your `ridge_primal`.
""")
    nb.answer("ridge_intercept_answer", r'''
def ridge_intercept(X, y, lam):
    """(w, b) minimising ||y - X w - b||^2 + lam ||w||^2 with b unpenalised."""
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    x_bar, y_bar = X.mean(axis=0), y.mean()
    w = ridge_primal(X - x_bar, y - y_bar, lam)
    return w, float(y_bar - x_bar @ w)
    ### END SOLUTION
''')
    nb.check("ridge_intercept", "ridge_intercept", "w and the unpenalised intercept b", 3)

    # ---------------------------------------------------------------- part 5
    nb.text("bump_gram_task", r"""
## Part 5: regression in a basis of Gaussian bumps, the Gram matrix (2 points)

Instead of a linear function, let us fit a combination of $N$ fixed basis
functions, $f = \sum_{j=1}^N w_j \psi_j$. Take Gaussian bumps centred at points
$c_1, \dots, c_N \in \mathbb{R}^D$ with a common width $\sigma > 0$,

$$
\psi_j(t) = \left(\sigma\sqrt{\pi}\right)^{-D/2}
\exp\!\left(-\frac{\lVert t - c_j\rVert^2}{2\sigma^2}\right),
$$

scaled so that $\int_{\mathbb{R}^D} \psi_j(t)^2\,dt = 1$. As penalty we use the
squared $L_2$ norm of the function itself,

$$
\lVert f \rVert_{L_2}^2 = \int_{\mathbb{R}^D} f(t)^2\,dt
= \sum_{j,k} w_j w_k \langle \psi_j, \psi_k\rangle_{L_2} = w^\top G w ,
\qquad G_{jk} = \int_{\mathbb{R}^D} \psi_j(t)\,\psi_k(t)\,dt .
$$

The bumps overlap, so they are not orthonormal and $G$ is not the identity.
Work out $G_{jk}$ in closed form (part 6 asks for the derivation; completing
the square in the exponent is the key step), then write `bump_gram(centres, sigma)`:
`centres` has shape `(N, D)`, one centre per row; return $G$ of shape `(N, N)`.
""")
    nb.answer("bump_gram_answer", r'''
def bump_gram(centres, sigma):
    """L2 Gram matrix G[j, k] = <psi_j, psi_k> of the normalised Gaussian bumps, shape (N, N)."""
    ### BEGIN SOLUTION
    C = np.asarray(centres, dtype=float)
    sq = np.sum(C**2, axis=1)
    dist2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * C @ C.T, 0.0)
    return np.exp(-dist2 / (4.0 * sigma**2))
    ### END SOLUTION
''')
    nb.check("bump_gram", "bump_gram", "the L2 inner products of the bumps", 2)

    nb.text("bump_derivation_task", r"""
## Part 6 (written): the inner product of two bumps (2 points)

1. Derive the closed form of $G_{jk}$ that you used in part 5. Show the step
   that turns $\lVert t - a\rVert^2 + \lVert t - b\rVert^2$ into a single square
   in $t$, and the value of the remaining Gaussian integral.
2. Explain why $G$ is positive definite when the centres are distinct (you may
   use that bumps with distinct centres are linearly independent functions), and
   what that means for the uniqueness of the fit in part 7.
""")
    nb.written("bump_derivation", 2, r"""
1. With $a = c_j$, $b = c_k$ and $m = (a + b)/2$,
   $\lVert t-a\rVert^2 + \lVert t-b\rVert^2 = 2\lVert t - m\rVert^2 + \tfrac12\lVert a-b\rVert^2$
   (expand both sides: $2\lVert t\rVert^2 - 2t^\top(a+b) + \lVert a\rVert^2 + \lVert b\rVert^2$,
   and $\lVert a\rVert^2 + \lVert b\rVert^2 = 2\lVert m\rVert^2 + \tfrac12\lVert a-b\rVert^2$). Hence
   $$
   G_{jk} = (\sigma\sqrt\pi)^{-D} e^{-\lVert a-b\rVert^2/(4\sigma^2)}
   \int_{\mathbb{R}^D} e^{-\lVert t-m\rVert^2/\sigma^2}\,dt
   = (\sigma\sqrt\pi)^{-D}\, e^{-\lVert a-b\rVert^2/(4\sigma^2)}\,(\sigma\sqrt\pi)^{D}
   = e^{-\lVert c_j-c_k\rVert^2/(4\sigma^2)},
   $$
   using $\int_{\mathbb{R}} e^{-s^2/\sigma^2}\,ds = \sigma\sqrt\pi$ in each of the $D$
   coordinates. So $G$ is a Gaussian kernel matrix of width $\sqrt2\,\sigma$ on the
   centres, with ones on the diagonal.
2. For any $w$, $w^\top G w = \lVert \sum_j w_j\psi_j\rVert_{L_2}^2 \ge 0$, and it is $0$
   only if $\sum_j w_j \psi_j$ is the zero function, which for linearly independent
   bumps forces $w = 0$. So $G$ is positive definite. Then
   $A^\top A + \lambda G$ is positive definite for every $\lambda > 0$ (a positive
   semi-definite plus a positive definite matrix), and the penalised least-squares
   problem of part 7 is strictly convex with exactly one minimiser, however many
   bumps we use and however few data points we have.
""")

    # ---------------------------------------------------------------- part 7
    nb.text("basis_ridge_task", r"""
## Part 7: ridge regression in the bump basis (3 points)

Given data $(t_i, y_i)$, $i = 1, \dots, M$, let $A$ be the $M \times N$ *design
matrix* with entries $A_{ij} = \psi_j(t_i)$. Then $f(t_i) = (Aw)_i$ and the fit

$$
\min_{w\in\mathbb{R}^N}\; \lVert y - A w\rVert^2 + \lambda\, w^\top G w
$$

has the normal equations $(A^\top A + \lambda G)\,w = A^\top y$. Compare with part 1:
the identity has become $G$. As a consequence, $w$ is in general *not* of the
form $A^\top\alpha$, so the dual trick of part 2 does not apply directly; it does
when the basis is orthonormal ($G = I$).

Write `basis_ridge(T, y, centres, sigma, lam)`: `T` of shape `(M, D)` holds the
inputs, `y` of shape `(M,)` the targets, `centres` of shape `(N, D)` the bump
centres; return $w$ of shape `(N,)`. Remember the normalising factor of the
bumps. Helpers of your own (for example for the design matrix) are welcome;
put them in the same cell.
""")
    nb.answer("basis_ridge_answer", r'''
def basis_ridge(T, y, centres, sigma, lam):
    """Weights w of shape (N,) minimising ||y - A w||^2 + lam w^T G w for the bump basis."""
    ### BEGIN SOLUTION
    T = np.asarray(T, dtype=float)
    C = np.asarray(centres, dtype=float)
    D = T.shape[1]
    dist2 = np.maximum(np.sum(T**2, axis=1)[:, None] + np.sum(C**2, axis=1)[None, :] - 2.0 * T @ C.T, 0.0)
    A = (sigma * np.sqrt(np.pi)) ** (-D / 2) * np.exp(-dist2 / (2.0 * sigma**2))
    M = A.T @ A + lam * bump_gram(C, sigma)
    return scipy.linalg.solve(M, A.T @ np.asarray(y, dtype=float), assume_a="pos")
    ### END SOLUTION
''')
    nb.check("basis_ridge", "basis_ridge", "w solves (A^T A + lam G) w = A^T y", 3)

    # ---------------------------------------------------------------- part 8
    nb.text("kernel_ridge_task", r"""
## Part 8: kernel ridge regression with a Gaussian kernel (3 points)

The dual form of part 2 touches the data only through inner products. Replace
each $\langle x_i, x_j\rangle$ by a kernel $k(x_i, x_j)$, here the Gaussian kernel

$$
k(x, x') = \exp\!\left(-\frac{\lVert x - x'\rVert^2}{2\sigma^2}\right),
$$

and you get kernel ridge regression: with the $n\times n$ Gram matrix
$K_{ij} = k(x_i, x_j)$,

$$
\alpha = (K + \lambda I_n)^{-1} y ,
\qquad
f(x) = \sum_{i=1}^n \alpha_i\, k(x_i, x) .
$$

This is ridge regression on a feature map with infinitely many coordinates, yet
it costs no more than part 2 with $d$ replaced by the cost of one kernel
evaluation.

Write `gaussian_kernel(X, Y, sigma)`, returning the matrix $[k(x_i, y_j)]$ of
shape `(len(X), len(Y))` (use
$\lVert x - y\rVert^2 = \lVert x\rVert^2 + \lVert y\rVert^2 - 2x^\top y$ for all pairs at
once, and clip tiny negative values caused by rounding at zero), and
`kernel_ridge_predict(X, y, X_new, sigma, lam)`, which fits on `X` (shape
`(n, d)`) and `y` and returns the predictions $f$ at the rows of `X_new`
(shape `(m, d)`) as an array of shape `(m,)`. Only the second function is
graded.
""")
    nb.answer("kernel_ridge_answer", r'''
def gaussian_kernel(X, Y, sigma):
    """Gaussian kernel matrix exp(-||x_i - y_j||^2 / (2 sigma^2)) of shape (len(X), len(Y))."""
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    dist2 = np.sum(X**2, axis=1)[:, None] + np.sum(Y**2, axis=1)[None, :] - 2.0 * X @ Y.T
    return np.exp(-np.maximum(dist2, 0.0) / (2.0 * sigma**2))
    ### END SOLUTION


def kernel_ridge_predict(X, y, X_new, sigma, lam):
    """Gaussian kernel ridge regression fitted on (X, y), evaluated at the rows of X_new."""
    ### BEGIN SOLUTION
    K = gaussian_kernel(X, X, sigma)
    alpha = scipy.linalg.solve(K + lam * np.eye(K.shape[0]), np.asarray(y, dtype=float), assume_a="pos")
    return gaussian_kernel(X_new, X, sigma) @ alpha
    ### END SOLUTION
''')
    nb.check("kernel_ridge_predict", "kernel_ridge_predict", "predictions of Gaussian kernel ridge regression", 3)

    nb.text("explore", r"""
## To explore (not graded)

* Fit `kernel_ridge_predict` to noisy samples of $\sin$ on $[0, 6]$ and plot the
  fit on a fine grid for $\sigma \in \{0.1, 1, 10\}$ and $\lambda \in \{10^{-3}, 1\}$.
  Which combinations interpolate the noise, and which flatten the signal?
* Replace the Gaussian kernel by the linear kernel $k(x, x') = x^\top x'$ and check
  that the predictions equal `X_new @ ridge_primal(X, y, lam)`.
* Time `ridge_primal` against `ridge_dual` for $n = 200$ and growing $d$, and
  compare the crossing point with your answer to part 3
  (`kernlab.ridge_flops(n, d)` gives the operation counts of both routes).
""")
    return nb.write()


# ============================================================================
# Problem set 3: support vector machines
# ============================================================================

def build_ps3():
    nb = Notebook("ps3")
    nb.text("title", r"""
# Problem set 3: the soft-margin support vector machine

| part | what you hand in | points |
| --- | --- | --- |
| 1 | `svm_dual(K, t, C)` | 4 |
| 2 | `support_vectors(alpha, C)` | 2 |
| 3 | `svm_intercept(K, t, alpha, C)` | 3 |
| 4 | `svm_decision(X, t, alpha, b, X_new, sigma)` | 3 |
| 5 | written: reading the multipliers | 2 |
| 6 | `hinge_objective(K, t, c, b, lam)` | 2 |
| 7 | `svm_primal(K, t, lam)` | 3 |
| 8 | written: one classifier, two problems | 2 |
| | total | 21 |
""" + HOW_TO_WORK.format(
        name="ps3",
        allowed="Implement them with NumPy, SciPy and CVXPY.",
    ))

    nb.setup("setup", r"""
import cvxpy as cp
import numpy as np
""")

    nb.text("conventions", r"""
## Conventions

A training set is $n$ points $x_1, \dots, x_n$ with labels $t_i \in \{-1, +1\}$ and
a kernel $k$ with Gram matrix $K_{ij} = k(x_i, x_j)$. Most functions below receive
`K` (shape `(n, n)`) and `t` (shape `(n,)`, floats equal to $\pm 1$) directly,
so they work for any kernel. The classifier is
$x \mapsto \operatorname{sign} f(x)$ with

$$
f(x) = \sum_{i=1}^n \alpha_i t_i\, k(x_i, x) + b .
$$

The soft-margin problem in feature space, with feature map $\phi$ and a box
parameter $C > 0$, is

$$
\min_{w, b, \xi}\; \tfrac12 \lVert w\rVert^2 + C \sum_{i=1}^n \xi_i
\quad\text{subject to}\quad
t_i\,(w^\top \phi(x_i) + b) \ge 1 - \xi_i,\quad \xi_i \ge 0 .
$$

The slack $\xi_i$ measures how far point $i$ falls short of the margin; $C$
prices that shortfall.
""")

    # ---------------------------------------------------------------- part 1
    nb.text("svm_dual_task", r"""
## Part 1: the dual problem in CVXPY (4 points)

Give each margin constraint a multiplier $\alpha_i \ge 0$ and each constraint
$\xi_i \ge 0$ a multiplier $\mu_i \ge 0$. Setting the derivatives of the
Lagrangian to zero gives $w = \sum_i \alpha_i t_i \phi(x_i)$ (from $w$),
$\sum_i \alpha_i t_i = 0$ (from $b$) and $C - \alpha_i - \mu_i = 0$ (from $\xi_i$);
the last one, with $\mu_i \ge 0$, caps $\alpha_i$ at $C$. Substituting back leaves
the dual problem

$$
\max_{\alpha \in \mathbb{R}^n}\;
\sum_{i=1}^n \alpha_i - \frac12 \sum_{i,j} t_i t_j K_{ij}\,\alpha_i\alpha_j
\quad\text{subject to}\quad 0 \le \alpha_i \le C,\quad \sum_{i=1}^n \alpha_i t_i = 0 .
$$

The feature map has disappeared: only the Gram matrix is left. In vector form
the quadratic term is $v^\top K v$ with $v = \alpha \odot t$ (entrywise product).

Write `svm_dual(K, t, C)` returning an optimal $\alpha$ of shape `(n,)`. Hints:
`cp.multiply(a, t)` is the entrywise product; a Gram matrix computed in floating
point may have eigenvalues like $-10^{-16}$, so write the quadratic term as
`cp.quad_form(v, cp.psd_wrap(K))`, which tells CVXPY to trust that $K$ is
positive semi-definite; solve with `solver=cp.CLARABEL` for an accurate
solution; clip the result to $[0, C]$ to remove the solver's rounding. The check
accepts any feasible $\alpha$ (within $10^{-6}\max(1, C)$) whose objective is
within a relative $10^{-6}$ of the optimum: when $K$ is singular the optimal
$\alpha$ need not be unique.
""")
    nb.answer("svm_dual_answer", r'''
def svm_dual(K, t, C):
    """Optimal multipliers alpha of shape (n,) of the soft-margin dual for Gram matrix K."""
    ### BEGIN SOLUTION
    K = np.asarray(K, dtype=float)
    t = np.asarray(t, dtype=float)
    a = cp.Variable(len(t))
    v = cp.multiply(a, t)
    objective = cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(v, cp.psd_wrap(K)))
    constraints = [a >= 0, a <= C, t @ a == 0]
    cp.Problem(objective, constraints).solve(solver=cp.CLARABEL)
    return np.clip(a.value, 0.0, C)
    ### END SOLUTION
''')
    nb.check("svm_dual", "svm_dual", "alpha is feasible and maximises the dual objective", 4)

    # ---------------------------------------------------------------- part 2
    nb.text("support_vectors_task", r"""
## Part 2: three kinds of training point (2 points)

At the optimum, complementary slackness ties each multiplier to the position of
its point. With $f$ the decision function:

* $\alpha_i = 0$: the constraint may be slack, $t_i f(x_i) \ge 1$; the point is on
  the correct side of its margin and does not enter $f$ at all.
* $0 < \alpha_i < C$: then $\mu_i > 0$, so $\xi_i = 0$, and the margin constraint
  is tight: $t_i f(x_i) = 1$. The point sits exactly on the margin.
* $\alpha_i = C$: $t_i f(x_i) = 1 - \xi_i \le 1$; the point is inside the margin,
  or on the wrong side of the boundary when $\xi_i > 1$.

The points with $\alpha_i > 0$ are the *support vectors*: $f$ depends on them
alone. A numerical solver returns multipliers that are only close to $0$ or $C$,
so we compare with the tolerance $\tau = 10^{-6}C$.

Write `support_vectors(alpha, C)` returning the pair `(margin, bound)` of 1-D
integer arrays of indices in increasing order: `margin` holds the $i$ with
$\tau < \alpha_i < C - \tau$ and `bound` the $i$ with $\alpha_i \ge C - \tau$.
(`np.flatnonzero` is handy.)
""")
    nb.answer("support_vectors_answer", r'''
def support_vectors(alpha, C):
    """Indices (margin, bound) of the free (0 < alpha < C) and the bounded (alpha = C) multipliers."""
    ### BEGIN SOLUTION
    alpha = np.asarray(alpha, dtype=float)
    tau = 1e-6 * C
    margin = np.flatnonzero((alpha > tau) & (alpha < C - tau))
    bound = np.flatnonzero(alpha >= C - tau)
    return margin, bound
    ### END SOLUTION
''')
    nb.check("support_vectors", "support_vectors", "indices of the margin and the bounded support vectors", 2)

    # ---------------------------------------------------------------- part 3
    nb.text("svm_intercept_task", r"""
## Part 3: the intercept (3 points)

The dual does not contain $b$, so we read it off the KKT conditions. Write
$g_j = \sum_i \alpha_i t_i K_{ij}$, so that $f(x_j) = g_j + b$. For a margin support
vector, $t_j(g_j + b) = 1$; multiplying by $t_j$ (and $t_j^2 = 1$) gives

$$
b = t_j - g_j .
$$

Every margin support vector gives the same $b$ in exact arithmetic; to soften
rounding errors, take the **average** of $t_j - g_j$ over all margin support
vectors (as found in part 2).

If there is no margin support vector (it happens when $C$ is small and every
$\alpha_i$ is at a bound), the conditions only confine $b$ to an interval:
$\alpha_j = 0$ requires $t_j(g_j + b) \ge 1$ and $\alpha_j = C$ requires
$t_j(g_j + b) \le 1$. Each of these is a lower or an upper bound on $b$ depending on
the sign of $t_j$; work out which. Then return the midpoint of the interval
between the largest lower bound and the smallest upper bound (or its one finite
end, if the other side has no bound). Use the same tolerance $\tau = 10^{-6}C$ as
in part 2 to decide which $\alpha_j$ count as $0$ or $C$.

Write `svm_intercept(K, t, alpha, C)` returning $b$ as a float.
""")
    nb.answer("svm_intercept_answer", r'''
def svm_intercept(K, t, alpha, C):
    """The intercept b from the KKT conditions, for optimal multipliers alpha."""
    ### BEGIN SOLUTION
    K = np.asarray(K, dtype=float)
    t = np.asarray(t, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    g = K @ (alpha * t)
    margin, _ = support_vectors(alpha, C)
    if len(margin) > 0:
        return float(np.mean(t[margin] - g[margin]))
    tau = 1e-6 * C
    at_zero, at_c = alpha <= tau, alpha >= C - tau
    # alpha_j = 0: t_j (g_j + b) >= 1, a lower bound on b if t_j = +1, an upper bound if t_j = -1;
    # alpha_j = C: t_j (g_j + b) <= 1, the other way round.  In every case the bound is t_j - g_j.
    lower = (at_zero & (t > 0)) | (at_c & (t < 0))
    upper = (at_zero & (t < 0)) | (at_c & (t > 0))
    lo = np.max(t[lower] - g[lower]) if lower.any() else None
    hi = np.min(t[upper] - g[upper]) if upper.any() else None
    if lo is None:
        return float(hi)
    if hi is None:
        return float(lo)
    return float(0.5 * (lo + hi))
    ### END SOLUTION
''')
    nb.check("svm_intercept", "svm_intercept", "b from the KKT conditions", 3)

    # ---------------------------------------------------------------- part 4
    nb.text("svm_decision_task", r"""
## Part 4: the kernelised decision function (3 points)

With $\alpha$ and $b$ in hand, the classifier needs the kernel only between new
points and the training points:

$$
f(x) = \sum_{i=1}^n \alpha_i t_i\, k(x_i, x) + b,
\qquad
k(x, x') = \exp\!\left(-\frac{\lVert x - x'\rVert^2}{2\sigma^2}\right).
$$

Only support vectors contribute, which is what makes the evaluation cheap when
they are few.

Write `svm_decision(X, t, alpha, b, X_new, sigma)`: `X` of shape `(n, d)` holds
the training points, `X_new` of shape `(m, d)` the new ones; return the values
$f(x)$ at the rows of `X_new`, an array of shape `(m,)` (the values, not their
signs). A helper `gaussian_kernel(X, Y, sigma)` in the same cell is a good idea.
""")
    nb.answer("svm_decision_answer", r'''
def gaussian_kernel(X, Y, sigma):
    """Gaussian kernel matrix exp(-||x_i - y_j||^2 / (2 sigma^2)) of shape (len(X), len(Y))."""
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    dist2 = np.sum(X**2, axis=1)[:, None] + np.sum(Y**2, axis=1)[None, :] - 2.0 * X @ Y.T
    return np.exp(-np.maximum(dist2, 0.0) / (2.0 * sigma**2))
    ### END SOLUTION


def svm_decision(X, t, alpha, b, X_new, sigma):
    """Decision values f(x) = sum_i alpha_i t_i k(x_i, x) + b at the rows of X_new, shape (m,)."""
    ### BEGIN SOLUTION
    coef = np.asarray(alpha, dtype=float) * np.asarray(t, dtype=float)
    return gaussian_kernel(X_new, X, sigma) @ coef + b
    ### END SOLUTION
''')
    nb.check("svm_decision", "svm_decision", "decision values with a Gaussian kernel", 3)

    nb.text("kkt_reading_task", r"""
## Part 5 (written): reading the multipliers (2 points)

1. For each of the three kinds of point of part 2, say what the slack $\xi_i$ is
   (zero, between $0$ and $1$, larger than $1$, or "it depends") and whether
   the point is classified correctly.
2. Why is $b$ taken from the margin support vectors and not from the points
   with $\alpha_j = C$?
3. What happens to the number of support vectors as $C$ grows very large, and as
   $C$ shrinks towards $0$? Relate your answer to the price of slack.
""")
    nb.written("kkt_reading", 2, r"""
1. $\alpha_i = 0$: $\xi_i = 0$ and $t_i f(x_i) \ge 1$, correctly classified, on or
   outside its margin. $0 < \alpha_i < C$: $\xi_i = 0$ and $t_i f(x_i) = 1$, exactly on
   the margin, correctly classified. $\alpha_i = C$: $\xi_i = 1 - t_i f(x_i) \ge 0$ (it
   can be $0$ in degenerate cases); for $0 < \xi_i \le 1$ the point is inside the margin
   but on the correct side (on the boundary when $\xi_i = 1$); for $\xi_i > 1$ it is
   misclassified.
2. Only for a margin support vector is the constraint an equation with a known
   right-hand side, $t_j f(x_j) = 1$, so $b = t_j - g_j$ exactly. For $\alpha_j = C$ we
   know only $t_j f(x_j) = 1 - \xi_j$ with $\xi_j$ unknown, which gives an inequality on
   $b$, not its value.
3. As $C \to \infty$ slack becomes prohibitively expensive: if the data are
   separable in feature space we approach the hard-margin machine, few
   multipliers stay positive and those lie on the margin, so the support vectors
   are few (for non-separable data some stay at the bound $C$). As $C \to 0$ slack is
   cheap and $\lVert w\rVert^2$ dominates: the margin widens until it contains most
   points, and nearly every $\alpha_i$ sits at the bound $C$, so almost every
   point becomes a support vector (with balanced classes, all of them).
""")

    # ---------------------------------------------------------------- part 6
    nb.text("hinge_task", r"""
## Part 6: the hinge-loss primal (2 points)

At the optimum, $\xi_i = \max\{0,\, 1 - t_i f(x_i)\}$, the *hinge loss* of point $i$.
Eliminating $\xi$ and dividing the objective by $C$ turns the soft-margin
problem into an unconstrained one,

$$
\min_{f, b}\; \sum_{i=1}^n \max\{0,\, 1 - t_i (f(x_i) + b)\} + \lambda \lVert f\rVert_{\mathcal H}^2,
\qquad \lambda = \frac{1}{2C},
$$

over functions $f$ in the reproducing kernel Hilbert space $\mathcal H$ of $k$. By the
representer theorem the minimiser has the form $f = \sum_j c_j k(\cdot, x_j)$, so
$f(x_i) = (Kc)_i$ and $\lVert f\rVert_{\mathcal H}^2 = c^\top K c$. The problem becomes
finite-dimensional:

$$
J(c, b) = \sum_{i=1}^n \max\{0,\, 1 - t_i ((Kc)_i + b)\} + \lambda\, c^\top K c .
$$

Note that $b$ is not penalised.

Write `hinge_objective(K, t, c, b, lam)` returning $J(c, b)$ as a float.
""")
    nb.answer("hinge_objective_answer", r'''
def hinge_objective(K, t, c, b, lam):
    """J(c, b) = sum_i max(0, 1 - t_i ((K c)_i + b)) + lam c^T K c."""
    ### BEGIN SOLUTION
    K = np.asarray(K, dtype=float)
    c = np.asarray(c, dtype=float)
    margins = np.asarray(t, dtype=float) * (K @ c + b)
    return float(np.sum(np.maximum(0.0, 1.0 - margins)) + lam * c @ K @ c)
    ### END SOLUTION
''')
    nb.check("hinge_objective", "hinge_objective", "the value of the kernelised hinge-loss objective", 2)

    # ---------------------------------------------------------------- part 7
    nb.text("svm_primal_task", r"""
## Part 7: solving the primal (3 points)

$J$ is convex in $(c, b)$: a sum of maxima of affine functions plus a positive
semi-definite quadratic form. Minimise it with CVXPY. `cp.pos(z)` is
$\max\{0, z\}$ entrywise, and the remark on `cp.psd_wrap` in part 1 applies to
$c^\top K c$ as well.

Write `svm_primal(K, t, lam)` returning the pair `(c, b)`: `c` of shape `(n,)`
and `b` a float. The check accepts any pair whose objective is within a relative
$10^{-5}$ of the minimum.
""")
    nb.answer("svm_primal_answer", r'''
def svm_primal(K, t, lam):
    """A minimiser (c, b) of the kernelised hinge-loss objective J."""
    ### BEGIN SOLUTION
    K = np.asarray(K, dtype=float)
    t = np.asarray(t, dtype=float)
    c, b = cp.Variable(len(t)), cp.Variable()
    hinge = cp.sum(cp.pos(1 - cp.multiply(t, K @ c + b)))
    problem = cp.Problem(cp.Minimize(hinge + lam * cp.quad_form(c, cp.psd_wrap(K))))
    problem.solve(solver=cp.CLARABEL)
    return np.asarray(c.value, dtype=float), float(b.value)
    ### END SOLUTION
''')
    nb.check("svm_primal", "svm_primal", "(c, b) minimises the hinge-loss objective", 3)

    nb.text("primal_dual_task", r"""
## Part 8 (written): one classifier, two problems (2 points)

1. Show that minimising $\tfrac12\lVert w\rVert^2 + C\sum_i \xi_i$ under the margin
   constraints and minimising $J$ with $\lambda = 1/(2C)$ give the same classifier,
   and that the optimal values are related by $J^\star = D^\star / C$, where $D^\star$
   is the optimal value of the dual of part 1.
2. Deduce a formula for an optimal $c$ in terms of the dual solution $\alpha$, and
   check it numerically: for a Gaussian kernel Gram matrix, compare your
   `svm_primal(K, t, 1 / (2 * C))` with `svm_dual(K, t, C)` (report the largest
   difference you see).
3. Why would penalising $b$ as well be a bad idea?
""")
    nb.written("primal_dual_link", 2, r"""
1. At the optimum of the constrained problem $\xi_i = \max\{0, 1 - t_i(w^\top\phi(x_i) + b)\}$
   (a smaller $\xi_i$ is infeasible, a larger one costs more), so the problem equals
   $\min_{w,b} \tfrac12\lVert w\rVert^2 + C\sum_i \text{hinge}_i$. Dividing by $C > 0$ does not
   move the minimiser and gives $\tfrac{1}{2C}\lVert w\rVert^2 + \sum_i \text{hinge}_i$, which is
   $J$ with $\lambda = 1/(2C)$ once $w$ is written as $f \in \mathcal H$ (the representer
   theorem lets us restrict to $f = \sum_j c_j k(\cdot, x_j)$, with $\lVert f\rVert^2 = c^\top Kc$).
   The primal optimum equals the dual optimum $D^\star$ (strong duality for this
   convex QP with linear constraints), hence $J^\star = D^\star / C$.
2. From $w = \sum_i \alpha_i t_i \phi(x_i)$, an optimal $c$ is $c_i = \alpha_i t_i$, with the
   same $b$. (When $K$ is singular, $c$ is determined only up to its null space, but
   $Kc$ is unique.) Numerically, with a Gaussian kernel ($\sigma = 1$) on 30 points and $C = 2$,
   the largest difference between $c$ and $\alpha\odot t$ is between $10^{-6}$ and
   $10^{-4}$ depending on the data: solver tolerances, amplified by the
   ill-conditioning of $K$. The fitted values $Kc$ and $K(\alpha\odot t)$ agree
   more closely, to about $10^{-7}$, and so do the two intercepts, to about $10^{-3}$ or better.
3. Shifting the decision boundary must be free: the position of the boundary
   should depend only on the data, not on where the origin of feature space is.
   Penalising $b$ pulls the boundary towards the origin, so translating the data
   would change the classifier; it also breaks the condition $\sum_i \alpha_i t_i = 0$
   that the unpenalised $b$ produces.
""")

    nb.text("explore", r"""
## To explore (not graded)

* Draw two overlapping clouds of points in the plane, solve the dual with a
  Gaussian kernel for $C \in \{0.1, 1, 100\}$, and plot the contours
  $f = -1, 0, 1$ of `svm_decision` on a grid with the support vectors circled.
  How do the number of support vectors and the shape of the boundary change?
* Compare your decision values with those of `kernlab.SVC(kernlab.Gaussian(sigma), C=C)`.
""")
    return nb.write()


if __name__ == "__main__":
    for path in (build_ps2(), build_ps3()):
        print("wrote", path)
