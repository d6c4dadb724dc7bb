"""Write the source notebooks of problem sets 4 and 5.

    python assignments/tools/make_ps4_5.py

writes ``assignments/source/ps4/ps4.ipynb`` and ``assignments/source/ps5/ps5.ipynb``
(clean: no outputs, no execution counts, stable cell ids).  The notebooks are
the files nbgrader reads; this script only keeps their text and their nbgrader
metadata in one readable place.  Edit the text here and re-run it.

The test cases, expected values and points of every auto-graded part live in
``coursegrader/problems/ps4.py`` and ``ps5.py``; the points written in the
test cells below must match them (``tests/`` checks that they do).
"""

import pathlib
import sys
import textwrap

import nbformat

SOURCE = pathlib.Path(__file__).resolve().parent.parent / "source"


# ------------------------------------------------------------------ cells


def _nbgrader(grade_id, *, grade, solution, locked, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked,
            "schema_version": 3, "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def _text(s):
    return textwrap.dedent(s).strip("\n")


def markdown(grade_id, text):
    """A read-only markdown cell (instructions, task statements)."""
    cell = nbformat.v4.new_markdown_cell(_text(text), metadata=_nbgrader(
        grade_id, grade=False, solution=False, locked=True))
    cell.id = grade_id
    return cell


def setup(code, grade_id="setup"):
    """The locked code cell with the imports every later cell relies on."""
    cell = nbformat.v4.new_code_cell(_text(code), metadata=_nbgrader(
        grade_id, grade=False, solution=False, locked=True))
    cell.id = grade_id
    return cell


def answer(part, code):
    """The student's code cell; the body between the solution markers is removed on release."""
    grade_id = f"{part}_answer"
    cell = nbformat.v4.new_code_cell(_text(code), metadata=_nbgrader(
        grade_id, grade=False, solution=True, locked=False))
    cell.id = grade_id
    return cell


def check_cell(ps, part, func, points, what):
    """The locked, graded test cell of an auto-graded part."""
    unit = "point" if points == 1 else "points"
    code = (f'"""Checks {func}: {what} ({points} {unit})."""\n'
            "from coursegrader import check\n"
            f'check("{ps}", "{part}", {func})\n'
            "### BEGIN HIDDEN TESTS\n"
            f'check("{ps}", "{part}", {func}, hidden=True)\n'
            "### END HIDDEN TESTS")
    cell = nbformat.v4.new_code_cell(code, metadata=_nbgrader(
        part, grade=True, solution=False, locked=True, points=points))
    cell.id = part
    return cell


def written(grade_id, points, model_answer):
    """A manually graded markdown answer; the model answer is replaced on release."""
    text = "### BEGIN SOLUTION\n" + _text(model_answer) + "\n### END SOLUTION"
    cell = nbformat.v4.new_markdown_cell(text, metadata=_nbgrader(
        grade_id, grade=True, solution=True, locked=False, points=points))
    cell.id = grade_id
    return cell


def notebook(cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                       "name": "python3"},
        "language_info": {"name": "python"},
    }
    return nb


INSTRUCTIONS = """
**How to work.** Write code only inside the answer cells, replacing
`raise NotImplementedError()`; keep the function names and signatures. Run the
check cell under each answer: it calls your function on public cases and says
which input failed, what was expected and what your function returned. Written
answers go in the cells that say "YOUR ANSWER HERE" (Markdown and LaTeX).

**Rules for graded functions.** Use NumPy, SciPy and the standard library
only. The course library `kernlab` and scikit-learn are welcome for exploring
in a scratch notebook, but a graded function must not call them: the grader
runs your functions in a separate process in which importing them fails.
Graded functions must not depend on printed output or on global random state.

**Grading.** Each auto-graded part is re-run by the grader on the public cases
and on hidden cases with other random inputs; you earn the part's points in
proportion to the cases passed. Before you submit, restart the kernel, run all
cells, and run `nbgrader validate {ps}.ipynb`.
"""


# ================================================================= PS4


PS4_SETUP = """
import itertools
import math
from collections import Counter

import numpy as np
"""

PS4 = [
    markdown("ps4_intro", _text(r"""
    # Problem set 4: Building kernels

    Few useful kernels are written down from scratch. Most are assembled from
    simple ones with a short list of operations that keep a function positive
    semi-definite, or are defined as inner products of counts (how many
    subsets, how many substrings) that never have to be listed one by one.
    In this problem set you check the construction rules numerically,
    implement a kernel on sets, a kernel on strings and the ANOVA kernel on
    vectors (three kernels whose feature spaces are far too large to write
    out), and show by example that some natural-looking functions are not
    kernels.

    | Part | Task | Points |
    |---|---|---|
    | 1 | `combine_gram`: the closure rules on Gram matrices | 3 |
    | 2 | `set_kernel`: $2^{\lvert A\cap B\rvert}$ on sets | 2 |
    | 3 | `subset_features`: the feature map of the set kernel | 2 |
    | 4 | `spectrum_kernel`: the $p$-spectrum string kernel | 3 |
    | 5 | `anova_kernel`: the ANOVA kernel by a recursion | 3 |
    | 6 | `counterexample`: functions that are not kernels | 3 |
    | 7 | written: why the product rule holds | 3 |
    | 8 | written: ANOVA against polynomial features | 2 |
    |   | **total** | **21** |
    """) + "\n\n" + _text(INSTRUCTIONS.format(ps="ps4"))),
    setup(PS4_SETUP),

    # ------------------------------------------------------------ part 1
    markdown("combine_gram_task", r"""
    ## 1. Closure rules on Gram matrices (3 points)

    If $k_1$ and $k_2$ are kernels on a set $\mathcal X$, the following are
    kernels too: the sum $k_1 + k_2$; the multiple $a k_1$ for $a \ge 0$; the
    pointwise product $k_1 k_2$; the pointwise power $k_1^a$; any polynomial
    $\sum_j a_j k_1^j$ with coefficients $a_j \ge 0$; the exponential
    $e^{k_1}$; and the normalised kernel
    $k_1(x, t) / \sqrt{k_1(x, x)\, k_1(t, t)}$ when $k_1(x, x) > 0$ for all $x$.
    On a finite sample $x_1, \dots, x_m$ every one of these rules acts entry by
    entry on the Gram matrices $K_1 = (k_1(x_i, x_j))_{ij}$ and $K_2$.

    Write `combine_gram(rule, K1, K2, a)` that returns the $m \times m$ Gram
    matrix (a float array) of the new kernel on the same sample:

    | `rule` | new kernel | arguments used |
    |---|---|---|
    | `"sum"` | $k_1 + k_2$ | `K1`, `K2` |
    | `"scale"` | $a\,k_1$ | `K1`, `a` (a float $\ge 0$) |
    | `"product"` | $k_1 k_2$ | `K1`, `K2` |
    | `"power"` | $k_1^a$ | `K1`, `a` (an int $\ge 1$) |
    | `"poly"` | $\sum_{j} a_j k_1^j$ | `K1`, `a` (a list $[a_0, a_1, \dots]$ of floats $\ge 0$) |
    | `"exp"` | $e^{k_1}$ | `K1` |
    | `"normalise"` | $k_1(x,t)/\sqrt{k_1(x,x)k_1(t,t)}$ | `K1` (positive diagonal) |

    Arguments a rule does not use are passed as `None`. "Power" and
    "product" are pointwise: `np.linalg.matrix_power(K1, a)` and `K1 @ K2`
    are different matrices (question 7 asks why those are not Gram matrices
    of kernels in general). The checks compare your matrices with the kernel
    algebra of the course library applied to Gaussian, polynomial and linear
    kernels. Once your function works, look at `np.linalg.eigvalsh` of a few
    results: every rule keeps the smallest eigenvalue at or above zero, up to
    rounding.
    """),
    answer("combine_gram", r'''
    def combine_gram(rule, K1, K2=None, a=None):
        """Gram matrix of the kernel built from k1 (and k2) by ``rule``."""
        ### BEGIN SOLUTION
        K1 = np.asarray(K1, dtype=float)
        if rule == "sum":
            return K1 + np.asarray(K2, dtype=float)
        if rule == "scale":
            return float(a) * K1
        if rule == "product":
            return K1 * np.asarray(K2, dtype=float)
        if rule == "power":
            return K1 ** int(a)
        if rule == "poly":
            total = np.zeros_like(K1)
            power = np.ones_like(K1)          # k1 ** 0
            for coef in a:
                total += float(coef) * power
                power = power * K1
            return total
        if rule == "exp":
            return np.exp(K1)
        if rule == "normalise":
            scale = np.sqrt(np.diag(K1))
            return K1 / np.outer(scale, scale)
        raise ValueError(f"rule must be one of sum, scale, product, power, poly, exp, "
                         f"normalise; got {rule!r}")
        ### END SOLUTION
    '''),
    check_cell("ps4", "combine_gram", "combine_gram", 3,
               "every closure rule against the kernel algebra of kernlab"),

    # ------------------------------------------------------------ part 2
    markdown("set_kernel_task", r"""
    ## 2. A kernel on sets (2 points)

    Let $U$ be a finite set. Two subsets $A, B \subseteq U$ are compared by

    $$k(A, B) = 2^{\lvert A \cap B \rvert},$$

    which grows with the number of shared elements and equals $1$ when $A$
    and $B$ are disjoint. Write `set_kernel(As, Bs)`: `As` and `Bs` are lists
    of Python sets (of strings or integers, possibly empty) and the result is
    the float array of shape `(len(As), len(Bs))` with entries
    $k(A_i, B_j)$.
    """),
    answer("set_kernel", r'''
    def set_kernel(As, Bs):
        """Gram matrix 2 ** |A & B| between two lists of sets."""
        ### BEGIN SOLUTION
        K = np.empty((len(As), len(Bs)))
        for i, A in enumerate(As):
            for j, B in enumerate(Bs):
                K[i, j] = 2.0 ** len(set(A) & set(B))
        return K
        ### END SOLUTION
    '''),
    check_cell("ps4", "set_kernel", "set_kernel", 2,
               "2**|A & B| on lists of sets, including empty ones, against kernlab.SetKernel"),

    # ------------------------------------------------------------ part 3
    markdown("subset_features_task", r"""
    ## 3. The feature map of the set kernel (2 points)

    Why is $2^{\lvert A\cap B\rvert}$ a kernel? Give every subset
    $S \subseteq U$ one feature, $\phi_S(A) = 1$ if $S \subseteq A$ and $0$
    otherwise. Then $\langle \phi(A), \phi(B) \rangle$ counts the sets $S$
    contained in both $A$ and $B$, that is the subsets of $A \cap B$, and
    there are $2^{\lvert A\cap B\rvert}$ of them.

    Write `subset_features(A, universe)`. Here `universe` is a list of
    $n$ distinct items and `A` is a set of some of them. Return the float
    array of length $2^n$ whose entry $m$ is $\phi_S(A)$ for the set $S$ that
    contains `universe[i]` exactly when bit $i$ of $m$ is one (bit $0$ is the
    least significant). For instance, with `universe = ["a", "b"]` and
    `A = {"b"}`, the subsets are $m=0$: $\emptyset$, $m=1$: $\{a\}$, $m=2$:
    $\{b\}$, $m=3$: $\{a,b\}$, so the answer is `[1, 0, 1, 0]`.

    Check on a few examples that `subset_features(A, U) @ subset_features(B, U)` equals
    `set_kernel([A], [B])[0, 0]`. The feature vector has $2^n$ entries while
    the kernel costs a single set intersection: this is the kernel trick in
    its plainest form.
    """),
    answer("subset_features", r'''
    def subset_features(A, universe):
        """Indicator, for each subset S of ``universe`` (in binary order), of S being inside A."""
        ### BEGIN SOLUTION
        n = len(universe)
        inside = np.array([item in A for item in universe], dtype=bool)
        bits = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1   # row m: members of S
        # S is inside A when every member of S is in A
        return np.all(~bits.astype(bool) | inside[None, :], axis=1).astype(float)
        ### END SOLUTION
    '''),
    check_cell("ps4", "subset_features", "subset_features", 2,
               "the 2**n subset indicators, and their inner products against kernlab.SetKernel"),

    # ------------------------------------------------------------ part 4
    markdown("spectrum_kernel_task", r"""
    ## 4. The $p$-spectrum string kernel (3 points)

    For a string $s$ and a string $u$ of length $p$, let $\phi_u(s)$ be the
    number of positions $i$ with `s[i:i+p] == u`; overlapping occurrences
    count separately, so "aaa" contains "aa" twice. The $p$-spectrum kernel
    is the inner product of these counts,

    $$k_p(s, t) = \sum_{u \in \Sigma^p} \phi_u(s)\,\phi_u(t),$$

    a sum over all $\lvert\Sigma\rvert^p$ strings of length $p$ over the
    alphabet $\Sigma$, of which only the few that occur in both $s$ and $t$
    contribute. For example, with $p = 2$: "abab" contains ab twice and ba
    once, "bab" contains ba and ab once each, so
    $k_2(\text{abab}, \text{bab}) = 2\cdot 1 + 1 \cdot 1 = 3$.

    Write `spectrum_kernel(S, T, p)`: `S` and `T` are lists of strings, `p`
    an integer $\ge 1$; return the float array of shape `(len(S), len(T))`.
    A string shorter than $p$ has no substring of length $p$, so its row (or
    column) is zero. Count the substrings of each string once, with a
    dictionary or `Counter`; the work for one pair should grow with the
    lengths of the strings, not with $\lvert\Sigma\rvert^p$.
    """),
    answer("spectrum_kernel", r'''
    def spectrum_kernel(S, T, p):
        """Gram matrix of the p-spectrum kernel between two lists of strings."""
        ### BEGIN SOLUTION
        def counts(s):
            return Counter(s[i:i + p] for i in range(len(s) - p + 1))

        cs = [counts(s) for s in S]
        ct = [counts(t) for t in T]
        K = np.zeros((len(S), len(T)))
        for i, a in enumerate(cs):
            for j, b in enumerate(ct):
                small, large = (a, b) if len(a) <= len(b) else (b, a)
                K[i, j] = sum(n * large[u] for u, n in small.items() if u in large)
        return K
        ### END SOLUTION
    '''),
    check_cell("ps4", "spectrum_kernel", "spectrum_kernel", 3,
               "p-spectrum Gram matrices, short and repetitive strings included, against kernlab.Spectrum"),

    # ------------------------------------------------------------ part 5
    markdown("anova_kernel_task", r"""
    ## 5. The ANOVA kernel (3 points)

    For $x, t \in \mathbb{R}^n$ and an integer $d \ge 0$, the ANOVA kernel
    of degree $d$ sums, over all sets of $d$ distinct coordinates, the
    product of $x_i t_i$ over the set:

    $$k_d(x, t) = \sum_{1 \le i_1 < i_2 < \dots < i_d \le n} \;\prod_{r=1}^{d} x_{i_r} t_{i_r},
    \qquad k_0(x, t) = 1 .$$

    Its features are the products of $d$ distinct coordinates, and
    $\sum_{d=0}^n k_d(x,t) = \prod_{i=1}^n (1 + x_i t_i)$. For $d > n$ the sum
    is empty and $k_d = 0$. Written out, the sum has $\binom{n}{d}$ terms,
    which for $n = 40$, $d = 20$ is about $1.4 \times 10^{11}$. A recursion
    does it in $O(nd)$ operations: with $z_i = x_i t_i$, let $e_j^{(i)}$ be
    the degree-$j$ sum over the first $i$ coordinates only. Then

    $$e_0^{(i)} = 1, \qquad e_j^{(0)} = 0 \ (j \ge 1), \qquad
    e_j^{(i)} = e_j^{(i-1)} + z_i\, e_{j-1}^{(i-1)},$$

    (either coordinate $i$ is left out, or it is used and $j-1$ more are
    chosen among the first $i-1$), and $k_d(x, t) = e_d^{(n)}$.

    Write `anova_kernel(X, Y, d)` for `X` of shape `(m_X, n)`, `Y` of shape
    `(m_Y, n)` and an integer `d >= 0`, returning the `(m_X, m_Y)` float
    array of $k_d$ between the rows, computed with the recursion (you can
    run it for all pairs at once on the array `X[:, None, :] * Y[None, :, :]`).
    Some hidden cases have $n = 40$. With `d=None` return the all-subsets
    kernel $\prod_i (1 + x_i t_i)$ instead (this is what the course library
    calls `ANOVA()`).
    """),
    answer("anova_kernel", r'''
    def anova_kernel(X, Y, d):
        """Gram matrix of the degree-d ANOVA kernel between the rows of X and Y."""
        ### BEGIN SOLUTION
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float)
        Z = X[:, None, :] * Y[None, :, :]            # z_i for every pair, shape (m_X, m_Y, n)
        if d is None:
            return np.prod(1.0 + Z, axis=2)
        e = np.zeros((d + 1,) + Z.shape[:2])
        e[0] = 1.0
        for i in range(Z.shape[2]):
            # go down in j so that e[j - 1] still holds the value before coordinate i
            for j in range(min(d, i + 1), 0, -1):
                e[j] += Z[:, :, i] * e[j - 1]
        return e[d]
        ### END SOLUTION
    '''),
    check_cell("ps4", "anova_kernel", "anova_kernel", 3,
               "ANOVA Gram matrices of every degree, up to 40 coordinates, against kernlab.ANOVA"),

    # ------------------------------------------------------------ part 6
    markdown("counterexample_task", r"""
    ## 6. Functions that are not kernels (3 points)

    A symmetric function $k$ is a kernel only if every Gram matrix it makes is
    positive semi-definite, so one sample whose Gram matrix has a negative
    eigenvalue proves that $k$ is not a kernel. Find such a sample for each
    of these functions on $\mathbb{R}^2$:

    | `name` | $k(x, t)$ |
    |---|---|
    | `"x.t - (x.t)^2"` | $x^\top t - (x^\top t)^2$ |
    | `"x^T D t"` | $x^\top D t$ with $D = \begin{pmatrix} -1 & 2 \\ 2 & 4\end{pmatrix}$ |
    | `"norm(x - t)"` | $\lVert x - t \rVert$ (the Euclidean distance) |
    | `"exp(-x.t)"` | $e^{-x^\top t}$ |
    | `"max(x1, t1)"` | $\max(x_1, t_1)$ |

    Write `counterexample(name)` returning a float array of shape `(m, 2)`
    with $1 \le m \le 20$ rows (the points) and entries of absolute value at
    most 100, whose Gram matrix $(k(x_i, x_j))_{ij}$ has a negative
    eigenvalue that rounding cannot explain: below $-10^{-6}$ times the
    largest absolute eigenvalue.
    Small samples are best: think about which $1 \times 1$ or $2 \times 2$
    matrices cannot be PSD. (Compare the last function with $\min(x_1, t_1)$
    on $[0, \infty)$, which is a kernel.)
    """),
    answer("counterexample", r'''
    def counterexample(name):
        """Points in R^2 on which the function called ``name`` has a non-PSD Gram matrix."""
        ### BEGIN SOLUTION
        if name == "x.t - (x.t)^2":
            return np.array([[2.0, 0.0]])                 # k(x, x) = 4 - 16 < 0
        if name == "x^T D t":
            return np.array([[1.0, 0.0]])                 # k(e1, e1) = D[0, 0] = -1
        if name == "norm(x - t)":
            return np.array([[0.0, 0.0], [1.0, 0.0]])     # [[0, 1], [1, 0]] has eigenvalue -1
        if name == "exp(-x.t)":
            return np.array([[0.0, 0.0], [1.0, 0.0]])     # [[1, 1], [1, 1/e]] has determinant < 0
        if name == "max(x1, t1)":
            return np.array([[0.0, 0.0], [1.0, 0.0]])     # [[0, 1], [1, 1]] has determinant -1
        raise ValueError(f"unknown function name {name!r}")
        ### END SOLUTION
    '''),
    check_cell("ps4", "counterexample", "counterexample", 3,
               "each returned sample gives a Gram matrix with a negative eigenvalue"),

    # ------------------------------------------------------------ written
    markdown("closure_proof_task", r"""
    ## 7. Written: the product rule (3 points)

    (a) Prove that if $K_1$ and $K_2$ are positive semi-definite $m \times m$
    matrices, so is their entrywise product $K_1 \circ K_2$ (entries
    $(K_1)_{ij}(K_2)_{ij}$). Hint: write
    $K_2 = \sum_r \mu_r u_r u_r^\top$ with $\mu_r \ge 0$. Deduce that
    $k_1 k_2$, the powers $k_1^a$, polynomials with non-negative coefficients
    in $k_1$, and $e^{k_1}$ are kernels (for the last one, say which limit you
    take and why positive semi-definiteness survives it).

    (b) The ordinary matrix product $K_1 K_2$ of two PSD matrices need not
    be the Gram matrix of any kernel. Give an explicit $2 \times 2$ example
    and name the property that fails. Why is $k_1 - k_2$ not a kernel in
    general, even when both are?
    """),
    written("closure_proof", 3, r"""
    **(a)** Let $z \in \mathbb{R}^m$. With $K_2 = \sum_r \mu_r u_r u_r^\top$
    (eigendecomposition, $\mu_r \ge 0$) we have
    $(K_2)_{ij} = \sum_r \mu_r u_{ri} u_{rj}$, so

    $$z^\top (K_1 \circ K_2) z = \sum_{r} \mu_r \sum_{i,j} (z_i u_{ri}) (K_1)_{ij} (z_j u_{rj})
    = \sum_r \mu_r\, v_r^\top K_1 v_r \ge 0, \qquad v_r = z \circ u_r .$$

    On any sample the Gram matrix of $k_1 k_2$ is $K_1 \circ K_2$, hence PSD,
    so $k_1k_2$ is a kernel. By induction $k_1^a$ is a kernel ($k_1^0 = 1$ has
    Gram matrix $\mathbf 1 \mathbf 1^\top$, PSD). Non-negative multiples and
    sums of kernels are kernels, so $\sum_j a_j k_1^j$ with $a_j \ge 0$ is.
    Finally $e^{k_1} = \lim_{N\to\infty} \sum_{j \le N} k_1^j / j!$ pointwise;
    on a fixed sample the Gram matrices converge entrywise, and the limit of
    PSD matrices is PSD because $z^\top K z \ge 0$ is preserved under limits
    for each fixed $z$.

    **(b)** $K_1 = \begin{pmatrix} 1 & 1 \\ 1 & 1 \end{pmatrix}$ and
    $K_2 = \begin{pmatrix} 1 & 0 \\ 0 & 2 \end{pmatrix}$ are PSD but
    $K_1 K_2 = \begin{pmatrix} 1 & 2 \\ 1 & 2 \end{pmatrix}$ is not symmetric,
    and every Gram matrix of a kernel is symmetric. For the difference, take
    $k_2 = 2k_1$ with $k_1(x,x) > 0$: then $k_1 - k_2 = -k_1$ has a negative
    diagonal entry, a $1 \times 1$ Gram matrix that is not PSD. PSD matrices
    form a cone, closed under non-negative combinations but not differences.
    """),
    markdown("anova_features_task", r"""
    ## 8. Written: ANOVA against polynomial features (2 points)

    On $\mathbb{R}^n$ compare the all-subsets kernel
    $\prod_{i=1}^n (1 + x_i t_i) = \sum_{d=0}^n k_d(x,t)$ with the polynomial
    kernel $(1 + x^\top t)^n$. For each, which monomials in $x$ appear as
    features, with which weights, and how many features are there? Can a
    function $f(x) = \langle w, \phi(x) \rangle$ for the all-subsets kernel
    equal $x_1^2$? What does each kernel cost to evaluate?
    """),
    written("anova_features", 2, r"""
    The all-subsets kernel has one feature per subset $S \subseteq \{1..n\}$,
    $\phi_S(x) = \prod_{i \in S} x_i$, each with weight one: $2^n$ features,
    exactly the multilinear monomials (no coordinate appears twice). So no
    function in its feature space equals $x_1^2$; it can only represent
    multilinear polynomials.

    Expanding $(1 + x^\top t)^n$ with the multinomial theorem gives every
    monomial $x_1^{j_1}\cdots x_n^{j_n}$ of total degree at most $n$
    (squares included), weighted by
    $\sqrt{n!/(j_0!\,j_1!\cdots j_n!)}$ with $j_0 = n - \sum_i j_i$: there are
    $\binom{2n}{n}$ features, and the weights favour monomials that mix many
    coordinates. Both kernels cost $O(n)$ per pair although their feature
    spaces grow exponentially in $n$ (and $k_d$ alone costs $O(nd)$ with the
    recursion of part 5).
    """),
]


# ================================================================= PS5


PS5_SETUP = '''
import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import eval_hermite, gammaln


def gaussian_gram(X, Y, sigma):
    """Gram matrix exp(-||x - y||^2 / (2 sigma^2)) between the rows of X (n, d) and Y (m, d)."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    sq = (X ** 2).sum(axis=1)[:, None] + (Y ** 2).sum(axis=1)[None, :] - 2.0 * X @ Y.T
    return np.exp(-np.maximum(sq, 0.0) / (2.0 * sigma ** 2))


def kernel_gram(name, X, Y, param=None):
    """Gram matrix of a named kernel between the rows of X (n, d) and Y (m, d).

    "gaussian": exp(-||x - y||^2 / (2 param^2)); "linear": x.y; "quadratic": (x.y)^2.
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if name == "gaussian":
        return gaussian_gram(X, Y, param)
    if name == "linear":
        return X @ Y.T
    if name == "quadratic":
        return (X @ Y.T) ** 2
    raise ValueError(f"name must be 'gaussian', 'linear' or 'quadratic', got {name!r}")
'''

PS5 = [
    markdown("ps5_intro", _text(r"""
    # Problem set 5: Reproducing kernel Hilbert spaces

    Every kernel $k$ on a set $\mathcal X$ comes with a Hilbert space
    $\mathcal H$ of functions on $\mathcal X$, its RKHS, in which
    $k(\cdot, x)$ belongs to $\mathcal H$ for every $x$ and evaluation is an
    inner product: $f(x) = \langle f, k(\cdot, x)\rangle_{\mathcal H}$ (the
    reproducing property). This problem set computes in that space: inner
    products and norms of functions, the distance $\mathcal H$ induces on
    $\mathcal X$, the projection that drives the representer theorem, and
    the Mercer eigen-expansion of the Gaussian kernel.

    | Part | Task | Points |
    |---|---|---|
    | 1 | `rkhs_inner`: inner products of kernel expansions | 2 |
    | 2 | `rkhs_norm`: RKHS norms | 2 |
    | 3 | `kernel_distance`: the distance a kernel induces | 3 |
    | 4 | `project_onto_span`: the projection behind the representer theorem | 4 |
    | 5 | `mercer_eigenvalues`: the Gaussian kernel's eigenvalues | 2 |
    | 6 | `mercer_eigenfunctions`: and its eigenfunctions | 3 |
    | 7 | written: when is the kernel distance a metric? | 2 |
    | 8 | written: the representer theorem | 3 |
    |   | **total** | **21** |

    The setup cell defines two helpers you may call in your answers:
    `gaussian_gram(X, Y, sigma)` and `kernel_gram(name, X, Y, param)`.
    Points of $\mathbb{R}^d$ are rows of arrays of shape `(n, d)`.
    """) + "\n\n" + _text(INSTRUCTIONS.format(ps="ps5"))),
    setup(PS5_SETUP),

    # ------------------------------------------------------------ part 1
    markdown("rkhs_inner_task", r"""
    ## 1. Inner products in the RKHS (2 points)

    In parts 1, 2 and 4 the kernel is the Gaussian kernel
    $k(x, y) = \exp(-\lVert x - y\rVert^2 / (2\sigma^2))$ on $\mathbb{R}^d$.
    A function $f = \sum_{i=1}^n \alpha_i k(\cdot, x_i)$ is stored as its
    coefficients `alpha` (shape `(n,)`) and centres `X` (shape `(n, d)`).
    Write $k_x = k(\cdot, x)$. The reproducing property, applied to the
    function $k_y$ and evaluated at $x$, says that the inner product of two
    representers is the kernel, $\langle k_x, k_y\rangle_{\mathcal H} = k(x, y)$.
    Bilinearity then gives, for $g = \sum_j \beta_j k(\cdot, y_j)$,

    $$\langle f, g \rangle_{\mathcal H} = \sum_{i, j} \alpha_i \beta_j k(x_i, y_j)
    = \alpha^\top K_{XY} \beta .$$

    Write `rkhs_inner(alpha, X, beta, Y, sigma)` returning this number as a
    Python float. (A good sanity check: with `beta = [1.0]` and `Y` a single
    point $y$, the answer is $f(y)$.)
    """),
    answer("rkhs_inner", r'''
    def rkhs_inner(alpha, X, beta, Y, sigma):
        """<f, g> in the Gaussian RKHS for f = sum alpha_i k(., X_i), g = sum beta_j k(., Y_j)."""
        ### BEGIN SOLUTION
        alpha = np.asarray(alpha, dtype=float)
        beta = np.asarray(beta, dtype=float)
        return float(alpha @ gaussian_gram(X, Y, sigma) @ beta)
        ### END SOLUTION
    '''),
    check_cell("ps5", "rkhs_inner", "rkhs_inner", 2,
               "alpha^T K(X, Y) beta for Gaussian kernel expansions against kernlab.RKHSFunction"),

    # ------------------------------------------------------------ part 2
    markdown("rkhs_norm_task", r"""
    ## 2. RKHS norms (2 points)

    Write `rkhs_norm(alpha, X, sigma)` returning
    $\lVert f \rVert_{\mathcal H} = \sqrt{\alpha^\top K_{XX} \alpha}$ as a
    float. The same function can be written in many ways (a centre listed
    twice, coefficients that cancel), and the norm must not depend on the way
    it is written: for `alpha = [1, -1]` with two equal centres, $f = 0$ and
    the norm is $0$. In floating point $\alpha^\top K \alpha$ can then come
    out as a tiny negative number; return $0$ in that case, never `nan`.

    By Cauchy-Schwarz and the reproducing property,
    $\lvert f(x)\rvert \le \lVert f\rVert_{\mathcal H}\sqrt{k(x,x)}
    = \lVert f\rVert_{\mathcal H}$ for the Gaussian kernel: a small RKHS norm
    forces small values everywhere. Try it on a few random expansions.
    """),
    answer("rkhs_norm", r'''
    def rkhs_norm(alpha, X, sigma):
        """Norm of f = sum alpha_i k(., X_i) in the Gaussian RKHS."""
        ### BEGIN SOLUTION
        alpha = np.asarray(alpha, dtype=float)
        squared = float(alpha @ gaussian_gram(X, X, sigma) @ alpha)
        return float(np.sqrt(max(squared, 0.0)))
        ### END SOLUTION
    '''),
    check_cell("ps5", "rkhs_norm", "rkhs_norm", 2,
               "the RKHS norm, expansions of the zero function included, against kernlab.RKHSFunction"),

    # ------------------------------------------------------------ part 3
    markdown("kernel_distance_task", r"""
    ## 3. The distance induced by a kernel (3 points)

    Mapping each point to its representer $x \mapsto k(\cdot, x)$ and
    measuring in $\mathcal H$ gives

    $$d_k(x, y) = \lVert k(\cdot, x) - k(\cdot, y) \rVert_{\mathcal H}
    = \sqrt{k(x, x) + k(y, y) - 2k(x, y)} .$$

    It controls how fast functions of $\mathcal H$ can change:
    $\lvert f(x) - f(y)\rvert = \lvert\langle f, k(\cdot,x) - k(\cdot,y)\rangle\rvert
    \le \lVert f\rVert_{\mathcal H}\, d_k(x, y)$.

    Write `kernel_distance(X, Y, kernel, param)` returning the array of shape
    `(len(X), len(Y))` of $d_k$ between the rows of `X` and of `Y`, for the
    kernel `kernel` $\in$ {`"gaussian"`, `"linear"`, `"quadratic"`} with
    parameter `param` (the $\sigma$ of the Gaussian kernel; `None` for the
    others) as computed by `kernel_gram`. Rounding can make the expression
    under the root slightly negative when $x = y$; clip it at zero.
    Try the quadratic kernel on $x$ and $-x$: question 7 asks about it.
    """),
    answer("kernel_distance", r'''
    def kernel_distance(X, Y, kernel, param=None):
        """Matrix of d_k(X_i, Y_j) = ||k(., X_i) - k(., Y_j)|| in the RKHS of the named kernel."""
        ### BEGIN SOLUTION
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float)
        kxx = np.array([kernel_gram(kernel, x[None, :], x[None, :], param)[0, 0] for x in X])
        kyy = np.array([kernel_gram(kernel, y[None, :], y[None, :], param)[0, 0] for y in Y])
        squared = kxx[:, None] + kyy[None, :] - 2.0 * kernel_gram(kernel, X, Y, param)
        return np.sqrt(np.maximum(squared, 0.0))
        ### END SOLUTION
    '''),
    check_cell("ps5", "kernel_distance", "kernel_distance", 3,
               "d_k for Gaussian, linear and quadratic kernels against kernlab.kernel_distance"),

    # ------------------------------------------------------------ part 4
    markdown("project_onto_span_task", r"""
    ## 4. Projecting onto the span of the data (4 points)

    Let $f = \sum_{i=1}^n \alpha_i k(\cdot, x_i)$ and let $z_1, \dots, z_m$ be
    distinct points ("the data"). The functions $k(\cdot, z_j)$ span a
    subspace $M$ of $\mathcal H$, and the orthogonal projection
    $f_0 = \sum_j c_j k(\cdot, z_j)$ of $f$ onto $M$ is characterised by
    $\langle f - f_0, k(\cdot, z_j)\rangle_{\mathcal H} = 0$ for every $j$. By
    the reproducing property this says $f_0(z_j) = f(z_j)$, that is

    $$K_{ZZ}\, c = K_{ZX}\, \alpha .$$

    So $f_0$ agrees with $f$ at every data point, and, being a projection,
    $\lVert f_0\rVert_{\mathcal H} \le \lVert f\rVert_{\mathcal H}$: the part
    of $f$ orthogonal to $M$ is invisible to the data and only adds norm.
    This is the heart of the representer theorem (question 8).

    Write `project_onto_span(alpha, X, Z, sigma)` returning the coefficients
    $c$ (shape `(m,)`) for the Gaussian kernel. For distinct points $K_{ZZ}$
    is positive definite: solve with a Cholesky factorisation
    (`cho_factor`, `cho_solve`), not with a matrix inverse. The checks compare
    the values $K_{ZZ} c$ of your $f_0$ at the data with $f(z_j)$ and your
    $\lVert f_0 \rVert_{\mathcal H}$ with the exact one. Then use your
    `rkhs_norm` to see $\lVert f_0\rVert \le \lVert f\rVert$ on an example.
    """),
    answer("project_onto_span", r'''
    def project_onto_span(alpha, X, Z, sigma):
        """Coefficients c of the projection of sum alpha_i k(., X_i) onto span{k(., Z_j)}."""
        ### BEGIN SOLUTION
        alpha = np.asarray(alpha, dtype=float)
        rhs = gaussian_gram(Z, X, sigma) @ alpha          # f(z_j)
        factor = cho_factor(gaussian_gram(Z, Z, sigma))
        return cho_solve(factor, rhs)
        ### END SOLUTION
    '''),
    check_cell("ps5", "project_onto_span", "project_onto_span", 4,
               "f_0 interpolates f at the data and has the exact RKHS norm"),

    # ------------------------------------------------------------ part 5
    markdown("mercer_task", r"""
    ## 5-6. The Mercer expansion of the Gaussian kernel (2 + 3 points)

    On $\mathbb{R}$, weigh points by the normal distribution
    $\mu = \mathcal N(0, s^2)$ and let $k(x, y) = \exp(-(x-y)^2/(2\ell^2))$.
    The integral operator $(Tg)(x) = \int k(x, y)\, g(y)\, d\mu(y)$ has, in
    closed form, eigenvalues $\lambda_j$ and eigenfunctions $\phi_j$,
    orthonormal in $L^2(\mu)$, for $j = 0, 1, 2, \dots$. With

    $$a = \frac{1}{4s^2}, \quad b = \frac{1}{2\ell^2}, \quad c = \sqrt{a^2 + 2ab},
    \quad A = a + b + c, \quad B = \frac{b}{A},$$

    they are

    $$\lambda_j = \sqrt{\frac{2a}{A}}\, B^j, \qquad
    \phi_j(x) = \Big(\frac{c}{a}\Big)^{1/4} \frac{1}{\sqrt{2^j j!}}\,
    e^{-(c - a)x^2} H_j\big(\sqrt{2c}\, x\big),$$

    where $H_j$ is the Hermite polynomial with $H_0 = 1$, $H_1(u) = 2u$,
    $H_{j+1}(u) = 2u H_j(u) - 2j H_{j-1}(u)$ (`scipy.special.eval_hermite`).
    Mercer's theorem gives $k(x, y) = \sum_j \lambda_j \phi_j(x) \phi_j(y)$,
    and since $B < 1$ the eigenvalues decay geometrically: a few terms
    already describe the kernel well near the bulk of $\mu$. (Some texts
    print $\phi_j$ without the factor $(c/a)^{1/4}(2^j j!)^{-1/2}$; the
    functions are then orthogonal but not of norm one, and the expansion of
    $k$ fails.)

    **Part 5.** Write `mercer_eigenvalues(ell, s, n_terms)` returning the
    array $(\lambda_0, \dots, \lambda_{n\_terms - 1})$.

    **Part 6.** Write `mercer_eigenfunctions(x, ell, s, n_terms)` where `x`
    is a 1-D array of `n` real numbers (here a plain 1-D array, since the
    inputs are scalars), returning the `(n, n_terms)` array `Phi` with
    `Phi[i, j]` $= \phi_j(x_i)$. Compute $2^j j!$ through `gammaln` or the
    recursion, so that nothing overflows for `n_terms` up to 30.

    Then check Mercer's theorem yourself: `Phi @ np.diag(lam) @ Phi.T`
    should approach `gaussian_gram(x[:, None], x[:, None], ell)` as
    `n_terms` grows, quickly for small $\lvert x\rvert$ and slowly far out
    in the tails of $\mu$.
    """),
    answer("mercer_eigenvalues", r'''
    def mercer_eigenvalues(ell, s, n_terms):
        """Eigenvalues lambda_0..lambda_{n_terms-1} of the Gaussian kernel under N(0, s^2)."""
        ### BEGIN SOLUTION
        a = 1.0 / (4.0 * s ** 2)
        b = 1.0 / (2.0 * ell ** 2)
        c = np.sqrt(a ** 2 + 2.0 * a * b)
        A = a + b + c
        return np.sqrt(2.0 * a / A) * (b / A) ** np.arange(n_terms)
        ### END SOLUTION
    '''),
    check_cell("ps5", "mercer_eigenvalues", "mercer_eigenvalues", 2,
               "the closed-form eigenvalues against kernlab.gaussian_mercer_eigenvalues"),
    answer("mercer_eigenfunctions", r'''
    def mercer_eigenfunctions(x, ell, s, n_terms):
        """Matrix Phi[i, j] = phi_j(x_i) of orthonormal Gaussian-kernel eigenfunctions."""
        ### BEGIN SOLUTION
        x = np.asarray(x, dtype=float)
        a = 1.0 / (4.0 * s ** 2)
        b = 1.0 / (2.0 * ell ** 2)
        c = np.sqrt(a ** 2 + 2.0 * a * b)
        j = np.arange(n_terms)
        hermite = eval_hermite(j[None, :], np.sqrt(2.0 * c) * x[:, None])
        scale = (c / a) ** 0.25 * np.exp(-0.5 * (j * np.log(2.0) + gammaln(j + 1.0)))
        return np.exp(-(c - a) * x ** 2)[:, None] * hermite * scale[None, :]
        ### END SOLUTION
    '''),
    check_cell("ps5", "mercer_eigenfunctions", "mercer_eigenfunctions", 3,
               "the orthonormal eigenfunctions, up to 30 terms, against kernlab"),

    # ------------------------------------------------------------ written
    markdown("distance_metric_task", r"""
    ## 7. Written: when is $d_k$ a metric? (2 points)

    (a) Show that $d_k$ is symmetric and satisfies the triangle inequality
    for every kernel. (b) For the quadratic kernel $(x^\top y)^2$ find two
    different points with $d_k = 0$ (your part 3 can confirm it), and say in
    terms of the feature map when $d_k(x, y) = 0$ happens for $x \ne y$.
    (c) Show that for the Gaussian kernel $d_k(x, y) > 0$ whenever $x \ne y$,
    and use $\lvert f(x) - f(y)\rvert \le \lVert f\rVert_{\mathcal H} d_k(x,y)$
    to bound how fast a function of norm $1$ can change between two points
    at Euclidean distance $r$.
    """),
    written("distance_metric", 2, r"""
    (a) With $\Phi(x) = k(\cdot, x)$, $d_k(x, y) = \lVert \Phi(x) - \Phi(y)\rVert_{\mathcal H}$
    (expand the square and use $\langle \Phi(x), \Phi(y)\rangle = k(x,y)$).
    A norm of a difference is symmetric, and
    $\lVert \Phi(x) - \Phi(z)\rVert \le \lVert \Phi(x) - \Phi(y)\rVert + \lVert \Phi(y) - \Phi(z)\rVert$
    is the triangle inequality of the norm. So $d_k$ is always a pseudometric.

    (b) For $(x^\top y)^2$ a feature map is $\Phi(x) = x x^\top$ (entries
    $x_i x_j$), and $x$ and $-x$ have the same features: e.g. $x = (1, 0)$,
    $y = (-1, 0)$ give $1 + 1 - 2 = 0$. In general $d_k(x, y) = 0$ exactly
    when $\Phi(x) = \Phi(y)$, so $d_k$ is a metric iff the feature map is
    injective.

    (c) $d_k(x,y)^2 = 2 - 2e^{-\lVert x-y\rVert^2/(2\sigma^2)} > 0$ for $x \ne y$.
    Using $1 - e^{-u} \le u$, $d_k(x, y) \le \lVert x - y\rVert/\sigma$, so a
    function of norm $1$ satisfies $\lvert f(x) - f(y)\rvert \le r/\sigma$
    (and always $\le \sqrt 2$): it is $1/\sigma$-Lipschitz. A narrow kernel
    allows fast changes; the RKHS norm limits them.
    """),
    markdown("representer_task", r"""
    ## 8. Written: the representer theorem (3 points)

    Consider $\min_{f \in \mathcal H} \sum_{j=1}^m L\big(y_j, f(z_j)\big) + \Omega\big(\lVert f\rVert_{\mathcal H}^2\big)$
    for a loss $L$ and a strictly increasing $\Omega$. (a) Using the
    projection of part 4, explain why every minimiser lies in
    $\operatorname{span}\{k(\cdot, z_1), \dots, k(\cdot, z_m)\}$, and write the
    problem as a finite-dimensional one in $c \in \mathbb{R}^m$. (b) For the
    squared loss and $\Omega(u) = \lambda u$ with $\lambda > 0$, derive a
    linear system for $c$. (c) What can you still say if $\Omega$ is only
    non-decreasing?
    """),
    written("representer", 3, r"""
    (a) Split any $f$ as $f = f_0 + f_\perp$ with $f_0$ its projection onto
    $M = \operatorname{span}\{k(\cdot, z_j)\}$. By the reproducing property
    $f(z_j) = \langle f, k(\cdot, z_j)\rangle = f_0(z_j)$, so the loss term
    is the same for $f$ and $f_0$, while
    $\lVert f\rVert^2 = \lVert f_0\rVert^2 + \lVert f_\perp\rVert^2$ by
    Pythagoras. If $f_\perp \ne 0$, $\Omega$ strictly increasing makes $f_0$
    strictly better, so a minimiser has $f_\perp = 0$. With
    $f = \sum_j c_j k(\cdot, z_j)$ we get $f(z_i) = (Kc)_i$ and
    $\lVert f\rVert^2 = c^\top K c$: minimise
    $\sum_i L(y_i, (Kc)_i) + \Omega(c^\top K c)$ over $c \in \mathbb{R}^m$.

    (b) $\lVert y - Kc\rVert^2 + \lambda c^\top K c$ has gradient
    $-2K(y - Kc) + 2\lambda K c = 2K\big((K + \lambda I)c - y\big)$, which
    vanishes for $c = (K + \lambda I)^{-1} y$ ($K + \lambda I$ is positive
    definite). Any other stationary $c$ differs by a vector in the null space
    of $K$, which gives the same function $f$.

    (c) Then $f_0$ is at least as good as $f$, so some minimiser lies in the
    span (if a minimiser exists), but there may be others outside it.
    """),
]


def check_points(name, cells):
    """Compare the points in the test cells with coursegrader's PARTS; return a list of problems."""
    from coursegrader.spec import get_parts

    parts = get_parts(name)
    problems = []
    graded = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
              for c in cells if c.cell_type == "code" and c.metadata["nbgrader"]["grade"]}
    for part_id, part in parts.items():
        if part_id not in graded:
            problems.append(f"{name}: part {part_id} has no test cell")
        elif graded[part_id] != part.points:
            problems.append(f"{name}: {part_id} is worth {part.points} in PARTS "
                            f"but {graded[part_id]} in the notebook")
    problems += [f"{name}: test cell {g} is not a part of PARTS" for g in graded if g not in parts]
    return problems


def main(argv):
    targets = {"ps4": PS4, "ps5": PS5}
    if argv[:1] == ["--check"]:
        problems = [p for name in sorted(targets) for p in check_points(name, targets[name])]
        print("\n".join(problems) or "points agree with coursegrader")
        return 1 if problems else 0
    wanted = argv or sorted(targets)
    for name in wanted:
        nb = notebook(targets[name])
        nbformat.validate(nb)
        path = SOURCE / name / f"{name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
