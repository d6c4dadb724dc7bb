"""Problem set 5: the soft-margin support vector machine, dual and primal.

The soft-margin dual, for a Gram matrix K, labels y in {-1, +1} and a box C > 0:

    maximise    Q(alpha) = sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j K_ij
    subject to  0 <= alpha_i <= C,  sum_i alpha_i y_i = 0.

Its solution need not be unique when K is singular, so a student's dual is
judged by feasibility and by its objective value against the optimum that
``kernlab.SVC`` reaches; the same goes for the hinge-loss primal, whose optimum
is Q*/C when lam = 1/(2C).

The intercept and support-vector parts receive kernlab's optimal multipliers,
polished so that the free ones satisfy the KKT equations exactly, and are
judged against the rule the notebook states, which fixes the tolerance 1e-6 C
and the midpoint used when no multiplier is free (a convention rather than a
consequence of the mathematics). The grader works that rule out with numpy;
here the public cases' expected values come as data (``answers.json``).

Part 4, the decision function, is on each student's own Gaussian kernel: its
width sigma is the student's variant (``VARIANT``).  The parts judged by
``answers.json`` do not vary: they take no width, and their one finite
parameter, C, is an argument of their own, so varying it would stop nothing
a student cannot do alone.
"""

import numpy as np

import kernlab
from coursecheck.parts import Case, Part, public_answers, allclose, float_array, log_uniform
from coursecheck.variants import Variation, outside

__all__ = ["PARTS", "VARIANT", "dual_objective", "hinge_objective", "free_tolerance"]


# ---------------------------------------------------------------- mathematics


def dual_objective(K, t, a):
    """Q(a) = sum(a) - 1/2 (a*t)^T K (a*t), the dual objective at multipliers a and labels t."""
    v = a * t
    return float(np.sum(a) - 0.5 * v @ K @ v)


def hinge_objective(K, t, c, b, lam):
    """sum_i max(0, 1 - t_i ((K c)_i + b)) + lam c^T K c."""
    f = K @ c + b
    return float(np.sum(np.maximum(0.0, 1.0 - t * f)) + lam * c @ K @ c)


def free_tolerance(C):
    """A multiplier counts as 0 below this and as C above C minus this."""
    return 1e-6 * C


def svm_alpha(K, t, C):
    """Optimal dual multipliers from kernlab.SVC, polished (see _polish)."""
    model = kernlab.SVC(kernel="precomputed", C=C).fit(K, t)
    return _polish(K, t, np.asarray(model.alpha_, dtype=float), C)


def _polish(K, t, a, C):
    """Snap near-bound multipliers onto 0 or C and re-solve the free ones exactly.

    With the bound multipliers fixed, the free ones and b solve the linear
    KKT system  t_j (g_j + b) = 1 for free j,  sum_i a_i t_i = 0.  Solving it
    removes the solver's rounding, so that t_j - g_j is the same number for
    every free j and any correct way of reading off b gives the same answer.
    A free multiplier that the exact solve pushes out of (0, C) is moved to
    the nearer bound and the system solved again; if that does not settle
    within a few rounds, or costs dual objective, the snapped solution is kept.
    """
    a = np.clip(a, 0.0, C)
    best = dual_objective(K, t, a)
    a[a < 1e-5 * C] = 0.0
    a[a > C - 1e-5 * C] = C
    Q = (t[:, None] * t[None, :]) * K
    polished = a.copy()
    for _ in range(5):
        free = (polished > 0) & (polished < C)
        if not free.any():
            break
        F, B = np.flatnonzero(free), np.flatnonzero(~free)
        m = len(F)
        lhs = np.zeros((m + 1, m + 1))
        lhs[:m, :m] = Q[np.ix_(F, F)]
        lhs[:m, m] = t[F]
        lhs[m, :m] = t[F]
        rhs = np.concatenate([1.0 - Q[np.ix_(F, B)] @ polished[B], [-(t[B] @ polished[B])]])
        sol, *_ = np.linalg.lstsq(lhs, rhs, rcond=None)
        if not np.allclose(lhs @ sol, rhs, rtol=0.0, atol=1e-10 * max(1.0, np.abs(rhs).max())):
            return a
        polished[F] = sol[:m]
        out = (polished[F] <= 1e-5 * C) | (polished[F] >= C - 1e-5 * C)
        if not out.any():
            if dual_objective(K, t, polished) >= best - 1e-7 * max(1.0, abs(best)):
                return polished
            return a
        polished[F[out]] = np.where(polished[F[out]] < 0.5 * C, 0.0, C)
    return a


# ---------------------------------------------------------------- data


def blobs(rng, n, d, gap):
    """n points in R^d, half around +gap/2 e_1 with t=+1 and half around -gap/2 e_1 with t=-1."""
    t = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    rng.shuffle(t)
    X = rng.normal(size=(n, d))
    X[:, 0] += 0.5 * gap * t
    return X, t


def _gram(name, X, Y=None):
    kernels = {
        "linear": kernlab.Linear(),
        "quadratic": kernlab.Polynomial(degree=2, c=1.0),
        "gaussian": kernlab.Gaussian(sigma=1.0),
    }
    return kernels[name](X, Y)


def _scalar(got, what):
    """Return (float, None) for a single finite number (a 0-d or 1-element array counts), else (None, message)."""
    if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, float, np.integer, np.floating, np.ndarray)):
        return None, f"expected {what} to be a float, got {type(got).__name__}"
    value = np.asarray(got)
    if value.dtype.kind not in "iuf":
        return None, f"expected {what} to be a float, got an array of dtype {value.dtype}"
    if value.shape not in ((), (1,)):
        return None, f"expected {what} to be a single number, got an array of shape {value.shape}"
    value = float(value.reshape(()))
    if not np.isfinite(value):
        return None, f"{what} is nan or inf"
    return value, None


def _scalar_close(rtol, atol):
    def compare(got, expected, case):
        value, msg = _scalar(got, "the answer")
        if msg:
            return msg
        if not np.isclose(value, expected, rtol=rtol, atol=atol):
            return f"expected {expected:.10g}, got {value:.10g}"
        return None

    return compare


def training_cases(rng, count):
    """Random (K, t, C) triples: kernel, size, overlap and box drawn from rng."""
    cases = []
    for _ in range(count):
        n, d = int(rng.integers(8, 31)), int(rng.integers(2, 5))
        name = ["linear", "quadratic", "gaussian"][int(rng.integers(3))]
        X, t = blobs(rng, n, d, gap=float(rng.uniform(1.0, 4.0)))
        if name == "quadratic":
            X = X / np.sqrt(d)
        C = log_uniform(rng, 0.1, 10.0)
        cases.append((_gram(name, X), t, C, f"{n} random points in R^{d}, {name} kernel, C={C:.3g}"))
    return cases


def _public_training():
    """Fixed (K, t, C, label) tuples shared by the dual, intercept and primal parts."""
    rng = np.random.default_rng(301)
    X, t = blobs(rng, 20, 2, gap=3.0)
    Xo, to = blobs(rng, 16, 2, gap=1.0)
    ring = rng.normal(size=(24, 2))
    tr = np.where(np.linalg.norm(ring, axis=1) > 1.1, 1.0, -1.0)
    four = np.array([[1.0, 1.0], [2.0, 2.0], [-1.0, -1.0], [-2.0, -1.0]])
    return [
        (_gram("linear", four), np.array([1.0, 1.0, -1.0, -1.0]), 10.0, "four separable points, linear kernel, C=10"),
        (_gram("linear", X), t, 1.0, "20 points in two well separated clouds, linear kernel, C=1"),
        (_gram("linear", Xo), to, 0.5, "16 points in two overlapping clouds, linear kernel, C=0.5"),
        (_gram("gaussian", ring), tr, 5.0, "24 points, outside/inside a circle, Gaussian kernel sigma=1, C=5"),
    ]


# ---------------------------------------------------------------- 1. the dual


def _svm_dual_public():
    return [Case(args=(K, t, C), label=label) for K, t, C, label in _public_training()]


def _svm_dual_reference(K, t, C):
    return dual_objective(K, t, svm_alpha(K, t, C))


def _svm_dual_compare(got, best, case):
    K, t, C = case.args
    a, msg = float_array(got, "alpha", shape=t.shape)
    if msg:
        return msg
    tol = 1e-6 * max(1.0, C)
    if a.min() < -tol or a.max() > C + tol:
        return f"alpha must lie in [0, C] = [0, {C:.6g}]; yours ranges over [{a.min():.6g}, {a.max():.6g}]"
    if abs(a @ t) > tol * len(t):
        return f"the constraint sum(alpha * y) = 0 fails: yours is {a @ t:.3g}"
    value = dual_objective(K, t, a)
    # "not >=" so that a NaN objective (an overflow inside K @ alpha) fails too
    if not value >= best - 1e-6 * max(1.0, abs(best)):
        return f"alpha is feasible but not optimal: dual objective expected {best:.8g}, got {value:.8g}"
    return None


# ---------------------------------------------------------------- 2. the intercept


def with_alpha(K, t, C, label):
    return Case(args=(K, t, svm_alpha(K, t, C), C), label=label)


def _svm_intercept_public():
    cases = [with_alpha(K, t, C, label) for K, t, C, label in _public_training()]
    # a tiny box: every multiplier sits at C and the intercept comes from the KKT interval
    K, t, _, _ = _public_training()[2]
    cases.append(with_alpha(K, t, 1e-3, "16 overlapping points, linear kernel, C=0.001 (no free multiplier)"))
    return cases


# ---------------------------------------------------------------- 3. support vectors


def _support_compare(got, expected, case):
    if isinstance(got, dict) or not isinstance(got, (tuple, list)) or len(got) != 2:
        return f"expected a pair (margin, bound) of index arrays, got {type(got).__name__}"
    for name, value in zip(("margin", "bound"), got):
        try:
            idx = np.asarray(value)
        except (TypeError, ValueError):
            return f"{name} is not an array of indices"
        if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
            return f"{name} should be a 1-D array of integer indices, got dtype {idx.dtype} and shape {idx.shape}"
        want = expected[name]
        if idx.shape != want.shape or not np.array_equal(idx, want):
            return f"{name} indices: expected {want.tolist()}, got {idx.tolist()}"
    return None


def _support_public():
    cases = [Case(args=(np.array([0.0, 0.5, 1.0, 0.0, 1.0, 0.2]), 1.0), label="hand-made alpha, C=1")]
    for K, t, C, label in _public_training()[1:]:
        cases.append(Case(args=(svm_alpha(K, t, C), C), label=f"optimal alpha for: {label}"))
    return cases


# ---------------------------------------------------------------- 4. decision function
#
# Each student's variant gives the Gaussian kernel of part 4 its own width
# sigma, so that decision values worked out for a classmate's width are judged
# against the student's own kernel.

#: the widths a variant is drawn from: log-uniform on [SIGMA_LOW, SIGMA_HIGH],
#: to two decimals
SIGMA_LOW, SIGMA_HIGH = 0.5, 2.0


def _draw(rng):
    """One variant: the width sigma of the Gaussian kernel of part 4."""
    return {"sigma": round(log_uniform(rng, SIGMA_LOW, SIGMA_HIGH), 2)}


def _holds(v):
    """None when sigma is a width in its range."""
    return outside("sigma", v["sigma"], SIGMA_LOW, SIGMA_HIGH)


VARIANT = Variation(draw=_draw, check=_holds)


def _decision_reference(v, X, t, a, b, X_new):
    return kernlab.Gaussian(sigma=v["sigma"])(X_new, X) @ (a * t) + b


def _decision_public(v):
    rng = np.random.default_rng(304)
    X, t = blobs(rng, 12, 2, gap=2.0)
    a = rng.uniform(0, 1, size=12)
    return [
        Case(args=(np.array([[0.0, 0.0]]), np.array([1.0]), np.array([2.0]), -0.5,
                   np.array([[0.0, 0.0], [1.0, 0.0]])),
             label="one training point at the origin, alpha=2, b=-0.5 "
                   "(answers 1.5 and 2exp(-1/(2 sigma^2))-0.5)"),
        Case(args=(X, t, a, 0.3, rng.normal(size=(5, 2))), label="12 training points, 5 new points"),
        Case(args=(X, t, a, 0.0, X), label="same data evaluated at the training points"),
    ]


# ---------------------------------------------------------------- 5. hinge objective


def _hinge_public():
    rng = np.random.default_rng(305)
    K, t, _, _ = _public_training()[1]
    c = 0.1 * rng.normal(size=len(t))
    return [
        Case(args=(np.eye(2), np.array([1.0, -1.0]), np.zeros(2), 0.0, 1.0), label="a = 0 and b = 0: every margin is 0, objective 2"),
        Case(args=(np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([1.0, -1.0]), np.array([1.0, -1.0]), 0.5, 0.25),
             label="2x2 Gram matrix, a=(1,-1), b=0.5, lam=0.25 (objective 1)"),
        Case(args=(K, t, c, 0.2, 0.1), label="20 points, random a, b=0.2, lam=0.1"),
    ]


# ---------------------------------------------------------------- 6. the kernelised primal


def _primal_reference(K, t, lam):
    C = 1.0 / (2.0 * lam)
    return dual_objective(K, t, svm_alpha(K, t, C)) / C


def _primal_compare(got, best, case):
    K, t, lam = case.args
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return f"expected a pair (a, b), got {type(got).__name__}"
    c, msg = float_array(got[0], "c", shape=t.shape)
    if msg:
        return msg
    b, msg = _scalar(got[1], "b")
    if msg:
        return msg
    with np.errstate(over="ignore", invalid="ignore"):
        value = hinge_objective(K, t, c, b, lam)
    if not np.isfinite(value):
        return ("your (a, b) gives no finite objective: K a overflows; "
                "a minimiser has coefficients of a sensible size")
    if not value <= best + 1e-5 * max(1.0, abs(best)):
        return f"your (a, b) is not a minimiser: objective expected {best:.8g}, got {value:.8g}"
    return None


def _primal_public():
    return [Case(args=(K, t, 1.0 / (2.0 * C)), label=f"{label.rsplit(', C=', 1)[0]}, lam={1.0 / (2.0 * C):.3g}")
            for K, t, C, label in _public_training()]


# ---------------------------------------------------------------- parts

PARTS = {
    "svm_dual": Part(
        func="svm_dual", points=4,
        sections=("svm-dual", "svm-kernelised-dual"),
        description="alpha is feasible and maximises the dual objective",
        public=_svm_dual_public, reference=_svm_dual_reference, compare=_svm_dual_compare,
    ),
    "svm_intercept": Part(
        func="svm_intercept", points=3,
        sections=("svm-kkt",),
        description="b from the KKT conditions",
        public=_svm_intercept_public, answers=public_answers("ps5", "svm_intercept"), compare=_scalar_close(rtol=1e-6, atol=1e-8),
    ),
    "support_vectors": Part(
        func="support_vectors", points=2,
        sections=("svm-kkt", "svm-dual"),
        description="indices of the margin and the bounded support vectors",
        public=_support_public, answers=public_answers("ps5", "support_vectors"), compare=_support_compare,
    ),
    "svm_decision": Part(
        func="svm_decision", points=3, varies=True,
        sections=("svm-kernelised-dual", "kt-rbf"),
        description="decision values with your variant's Gaussian kernel",
        public=_decision_public, reference=_decision_reference, compare=allclose(rtol=1e-7, atol=1e-9),
    ),
    "hinge_objective": Part(
        func="hinge_objective", points=2,
        sections=("svm-soft-margin", "svm-kernelised-primal"),
        description="the value of the kernelised hinge-loss objective",
        public=_hinge_public, reference=hinge_objective, compare=_scalar_close(rtol=1e-8, atol=1e-10),
    ),
    "svm_primal": Part(
        func="svm_primal", points=3,
        sections=("svm-kernelised-primal",),
        description="(a, b) minimises the hinge-loss objective",
        public=_primal_public, reference=_primal_reference, compare=_primal_compare,
    ),
}
