"""Problem set 1: feature maps and kernel validity.

Parts (grade ids):

* ``quadratic_map`` -- ``quadratic_feature_map(X)``: a map R^2 -> R^6 whose
  inner products reproduce (c + <x, z>)^2, c the variant's;
* ``multinomial_map`` -- ``multinomial_feature_map(X, p)``: the map with
  C(d+p, p) coordinates for (1 + <x, z>)^p on R^d;
* ``kernel_verdicts`` -- ``is_kernel(name)``: which of the variant's sixteen
  candidate functions are positive semi-definite kernels;
* ``counterexample`` -- ``witness(name, P)``: on a sample ``P`` of points on
  which a candidate that is not a kernel fails, the unit vector a that makes
  sum_ij a_i a_j k(p_i, p_j) smallest (the witness that it fails there).

A feature map is not unique (coordinates can be permuted or rotated), so the
maps are judged by their inner products against kernlab's polynomial kernel,
not entry by entry: within a call, and between the rows of separate calls on
other points (``Case.separately``), since any factorisation of one call's Gram
matrix passes every check within that call, and only a map x -> phi(x), whose
row for a point does not depend on the other points, passes between calls.  The
grader makes the separate calls in a fresh process: rows fitted to the points
the function saw in earlier calls pass in one process and fail there.  The verdicts are the whole answer of part 3, so this
module has none: in the notebook a verdict is only checked to be a bool, and
the grader judges it with its own reference (``hidden/ps1.py``).
"""

from math import comb

import numpy as np

from coursecheck.parts import Case, Part, equal, witness_fault
from coursecheck.variants import Variation

__all__ = ["KINDS", "ALWAYS_NOT", "candidate", "candidate_gram", "formula", "sample_fault",
           "draw_sample", "VARIANT", "PARTS"]

# ------------------------------------------------------------------ the variant
#
# Part 1's constant c, and part 3's sixteen candidates: one of each kind below
# (two of "x^T B z"), under the neutral names K1 ... K16 in an order of the
# variant's, each with parameters of the variant's.  For most kinds a sign (or
# a choice of two) decides whether the candidate is a kernel; the verdicts are
# the grader's (``hidden/ps1.py``), never this module's.  Part 4's samples: three
# points for each candidate whose kind is never a kernel, on which it clearly
# fails.  The answer to a sample is the unit vector a that makes
# sum_ij a_i a_j k(p_i, p_j) smallest, a value of the sample, so no fixed answer
# fits every variant (as a set of points that defeats every kind did, when the
# part asked for points).

#: the kinds of candidate, each a function of its parameters (see :func:`candidate`)
KINDS = ("x^T B z", "x^T B z", "exp(a x_i z_i)", "x.z + s (x.z)^2", "(x.z + s)^p",
         "exp(-g |x - z|^2)", "a |x - z|", "s - |x - z|^2", "x.z + s", "a x.z", "w.x + w.z",
         "cos(x_i + s z_i)", "max(v.x, v.z)", "min or max of |x_i|, |z_i|", "|x| |z| + s",
         "(x.z)^p")
#: the kinds that are not kernels whatever their parameters: part 4's public cases
ALWAYS_NOT = ("a |x - z|", "s - |x - z|^2", "w.x + w.z", "max(v.x, v.z)")
#: the magnitudes of a, s, g (each drawn with either sign where the sign decides)
SIZES = (0.5, 1.0, 2.0)
#: the unit directions w, v
DIRECTIONS = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))
#: part 1's c: two decimals, log-uniform on [C_LOW, C_HIGH], at least C_GAP away from 1,
#: and never a multiple of 0.05 (a round number a student writes for other reasons,
#: which the similarity check would take for a classmate's c)
C_LOW, C_HIGH, C_GAP = 0.25, 4.0, 0.05
#: part 4's samples: three points, coordinates in [-LIMIT, LIMIT] with two decimals
SAMPLE_SIZE, LIMIT = 3, 2.0
#: on every sample the smallest eigenvalue of the Gram matrix is below -MARGIN times
#: the largest absolute one, and at least MARGIN times it below the next (so that the
#: witness is one line, +-a, and no rounding decides)
MARGIN = 0.05
#: how close to the smallest value an answer's sum must come, relative to the
#: largest absolute eigenvalue
TOLERANCE = 1e-5


def _num(x):
    """A parameter as the formula shows it: 2 for 2.0, 0.5 for 0.5."""
    return f"{x:g}"


def _times(a, term):
    """a times term, as text: "term" for 1, "-term" for -1, "2 term" otherwise."""
    return {1.0: term, -1.0: f"-{term}"}.get(a, f"{_num(a)} {term}")


def _signed(term, s):
    return f"{term} + {_num(s)}" if s > 0 else f"{term} - {_num(-s)}"


def _direction(w):
    """w.x for a unit direction of :data:`DIRECTIONS`, as text: x1, -x2, ..."""
    i = 0 if w[0] else 1
    return ("" if w[i] > 0 else "-") + f"x{i + 1}", ("" if w[i] > 0 else "-") + f"z{i + 1}"


def formula(spec):
    """The candidate ``spec`` (an entry of ``V["candidates"]``) as readable text."""
    kind = spec["kind"]
    if kind == "x^T B z":
        return f"x^T B z with B = {spec['B']}"
    if kind == "exp(a x_i z_i)":
        i = spec["i"] + 1
        return f"exp({_times(spec['a'], f'x{i} z{i}')})"
    if kind == "x.z + s (x.z)^2":
        return f"<x, z> {'+' if spec['s'] > 0 else '-'} {_times(abs(spec['s']), '<x, z>^2')}"
    if kind == "(x.z + s)^p":
        return f"({_signed('<x, z>', spec['s'])})^{spec['p']}"
    if kind == "exp(-g |x - z|^2)":
        return f"exp({_times(-spec['g'], '|x - z|^2')})"
    if kind == "a |x - z|":
        return _times(spec["a"], "|x - z|")
    if kind == "s - |x - z|^2":
        return f"{_num(spec['s'])} - |x - z|^2"
    if kind == "x.z + s":
        return _signed("<x, z>", spec["s"])
    if kind == "a x.z":
        return _times(spec["a"], "<x, z>")
    if kind == "w.x + w.z":
        wx, wz = _direction(spec["w"])
        return f"{wx} + {wz}".replace("+ -", "- ")
    if kind == "cos(x_i + s z_i)":
        i = spec["i"] + 1
        return f"cos(x{i} {'+' if spec['s'] > 0 else '-'} z{i})"
    if kind == "max(v.x, v.z)":
        return "max({}, {})".format(*_direction(spec["v"]))
    if kind == "min or max of |x_i|, |z_i|":
        i = spec["i"] + 1
        return f"{spec['op']}(|x{i}|, |z{i}|)"
    if kind == "|x| |z| + s":
        return _signed("|x| |z|", spec["s"])
    if kind == "(x.z)^p":
        return f"<x, z>^{spec['p']}"
    raise ValueError(f"unknown kind of candidate {kind!r}")


def candidate(spec):
    """k(x, z) of the candidate ``spec``, for two points of R^2 (1-D arrays of length 2)."""
    kind = spec["kind"]
    get = spec.get
    if kind == "x^T B z":
        B = np.asarray(spec["B"], dtype=float)
        return lambda x, z: float(x @ B @ z)
    if kind == "exp(a x_i z_i)":
        a, i = get("a"), get("i")
        return lambda x, z: float(np.exp(a * x[i] * z[i]))
    if kind == "x.z + s (x.z)^2":
        s = get("s")
        return lambda x, z: float(x @ z + s * (x @ z) ** 2)
    if kind == "(x.z + s)^p":
        s, p = get("s"), get("p")
        return lambda x, z: float((x @ z + s) ** p)
    if kind == "exp(-g |x - z|^2)":
        g = get("g")
        return lambda x, z: float(np.exp(-g * np.sum((x - z) ** 2)))
    if kind == "a |x - z|":
        a = get("a")
        return lambda x, z: float(a * np.sqrt(np.sum((x - z) ** 2)))
    if kind == "s - |x - z|^2":
        s = get("s")
        return lambda x, z: float(s - np.sum((x - z) ** 2))
    if kind == "x.z + s":
        s = get("s")
        return lambda x, z: float(x @ z + s)
    if kind == "a x.z":
        a = get("a")
        return lambda x, z: float(a * (x @ z))
    if kind == "w.x + w.z":
        w = np.asarray(spec["w"], dtype=float)
        return lambda x, z: float(w @ x + w @ z)
    if kind == "cos(x_i + s z_i)":
        i, s = get("i"), get("s")
        return lambda x, z: float(np.cos(x[i] + s * z[i]))
    if kind == "max(v.x, v.z)":
        v = np.asarray(spec["v"], dtype=float)
        return lambda x, z: float(max(v @ x, v @ z))
    if kind == "min or max of |x_i|, |z_i|":
        i, op = get("i"), (min if spec["op"] == "min" else max)
        return lambda x, z: float(op(abs(x[i]), abs(z[i])))
    if kind == "|x| |z| + s":
        s = get("s")
        return lambda x, z: float(np.linalg.norm(x) * np.linalg.norm(z) + s)
    if kind == "(x.z)^p":
        p = get("p")
        return lambda x, z: float((x @ z) ** p)
    raise ValueError(f"unknown kind of candidate {kind!r}")


def _sized(rng, signed=True):
    size = float(SIZES[int(rng.integers(len(SIZES)))])
    return size * (1.0 if not signed or rng.random() < 0.5 else -1.0)


def _matrix(rng):
    """A symmetric integer 2 x 2 matrix, PSD (singular or not) or clearly not (half each)."""
    want_psd = rng.random() < 0.5
    while True:
        a, d = (int(v) for v in rng.integers(-2, 6, size=2))
        b = int(rng.integers(-3, 4))
        psd = a >= 0 and d >= 0 and a * d - b * b >= 0
        low = np.linalg.eigvalsh(np.array([[a, b], [b, d]], dtype=float))[0]
        if psd == want_psd and (psd or low <= -0.5):
            return [[a, b], [b, d]]


def _spec(rng, kind):
    spec = {"kind": kind}
    if kind == "x^T B z":
        spec["B"] = _matrix(rng)
    elif kind == "exp(a x_i z_i)":
        spec.update(a=_sized(rng), i=int(rng.integers(2)))
    elif kind in ("x.z + s (x.z)^2", "x.z + s", "|x| |z| + s"):
        spec["s"] = _sized(rng)
    elif kind == "(x.z + s)^p":
        spec.update(s=_sized(rng), p=int(rng.integers(2, 4)))
    elif kind == "exp(-g |x - z|^2)":
        spec["g"] = _sized(rng)
    elif kind in ("a |x - z|", "a x.z"):
        spec["a"] = _sized(rng, signed=kind == "a x.z")
    elif kind == "s - |x - z|^2":
        spec["s"] = _sized(rng, signed=False)
    elif kind == "w.x + w.z":
        spec["w"] = list(DIRECTIONS[int(rng.integers(len(DIRECTIONS)))])
    elif kind == "cos(x_i + s z_i)":
        spec.update(i=int(rng.integers(2)), s=float(rng.choice([-1.0, 1.0])))
    elif kind == "max(v.x, v.z)":
        spec["v"] = list(DIRECTIONS[int(rng.integers(len(DIRECTIONS)))])
    elif kind == "min or max of |x_i|, |z_i|":
        spec.update(i=int(rng.integers(2)), op=str(rng.choice(["min", "max"])))
    elif kind == "(x.z)^p":
        spec["p"] = int(rng.integers(2, 6))
    return spec


def _draw_c(rng):
    while True:
        c = round(float(np.exp(rng.uniform(np.log(C_LOW), np.log(C_HIGH)))), 2)
        if abs(c - 1.0) >= C_GAP and C_LOW <= c <= C_HIGH and not _round(c):
            return c


def _round(c):
    """Whether ``c`` is a multiple of 0.05."""
    return round(c * 100) % 5 == 0


def _gram(spec, X):
    k = candidate(spec)
    X = np.asarray(X, dtype=float)
    return np.array([[k(p, q) for q in X] for p in X])


def sample_fault(spec, X):
    """None when the Gram matrix of the candidate ``spec`` on the points ``X`` has a
    clearly negative smallest eigenvalue, alone on its line; else what is wrong."""
    values = np.linalg.eigvalsh(_gram(spec, X))
    low, second, scale = values[0], values[1], np.abs(values).max()
    if not low < -MARGIN * scale:
        return (f"the Gram matrix of {spec['name']} on {X} is not clearly indefinite "
                f"(smallest eigenvalue {low:.3g})")
    if not second - low > MARGIN * scale:
        return (f"the smallest eigenvalue of {spec['name']} on {X} is not clearly alone "
                f"({low:.3g}, {second:.3g})")
    return None


def draw_sample(rng, spec):
    """Three points on which the candidate ``spec`` (not a kernel) clearly fails."""
    for _ in range(2000):
        X = rng.uniform(-LIMIT, LIMIT, size=(SAMPLE_SIZE, 2)).round(2)
        if sample_fault(spec, X) is None:
            return X.tolist()
    raise RuntimeError(f"no sample found for {spec}")   # a bug in this module, never a student's


def _draw(rng):
    """One variant: part 1's c, part 3's sixteen candidates, named in a random order, and
    part 4's sample of each candidate whose kind is never a kernel."""
    c = _draw_c(rng)
    specs = [_spec(rng, kind) for kind in KINDS]
    order = rng.permutation(len(specs))
    candidates = []
    for n, i in enumerate(order, 1):
        spec = {"name": f"K{n}", **specs[i]}
        spec["formula"] = formula(spec)
        candidates.append(spec)
    # drawn last, so that c and the candidates are what they were before part 4 had samples
    samples = {s["name"]: draw_sample(rng, s) for s in candidates if s["kind"] in ALWAYS_NOT}
    return {"c": c, "candidates": candidates, "samples": samples}


def _holds(v):
    """None when c and every candidate's parameters are in the range part 3's arguments hold on."""
    c = v["c"]
    if not (isinstance(c, float) and C_LOW <= c <= C_HIGH and abs(c - 1.0) >= C_GAP
            and round(c, 2) == c and not _round(c)):
        return (f"c = {c!r} must be in [{C_LOW}, {C_HIGH}], at least {C_GAP} away from 1, "
                "with two decimals and not a multiple of 0.05")
    specs = v["candidates"]
    if [s["name"] for s in specs] != [f"K{n}" for n in range(1, len(KINDS) + 1)]:
        return "the candidates must be named K1 ... K16 in order"
    if sorted(s["kind"] for s in specs) != sorted(KINDS):
        return "the candidates must be one of each kind (two of x^T B z)"
    for s in specs:
        for key in ("a", "s", "g"):
            if key in s and not (abs(s[key]) in SIZES
                                 or (s["kind"] == "cos(x_i + s z_i)" and abs(s[key]) == 1.0)):
                return f"{s['name']}: {key} = {s[key]!r} must be one of +-{SIZES}"
        if s["kind"] in ("a |x - z|", "s - |x - z|^2") and not s.get("a", s.get("s")) > 0:
            return f"{s['name']}: its parameter must be positive"
        if s["kind"] == "x^T B z":
            B = np.asarray(s["B"], dtype=float)
            if not (np.array_equal(B, B.T) and np.array_equal(B, np.round(B))):
                return f"{s['name']}: B = {s['B']} must be a symmetric integer matrix"
            low = np.linalg.eigvalsh(B)[0]
            if -0.5 < low < 0 or (low >= 0 and not (B[0, 0] >= 0 and B[1, 1] >= 0
                                                    and np.linalg.det(B) >= -1e-9)):
                return f"{s['name']}: B = {s['B']} must be PSD or clearly indefinite"
        for key in ("w", "v"):
            if key in s and tuple(s[key]) not in DIRECTIONS:
                return f"{s['name']}: {key} = {s[key]} must be one of {DIRECTIONS}"
        if s["formula"] != formula(s):
            return f"{s['name']}: its formula must read {formula(s)!r}"
    never = {s["name"]: s for s in specs if s["kind"] in ALWAYS_NOT}
    if sorted(v["samples"]) != sorted(never):
        return (f"samples = {sorted(v['samples'])} must give one sample to each candidate "
                f"of a kind that is never a kernel, {sorted(never)}")
    for name, X in v["samples"].items():
        X = np.asarray(X, dtype=float)
        if X.shape != (SAMPLE_SIZE, 2) or np.abs(X).max() > LIMIT:
            return f"the sample of {name} must be {SAMPLE_SIZE} points of [-{LIMIT}, {LIMIT}]^2"
        fault = sample_fault(never[name], X)
        if fault:
            return fault
    return None


VARIANT = Variation(draw=_draw, check=_holds)


def _specs(v):
    return {s["name"]: s for s in v["candidates"]}


def candidate_gram(v, name, P):
    """Gram matrix of candidate ``name`` of variant ``v`` on the rows of ``P``, via kernlab."""
    import kernlab
    return kernlab.FunctionKernel(candidate(_specs(v)[name]))(np.asarray(P, dtype=float))


def _inner_mismatch(G, K, first, second):
    """None if the inner products ``G`` of rows equal the kernel's ``K`` up to rounding,
    else a message naming the worst pair: rows of call ``first`` against rows of call
    ``second`` (the same call, or two of a case's separate calls)."""
    scale = max(1.0, float(np.max(np.abs(K))))
    err = np.abs(G - K)
    if np.all(err <= 1e-8 * scale):
        return None
    i, j = np.unravel_index(int(np.argmax(err)), err.shape)
    if first == second:
        where = "" if first == 1 else f" (call {first})"
        return (f"<phi(x_{i}), phi(x_{j})> = {G[i, j]:.6g} but the kernel gives "
                f"k(x_{i}, x_{j}) = {K[i, j]:.6g}{where}")
    return (f"row {i} of call {first} and row {j} of call {second} have inner product "
            f"{G[i, j]:.6g} but the kernel between their points gives {K[i, j]:.6g}: "
            "row i must be phi(x_i) whatever the other points of the call")


def _check_map(got, X, n_cols):
    arr = np.asarray(got) if isinstance(got, (np.ndarray, list, tuple)) else None
    if arr is None or arr.dtype.kind not in "biuf":
        return f"expected an array of shape ({X.shape[0]}, {n_cols}), got {type(got).__name__}"
    if arr.shape != (X.shape[0], n_cols):
        return f"expected shape ({X.shape[0]}, {n_cols}), got {arr.shape}"
    if not np.all(np.isfinite(arr)):
        return "the feature map contains nan or inf"
    return None


def _map_fault(got, case, n_cols, kernel):
    """None when the answer of each of the case's calls is the rows phi(x) of its points
    (``n_cols`` finite coordinates each) and the inner products of rows, within one
    call and between separate calls, are ``kernel(X, Y)``; else what is wrong.

    The rows of one call alone are any factorisation of that call's Gram matrix (its
    eigenvectors, say), whatever a point's row would be among other points; only rows
    of separate calls show a map x -> phi(x).  A map's coordinates may be ordered or
    rotated as the student likes, the same in every call: inner products do not change.
    """
    calls = [np.asarray(args[0], dtype=float) for args in case.calls]
    answers = got if case.separately else (got,)
    rows = []
    for n, (X, answer) in enumerate(zip(calls, answers), 1):
        message = _check_map(answer, X, n_cols)
        if message:
            return message if n == 1 and not case.separately else f"call {n}: {message}"
        rows.append(np.asarray(answer, dtype=float))
    for a in range(len(calls)):
        for b in range(a, len(calls)):
            message = _inner_mismatch(rows[a] @ rows[b].T, kernel(calls[a], calls[b]),
                                      a + 1, b + 1)
            if message:
                return message
    return None


def _verify_quadratic(v, got, case):
    import kernlab
    return _map_fault(got, case, 6, kernlab.Polynomial(degree=2, c=v["c"]))


def _verify_multinomial(got, case):
    import kernlab
    X, p = case.args
    if any(other[1] != p for other in case.separately):  # a bug in this module
        raise ValueError(f"case {case.label!r}: every call must have the same p")
    return _map_fault(got, case, comb(X.shape[1] + p, p), kernlab.Polynomial(degree=p, c=1.0))


def _verify_verdict(v, got, case):
    """All the notebook can check: a verdict is a bool (the grader judges which)."""
    if not isinstance(got, (bool, np.bool_)):
        return f"expected True or False, got {got!r}"
    return None


def _verify_witness(v, got, case):
    """Whether ``got`` is the unit vector a making sum_ij a_i a_j k(p_i, p_j) smallest."""
    name, X = case.args
    return witness_fault(got, candidate_gram(v, name, X), name, tolerance=TOLERANCE)


def _quad_public(v):
    X = np.array([[1.0, 2.0], [0.0, 0.0], [-1.5, 0.5], [3.0, -2.0]])
    x = np.array([[0.5, -4.0]])
    Y = np.array([[2.0, 1.0], [0.5, -4.0], [-1.0, -1.0]])
    return [Case(args=(X,), separately=tuple((X[i:i + 1],) for i in range(len(X))),
                 label="4 points in R^2 (one at the origin), then each alone"),
            Case(args=(x,), separately=((Y,),),
                 label="a single point (shape (1, 2)), then 3 points with it")]


def _multi_public():
    rng = np.random.default_rng(101)
    cases = []
    for n, d, p in ((5, 2, 2), (4, 3, 3), (3, 1, 4), (2, 4, 1)):
        X = rng.normal(size=(n, d))
        Y = np.vstack([rng.normal(size=(2, d)), X[-1:]])
        cases.append(Case(args=(X, p), separately=((X[:1], p), (Y, p)),
                          label=f"{n} points in R^{d}, p={p}, then the first alone, "
                                "then 3 points with the last"))
    return cases


def _verdict_public(v):
    # the label is the neutral name alone, the same question in every variant, so that
    # the similarity check can compare two students' verdicts case by case (the
    # formula is the variant's, printed by the notebook's cell of candidates)
    return [Case(args=(s["name"],), label=f"{s['name']} (a bool; the grader judges it)")
            for s in v["candidates"]]


def _known_verdicts(v):
    # part 4 samples the four candidates of the kinds that are never kernels, by name
    return {c.label for c in _verdict_public(v) if c.args[0] in v["samples"]}


def _witness_public(v):
    return [Case(args=(s["name"], v["samples"][s["name"]]),
                 label=f"{s['name']} = {s['formula']} on your sample")
            for s in v["candidates"] if s["kind"] in ALWAYS_NOT]


PARTS = {
    "quadratic_map": Part(
        func="quadratic_feature_map", points=2,
        sections=("kt-polynomial-features", "kt-polynomial"),
        description="its inner products equal (c + <x, z>)^2, c your variant's, "
                    "between rows of separate calls too",
        public=_quad_public, verify=_verify_quadratic, varies=True,
    ),
    "multinomial_map": Part(
        func="multinomial_feature_map", points=3,
        sections=("bk-polynomials", "kt-polynomial"),
        description="shape (n, C(d+p, p)) and inner products equal (1 + <x, z>)^p, "
                    "between rows of separate calls too",
        public=_multi_public, verify=_verify_multinomial,
    ),
    "kernel_verdicts": Part(
        func="is_kernel", points=2,
        sections=("kt-when-kernel", "reg-closure"),
        description="the verdict for each of your variant's sixteen candidates",
        public=_verdict_public, verify=_verify_verdict, compare=equal(), varies=True,
        withheld=True, verdict=True, known_verdicts=_known_verdicts,
    ),
    "counterexample": Part(
        func="witness", points=3,
        sections=("kt-when-kernel",),
        description="on each sample, the unit vector a making sum_ij a_i a_j k(p_i, p_j) "
                    "smallest",
        public=_witness_public, verify=_verify_witness, varies=True,
    ),
}
