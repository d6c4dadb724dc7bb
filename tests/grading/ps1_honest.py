"""Answers to ps1 written independently, in the styles different students write in.

Each student's answers are {grade id: cell source}: the four code parts and
the two written ones. They are data for the similarity check's
false-positive measurement: no two of them may be flagged. They were written
from the problem text alone, each by a different approach (vectorised or
loop by loop, tables or rules, a library's eigensolver or an iteration
written out, short or verbose, proofs by
feature maps or by Gram matrices); all pass the public checks.
"""

BOB = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    """Explicit features of the degree-2 inhomogeneous polynomial kernel."""
    X = np.array(X, dtype=float)
    c = V["c"]
    out = []
    for a, b in X:
        out.append([c, (2 * c) ** 0.5 * a, (2 * c) ** 0.5 * b, a * a, b * b, 2 ** 0.5 * a * b])
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
SIGN_DECIDES = {"exp(a x_i z_i)": "a", "a x.z": "a", "x.z + s": "s", "|x| |z| + s": "s",
                "x.z + s (x.z)^2": "s", "(x.z + s)^p": "s", "exp(-g |x - z|^2)": "g"}
ALWAYS = {"(x.z)^p"}
NEVER = {"a |x - z|", "s - |x - z|^2", "w.x + w.z", "max(v.x, v.z)"}

def is_kernel(name):
    spec = next(s for s in V["candidates"] if s["name"] == name)
    kind = spec["kind"]
    if kind in ALWAYS:
        return True
    elif kind in NEVER:
        return False
    elif kind in SIGN_DECIDES:
        return spec[SIGN_DECIDES[kind]] > 0
    elif kind == "x^T B z":
        B = np.array(spec["B"], dtype=float)
        return bool(B[0, 0] >= 0 and B[1, 1] >= 0 and np.linalg.det(B) >= -1e-9)
    elif kind == "cos(x_i + s z_i)":
        return spec["s"] == -1
    elif kind == "min or max of |x_i|, |z_i|":
        return spec["op"] == "min"
    raise ValueError("no such candidate: " + str(name))
''',
    "counterexample_answer": '''\
def witness(name, P):
    P = np.asarray(P, dtype=float)
    k = CANDIDATES[name]
    K = np.array([[k(p, q) for q in P] for p in P])
    vals, vecs = np.linalg.eigh(K)
    return vecs[:, np.argmin(vals)]
''',
    "validity_arguments": '''\
**B_diag** is a kernel: $x^T B_1 z = x_1 z_1 + 5 x_2 z_2$, which is the dot product
of $(x_1, \\sqrt{5} x_2)$ with $(z_1, \\sqrt{5} z_2)$.

**B_indefinite** is not. Take the single point $(1,0)$: the 1x1 Gram matrix is
$B_2[0,0] = -1$, a negative number, so the matrix is not PSD.

**exp_first** is a kernel because the exponential is a power series with positive
coefficients: $\\exp(x_1 z_1) = \\sum_n \\frac{(x_1 z_1)^n}{n!}$, and each term is a
product of $x_1^n/\\sqrt{n!}$ and $z_1^n/\\sqrt{n!}$, giving infinitely many features.

**lin_minus_sq** is not: for the point $(3, 0)$ we get $9 - 81 = -72$ on the diagonal.
''',
    "closure_proofs": '''\
(a) Define $\\psi(x) = \\phi(Ax)$. Then $\\langle\\psi(x),\\psi(z)\\rangle = \\langle\\phi(Ax),\\phi(Az)\\rangle = K(Ax,Az)$,
so the new function has a feature map and is a kernel.

(b) Define $\\psi(x) = f(x)\\phi(x)$; scalars come out of the inner product:
$\\langle f(x)\\phi(x), f(z)\\phi(z)\\rangle = f(x)f(z)K(x,z)$. Again a feature map exists.
''',
}

CAROL = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    X = np.atleast_2d(np.asarray(X, float))
    k = V["c"]
    c = math.sqrt(2)
    first, second = X.T
    feats = np.empty((X.shape[0], 6))
    feats[:, 0] = k
    feats[:, 1], feats[:, 2] = math.sqrt(2 * k) * first, math.sqrt(2 * k) * second
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
    # power iteration on shift*I - K, whose largest eigenvalue is K's smallest
    shift = np.abs(K).sum(axis=1).max() + 1.0
    M = shift * np.eye(n) - K
    a = np.linspace(1.0, 2.0, n) + 0.37 * np.arange(n) ** 2
    a /= np.linalg.norm(a)
    for _ in range(6000):
        a = M @ a
        a /= np.linalg.norm(a)
    return a
''',
    "validity_arguments": '''\
1. B_diag. Since $B_1 = \\mathrm{diag}(1, 5)$ has a square root $\\mathrm{diag}(1,\\sqrt5)$,
   $K(x,z) = (B_1^{1/2}x)^\\top(B_1^{1/2}z)$. Feature map $x \\mapsto B_1^{1/2} x$. Kernel.
2. B_indefinite. Its eigenvalues are $\\frac{3\\pm\\sqrt{41}}{2}$; let $v$ be the eigenvector of
   the negative one and use the single point $v$: $K(v,v) = v^\\top B_2 v < 0$. Not a kernel.
3. exp_first. $x_1z_1$ is a kernel, and a limit of polynomials in a kernel with
   non-negative coefficients is a kernel; the features are $\\phi_k(x)=x_1^k/\\sqrt{k!}$ for $k=0,1,2,\\dots$
4. lin_minus_sq. On the diagonal $K(x,x)=\\|x\\|^2(1-\\|x\\|^2)$, negative as soon as
   $\\|x\\|>1$; e.g. $x=(0,2)$ gives $-12$. Not a kernel.
''',
    "closure_proofs": '''\
Let $x_1,\\dots,x_m$ be points and $c\\in\\mathbb R^m$.

(a) $\\sum_{ij} c_i c_j K(Ax_i, Ax_j) \\ge 0$ because $Ax_1,\\dots,Ax_m$ are just other points
and $K$ is PSD on every finite set.

(b) $\\sum_{ij} c_i c_j f(x_i)K(x_i,x_j)f(x_j) = \\sum_{ij} d_i d_j K(x_i,x_j)\\ge 0$ with $d_i = c_i f(x_i)$.
Symmetry is clear in both cases.
''',
}

DORA = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    # phi(x) = (c, sqrt(2c) x1, sqrt(2c) x2, x1^2, x2^2, sqrt2 x1 x2)
    c0 = V["c"]
    rows = []
    for point in X:
        x1 = float(point[0])
        x2 = float(point[1])
        r2 = math.sqrt(2.0)
        r2c = math.sqrt(2.0 * c0)
        rows.append([c0, r2c * x1, r2c * x2, x1 * x1, x2 * x2, r2 * x1 * x2])
    result = np.zeros((len(rows), 6))
    for i in range(len(rows)):
        result[i, :] = rows[i]
    return result
''',
    "multinomial_map_answer": '''\
def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    # every exponent vector (j_1..j_d) with sum <= p; j_0 = p - sum
    exps = []
    def grow(prefix, left):
        if len(prefix) == d:
            exps.append(prefix)
            return
        for e in range(left + 1):
            grow(prefix + [e], left - e)
    grow([], p)
    out = np.ones((n, len(exps)))
    for col, js in enumerate(exps):
        j0 = p - sum(js)
        weight = math.factorial(p) / math.factorial(j0)
        for i in range(d):
            weight = weight / math.factorial(js[i])
            out[:, col] = out[:, col] * X[:, i] ** js[i]
        out[:, col] = out[:, col] * math.sqrt(weight)
    return out
''',
    "kernel_verdicts_answer": '''\
def is_kernel(name):
    by_name = {}
    for spec in V["candidates"]:
        by_name[spec["name"]] = spec
    if name not in by_name:
        raise ValueError("unknown name " + repr(name))
    p = by_name[name]
    answers = dict(
        psd_matrix=lambda: min(np.linalg.eigvals(np.array(p["B"])).real) > -1e-9,
        positive_a=lambda: p.get("a", 0) > 0,
        positive_s=lambda: p.get("s", 0) > 0,
        positive_g=lambda: p.get("g", 0) > 0,
        cos_minus=lambda: p.get("s", 0) < 0,
        is_min=lambda: p.get("op") == "min",
        yes=lambda: True,
        no=lambda: False,
    )
    rule = {"x^T B z": "psd_matrix", "exp(a x_i z_i)": "positive_a", "a x.z": "positive_a",
            "x.z + s (x.z)^2": "positive_s", "(x.z + s)^p": "positive_s",
            "x.z + s": "positive_s", "|x| |z| + s": "positive_s",
            "exp(-g |x - z|^2)": "positive_g", "cos(x_i + s z_i)": "cos_minus",
            "min or max of |x_i|, |z_i|": "is_min", "(x.z)^p": "yes"}.get(p["kind"], "no")
    return bool(answers[rule]())
''',
    "counterexample_answer": '''\
def witness(name, P):
    G = gram(name, np.array(P, dtype=float))
    G = (G + G.T) / 2
    w, U = np.linalg.eig(G)
    j = int(np.argmin(w.real))
    u = np.real(U[:, j])
    return u / np.linalg.norm(u)
''',
    "validity_arguments": '''\
B_diag -- yes. Write $\\phi(x) = (x_1, \\sqrt{5}\\,x_2)$; then $\\phi(x)\\cdot\\phi(z) = x_1z_1+5x_2z_2 = x^\\top B_1 z$.

B_indefinite -- no. Points $x^{(1)} = (1,0)$ and $x^{(2)} = (0,1)$ give the Gram matrix
$\\begin{pmatrix}-1 & 2\\\\ 2 & 4\\end{pmatrix}$ whose determinant is $-8<0$, so one eigenvalue is negative.

exp_first -- yes, with $\\phi(x) = (1, x_1, x_1^2/\\sqrt{2}, x_1^3/\\sqrt{6}, \\dots)$ from the Taylor series of exp.

lin_minus_sq -- no. The point $(1,1)$: $K = 2 - 4 = -2$, a one by one Gram matrix that is negative.
''',
    "closure_proofs": '''\
For (a): the function $x\\mapsto\\phi(Ax)$ is a feature map of $K(Ax,Az)$ since
$K(Ax,Az)=\\phi(Ax)^\\top\\phi(Az)$ by definition of $\\phi$.

For (b): multiply the feature map by $f$. $g(x)=f(x)\\phi(x)$ satisfies
$g(x)^\\top g(z) = f(x)f(z)\\,\\phi(x)^\\top\\phi(z)$, which is the function we want.
Having a feature map means being a kernel.
''',
}

EMIL = {
    "quadratic_map_answer": '''\
SQRT2 = 2 ** 0.5


def quadratic_feature_map(X):
    X = np.asarray(X, dtype=np.float64).reshape(-1, 2)
    c = V["c"]
    prod = X[:, :1] * X[:, 1:]
    return np.hstack([np.full((X.shape[0], 1), c), (2 * c) ** 0.5 * X, X ** 2, SQRT2 * prod])
''',
    "multinomial_map_answer": '''\
from collections import Counter


def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=np.float64)
    Xt = np.hstack([np.ones((X.shape[0], 1)), X])
    features = []
    for idx in itertools.combinations_with_replacement(range(Xt.shape[1]), int(p)):
        counts = Counter(idx)
        denom = 1
        for k in counts.values():
            denom *= math.factorial(k)
        scale = (math.factorial(int(p)) / denom) ** 0.5
        col = scale * np.ones(X.shape[0])
        for i in idx:
            col = col * Xt[:, i]
        features.append(col)
    return np.vstack(features).T
''',
    "kernel_verdicts_answer": '''\
def is_kernel(name):
    # kernels: closure rules (sums, products, exp, composition) or explicit features
    if name not in CANDIDATES:
        raise ValueError("not a candidate: %s" % name)
    spec = [s for s in V["candidates"] if s["name"] == name][0]
    k = spec["kind"]
    if k.startswith("x^T B"):
        return bool(np.all(np.linalg.eigvalsh(np.array(spec["B"], float)) > -1e-10))
    if k.startswith("cos"):
        return spec["s"] < 0
    if k.startswith("min or max"):
        return spec["op"] == "min"
    if k == "(x.z)^p":
        return True
    for key in ("a", "s", "g"):
        if key in spec and k not in ("a |x - z|", "s - |x - z|^2"):
            return spec[key] > 0
    return False
''',
    "counterexample_answer": '''\
def witness(name, P):
    K = gram(name, P)
    lam = np.linalg.eigvalsh(K)[0]
    # inverse iteration just below the smallest eigenvalue: two solves suffice
    A = K - (lam - 1e-9 * max(1.0, abs(lam))) * np.eye(len(K))
    x = np.linalg.solve(A, np.arange(1.0, len(K) + 1.0) ** 1.5)
    x = np.linalg.solve(A, x)
    return x / np.linalg.norm(x)
''',
    "validity_arguments": '''\
- $B_1$ is symmetric with positive eigenvalues 1 and 5, so $x^T B_1 z$ is an inner product
  (weighted dot product) and B_diag is a kernel, feature map $(x_1,\\sqrt5 x_2)$.
- $B_2$ has a negative diagonal entry $-1$; evaluating at $e_1$ yields $K(e_1,e_1)=-1<0$,
  so B_indefinite cannot be a kernel.
- exp_first: products and sums of kernels are kernels, so every polynomial $\\sum_{k\\le N} (x_1z_1)^k/k!$
  is a kernel, and the pointwise limit stays PSD. Features: $x_1^k/\\sqrt{k!}$.
- lin_minus_sq: with $x=(1.5,0)$, $K(x,x) = 2.25 - 5.0625 < 0$. Not a kernel.
''',
    "closure_proofs": '''\
(a) Gram matrix of the new function on points $x_i$ equals the Gram matrix of $K$ on
the points $Ax_i$, which is positive semidefinite because K is a kernel.

(b) Its Gram matrix is $DGD$ where $G$ is the Gram matrix of $K$ and $D$ the diagonal matrix of the values
$f(x_i)$. For any vector $c$, $c^T DGD c = (Dc)^T G (Dc) \\geq 0$, so it is PSD; it is symmetric too.
''',
}

FAY = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    a = X[:, 0]
    b = X[:, 1]
    const = V["c"]
    F = np.zeros((n, 6))
    F[:, 0] = const
    F[:, 1] = a * np.sqrt(2 * const)
    F[:, 2] = b * np.sqrt(2 * const)
    F[:, 3] = a ** 2
    F[:, 4] = b ** 2
    F[:, 5] = a * b * np.sqrt(2)
    return F
''',
    "multinomial_map_answer": '''\
def _multi_indices(d, p):
    if d == 0:
        return [()] if p == 0 else []
    res = []
    for k in range(p + 1):
        for rest in _multi_indices(d - 1, p - k):
            res.append((k,) + rest)
    return res


def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    idx = _multi_indices(d + 1, p)
    Phi = np.empty((n, len(idx)))
    for c, js in enumerate(idx):
        coef = math.factorial(p)
        for j in js:
            coef = coef / math.factorial(j)
        mono = np.ones(n)
        for i in range(d):
            mono *= X[:, i] ** js[i + 1]
        Phi[:, c] = np.sqrt(coef) * mono
    return Phi
''',
    "kernel_verdicts_answer": '''\
def is_kernel(name):
    if name not in CANDIDATES:
        raise ValueError(name)
    spec = next(s for s in V["candidates"] if s["name"] == name)
    kind = spec["kind"]
    # failing examples I found by hand, whatever the numbers in them
    never = ("a |x - z|", "s - |x - z|^2", "w.x + w.z", "max(v.x, v.z)")
    if kind in never:
        return False
    if kind == "x^T B z":
        b = spec["B"]
        return b[0][0] >= 0 and b[1][1] >= 0 and b[0][0] * b[1][1] >= b[0][1] ** 2
    if kind == "cos(x_i + s z_i)":
        return spec["s"] < 0
    if kind == "min or max of |x_i|, |z_i|":
        return spec["op"] == "min"
    # everything else I could prove is a kernel once the sign in it is positive
    sign = spec.get("a", spec.get("s", spec.get("g", 1.0)))
    return not (sign < 0)
''',
    "counterexample_answer": '''\
def witness(name, P):
    """The top eigenvector of -K is the bottom one of K."""
    neg = -gram(name, P)
    values, vectors = np.linalg.eigh(neg)
    a = vectors[:, -1]
    return a if a[np.argmax(np.abs(a))] > 0 else -a
''',
    "validity_arguments": '''\
B_diag: kernel. For points $x_1..x_m$ the Gram matrix is $X B_1 X^T$ and
$c^T X B_1 X^T c = (X^Tc)^T B_1 (X^Tc) \\ge 0$ since $B_1$ is positive definite.

B_indefinite: not a kernel; with $v=(1,-0.7)$... simpler, the point $(1,0)$ alone gives $-1$.

exp_first: kernel, since $e^{t}$ has a Taylor expansion with nonnegative coefficients and
$t = x_1 z_1$ is the linear kernel on the first coordinate. Features $\\phi_k(x)=x_1^k/\\sqrt{k!}$.

lin_minus_sq: not a kernel, for $x=(0,3)$: $K(x,x)=9-81<0$.
''',
    "closure_proofs": '''\
Part (a). Set $\\tilde\\phi = \\phi\\circ A$. Then $\\tilde\\phi(x)\\cdot\\tilde\\phi(z) = K(Ax, Az)$ which shows it is an inner product of features.

Part (b). If $f(x)=0$ somewhere it's still fine. Put $\\tilde\\phi(x) = f(x)\\,\\phi(x)$, then $\\tilde\\phi(x)\\cdot\\tilde\\phi(z) = f(x)\\,K(x,z)\\,f(z)$.
''',
}

GUS = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[None, :]
    const = V["c"] * np.ones_like(X[:, 0])
    root, rootc = np.sqrt(2.0), np.sqrt(2.0 * V["c"])
    cols = (const, rootc * X[:, 0], rootc * X[:, 1], X[:, 0] ** 2, X[:, 1] ** 2,
            root * X[:, 0] * X[:, 1])
    return np.stack(cols, axis=-1)
''',
    "multinomial_map_answer": '''\
def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    Xt = np.concatenate([np.ones((n, 1)), X], axis=1)
    # Build monomials degree by degree, as a dict exponent-tuple -> column, keeping
    # the multinomial coefficient as a separate dict.
    cols = {(0,) * (d + 1): np.ones(n)}
    coeff = {(0,) * (d + 1): 1}
    for step in range(p):
        new_cols, new_coeff = {}, {}
        for e, col in cols.items():
            for i in range(d + 1):
                f = list(e)
                f[i] += 1
                f = tuple(f)
                new_cols[f] = col * Xt[:, i]
                new_coeff[f] = new_coeff.get(f, 0) + coeff[e]
        cols, coeff = new_cols, new_coeff
    keys = sorted(cols)
    return np.column_stack([np.sqrt(coeff[k]) * cols[k] for k in keys])
''',
    "kernel_verdicts_answer": '''\
VERDICT = {
    "x^T B z": lambda p: int(min(np.linalg.eigvalsh(np.array(p["B"], float))) >= -1e-12),
    "exp(a x_i z_i)": lambda p: int(p["a"] > 0), "a x.z": lambda p: int(p["a"] > 0),
    "x.z + s (x.z)^2": lambda p: int(p["s"] > 0), "(x.z + s)^p": lambda p: int(p["s"] > 0),
    "x.z + s": lambda p: int(p["s"] > 0), "|x| |z| + s": lambda p: int(p["s"] > 0),
    "exp(-g |x - z|^2)": lambda p: int(p["g"] > 0),
    "cos(x_i + s z_i)": lambda p: int(p["s"] < 0),
    "min or max of |x_i|, |z_i|": lambda p: int(p["op"] == "min"),
    "(x.z)^p": lambda p: 1,
    "a |x - z|": lambda p: 0, "s - |x - z|^2": lambda p: 0,
    "w.x + w.z": lambda p: 0, "max(v.x, v.z)": lambda p: 0,
}


def is_kernel(name):
    params = {p["name"]: p for p in V["candidates"]}
    assert name in params, name
    return bool(VERDICT[params[name]["kind"]](params[name]))
''',
    "counterexample_answer": '''\
def witness(name, P):
    A = gram(name, P).copy()
    m = len(A)
    Q = np.eye(m)
    # cyclic Jacobi rotations until A is diagonal; Q collects them
    for sweep in range(60):
        off = np.sum(A ** 2) - np.sum(np.diag(A) ** 2)
        if off <= 1e-28 * max(1.0, np.sum(A ** 2)):
            break
        for p in range(m - 1):
            for q in range(p + 1, m):
                if A[p, q] == 0.0:
                    continue
                theta = 0.5 * np.arctan2(2 * A[p, q], A[p, p] - A[q, q])
                c, s = np.cos(theta), np.sin(theta)
                J = np.eye(m)
                J[p, p] = J[q, q] = c
                J[p, q], J[q, p] = -s, s
                A = J.T @ A @ J
                Q = Q @ J
    return Q[:, int(np.argmin(np.diag(A)))]
''',
    "validity_arguments": '''\
B_diag is a kernel. Because $B_1$ is diagonal with entries 1 and 5, $K(x,z)=\\langle Dx, Dz\\rangle$ for $D=\\mathrm{diag}(1,\\sqrt5)$.

B_indefinite is not a kernel: take $x=(1,0)$; then $K(x,x)=-1$, and a kernel must satisfy $K(x,x)=\\|\\phi(x)\\|^2\\geq0$.

exp_first is a kernel. Write $e^{x_1z_1}=\\sum_{n=0}^\\infty \\frac{x_1^n}{\\sqrt{n!}}\\cdot\\frac{z_1^n}{\\sqrt{n!}}$, an inner product in $\\ell^2$.

lin_minus_sq is not. $K(x,x) = t - t^2$ with $t=\\|x\\|^2$; for $x=(2,2)$, $t=8$ and $K=-56$.
''',
    "closure_proofs": '''\
(a) With $\\phi_A(x) := \\phi(Ax)$ we have $\\langle\\phi_A(x),\\phi_A(z)\\rangle = K(Ax,Az)$, a feature representation, hence a kernel.
(b) With $\\phi_f(x) := f(x)\\phi(x)$ we get $\\langle\\phi_f(x),\\phi_f(z)\\rangle = f(x)f(z)\\langle\\phi(x),\\phi(z)\\rangle = f(x)K(x,z)f(z)$, hence a kernel.
''',
}

HANA = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    """phi(x) for each row: the degree-2 terms with their sqrt(2) and sqrt(2c) weights."""
    pts = np.array(X, dtype=float, ndmin=2)
    u = pts[:, [0]]
    w = pts[:, [1]]
    c = np.sqrt(2)
    t = V["c"]
    return np.concatenate((t * np.ones_like(u), np.sqrt(2 * t) * u, np.sqrt(2 * t) * w,
                           u * u, w * w, c * u * w), axis=1)
''',
    "multinomial_map_answer": '''\
def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    phi = []
    # choose how many of the p factors are the constant 1, then a multiset of the rest
    for k in range(p + 1):
        for picks in itertools.combinations_with_replacement(range(d), k):
            c = math.comb(p, k)
            term = np.ones(n)
            for j in set(picks):
                m = picks.count(j)
                c = c * math.comb(k - sum(picks.count(i) for i in set(picks) if i < j), m)
                term = term * X[:, j] ** m
            phi.append(np.sqrt(c) * term)
    return np.array(phi).T
''',
    "kernel_verdicts_answer": '''\
def is_kernel(name):
    """My verdicts, one kind per line, argued in part 5 and in my notes."""
    specs = [s for s in V["candidates"] if s["name"] == name]
    if len(specs) != 1:
        raise ValueError("unknown: " + name)
    s = specs[0]
    if s["kind"] == "x^T B z":
        B = s["B"]
        return B[0][0] >= 0 and B[1][1] >= 0 and B[0][0] * B[1][1] - B[0][1] * B[1][0] >= 0
    if s["kind"] == "exp(a x_i z_i)" or s["kind"] == "a x.z":
        return s["a"] > 0
    if s["kind"] in ("x.z + s", "|x| |z| + s", "x.z + s (x.z)^2", "(x.z + s)^p"):
        return s["s"] > 0
    if s["kind"] == "exp(-g |x - z|^2)":
        return s["g"] > 0
    if s["kind"] == "cos(x_i + s z_i)":
        return s["s"] < 0
    if s["kind"] == "min or max of |x_i|, |z_i|":
        return s["op"] == "min"
    return s["kind"] == "(x.z)^p"
''',
    "counterexample_answer": '''\
def witness(name, P):
    K = gram(name, np.asarray(P, dtype=float))
    smallest = min(np.linalg.eigvalsh(K))
    # the witness spans the null space of K - smallest * I: the last right singular vector
    _, _, vt = np.linalg.svd(K - smallest * np.eye(K.shape[0]))
    return vt[-1]
''',
    "validity_arguments": '''\
B_diag: positive semidefinite kernel. The weights $1$ and $5$ are positive so I can split them:
$K(x,z)=1\\cdot x_1z_1+5\\cdot x_2z_2=(x_1)(z_1)+(\\sqrt5x_2)(\\sqrt5z_2)$.

B_indefinite: fails. $B_2$ has determinant $-4-4=-8$, so an eigenvalue is negative; concretely
$K((1,0),(1,0)) = -1$ already breaks $K(x,x)\\ge0$.

exp_first: kernel. $\\exp$ of a kernel is a kernel because the Taylor series converges and each
partial sum is a positive combination of powers of the kernel $x_1z_1$ (products of kernels are kernels).

lin_minus_sq: fails, e.g. $x=(-2,1)$ gives $K(x,x)=5-25=-20$.
''',
    "closure_proofs": '''\
Both follow from "a function with a feature map is a kernel".
For (a) the feature map is $x\\mapsto\\phi(Ax)$: plug in and the inner product is $K(Ax,Az)$.
For (b) take $x\\mapsto f(x)\\phi(x)$; pulling the real numbers $f(x)$ and $f(z)$ out of the inner
product gives exactly $f(x)K(x,z)f(z)$.
''',
}

IVAN = {
    "quadratic_map_answer": '''\
import math

def quadratic_feature_map(X):
    result = []
    c = V["c"]
    for x in np.asarray(X, dtype=float):
        a, b = x
        result.append((c, math.sqrt(2 * c) * a, math.sqrt(2 * c) * b, a ** 2, b ** 2,
                       math.sqrt(2) * a * b))
    return np.asarray(result, dtype=float).reshape(-1, 6)
''',
    "multinomial_map_answer": '''\
def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    if p == 0:
        return np.ones((n, 1))
    # (1 + <x,z>)^p = (1 + <x,z>) (1 + <x,z>)^(p-1): tensor the maps, then merge
    # the repeated monomials by summing squared weights
    prev = multinomial_feature_map(X, p - 1)
    prev_exps = _exponents(d, p - 1)
    new = {}
    for col, e in enumerate(prev_exps):
        for i in range(d + 1):
            f = list(e)
            if i > 0:
                f[i - 1] += 1
            f = tuple(f)
            value = prev[:, col] * (1.0 if i == 0 else X[:, i - 1])
            new[f] = new.get(f, 0) + value ** 2
    # all columns of one monomial are the same up to sign: sqrt of the summed squares
    # keeps the weight, and the sign of the monomial itself
    out = []
    for f in _exponents(d, p):
        mono = np.prod(X ** np.array(f), axis=1)
        out.append(np.sign(mono) * np.sqrt(new[f]))
    return np.column_stack(out)


def _exponents(d, p):
    if d == 0:
        return [()]
    return [(k,) + rest for k in range(p + 1) for rest in _exponents(d - 1, p - k)]
''',
    "kernel_verdicts_answer": '''\
def is_kernel(name):
    if name not in CANDIDATES:
        raise ValueError(f"{name} is not one of the candidates")
    # diagonal check first: K(x, x) < 0 anywhere rules a candidate out
    probe = np.array([[-2.0, 0.5], [0.3, -1.5], [2.0, 2.0], [0.0, 0.0], [1.6, -1.6]])
    for x in probe:
        if CANDIDATES[name](x, x) < 0:
            return False
    # then eigenvalues on a small grid, relative to the size of the entries
    grid = np.linspace(-2, 2, 9)
    pts = np.array([(a, b) for a in grid for b in grid])
    K = gram(name, pts)
    return bool(np.linalg.eigvalsh(K).min() > -1e-9 * max(1.0, np.abs(K).max()))
''',
    "counterexample_answer": '''\
def witness(name, P):
    K = gram(name, np.asarray(P, float))
    _, basis = np.linalg.eigh(K)
    scores = [basis[:, j] @ K @ basis[:, j] for j in range(basis.shape[1])]
    return basis[:, int(np.argmin(scores))]
''',
    "validity_arguments": '''\
(i) B_diag = kernel, as $B_1 = R^\\top R$ with $R = \\mathrm{diag}(1, \\sqrt{5})$, so $K(x,z) = (Rx)\\cdot(Rz)$.

(ii) B_indefinite is not one. Counterexample: Gram matrix at the single point $e_1$ is the number
$B_2[1,1] = -1 < 0$.

(iii) exp_first = kernel. Expand: $e^{x_1 z_1} = 1 + x_1 z_1 + \\frac{x_1^2 z_1^2}{2} + \\dots$, each
term a product $g_k(x) g_k(z)$ with $g_k(x) = x_1^k / \\sqrt{k!}$; the sequence $(g_k(x))_k$ is in $\\ell^2$.

(iv) lin_minus_sq is not one: $x = (0, 1.5)$, $K(x,x) = 2.25 - 5.0625 = -2.8125$.
''',
    "closure_proofs": '''\
(a) Positive semi-definiteness is a statement about all finite point sets. Given $x_1..x_m$, the matrix
$[K(Ax_i, Ax_j)]$ is $K$'s Gram matrix on $y_i = Ax_i$, hence PSD; so $K(A\\cdot, A\\cdot)$ is a kernel.

(b) Writing $F = \\mathrm{diag}(f(x_i))$ the new matrix is $FGF$; then $v^\\top FGFv = (Fv)^\\top G(Fv)\\ge 0$.
''',
}

#: Every honest student's answers, by name (the reference solution is one more).
#: hana and ivan were written after the check's settings were chosen, to measure
#: false positives on data it was not tuned to.
HONEST = {"bob": BOB, "carol": CAROL, "dora": DORA, "emil": EMIL, "fay": FAY, "gus": GUS,
          "hana": HANA, "ivan": IVAN}
