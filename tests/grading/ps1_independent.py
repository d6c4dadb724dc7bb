"""Ten more answers to ps1, each written by someone who saw only the released
notebook (its questions and ``V``), none of the course's solutions, the other
answers or the similarity check's code: data the check was not tuned to.

Each is {grade id: cell source} (the four code parts and the two written ones),
in a style of its own: a loop-heavy beginner (kim), vectorised NumPy (patel),
helper functions (garcia), list comprehensions (muller), long names and
comments (okafor), one-letter names (rossi), ``einsum`` and broadcasting
(nguyen), checks of the input (smith), a class for each part (tanaka) and the
textbook's notation (silva).  Each scores full marks on its own variant.
"""

__all__ = ["INDEPENDENT"]

ANSWERS = {}

# ---------------------------------------------------------------- s01kim: loop-heavy beginner
ANSWERS["s01kim"] = {
"quadratic_map_answer": r'''def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    c = V["c"]
    X = np.array(X, dtype=float)
    n = X.shape[0]
    result = np.zeros((n, 6))
    for row in range(n):
        a = X[row, 0]
        b = X[row, 1]
        result[row, 0] = a * a
        result[row, 1] = b * b
        result[row, 2] = math.sqrt(2) * a * b
        result[row, 3] = math.sqrt(2 * c) * a
        result[row, 4] = math.sqrt(2 * c) * b
        result[row, 5] = c
    return result
''',
"multinomial_map_answer": r'''def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    X = np.array(X, dtype=float)
    n = X.shape[0]
    d = X.shape[1]
    # every multiset of p indices from 0..d gives one multi-index (j_0, ..., j_d)
    indices = []
    for combo in itertools.combinations_with_replacement(range(d + 1), p):
        j = [0] * (d + 1)
        for k in combo:
            j[k] = j[k] + 1
        indices.append(j)
    out = np.zeros((n, len(indices)))
    for col in range(len(indices)):
        j = indices[col]
        coef = math.factorial(p)
        for k in range(d + 1):
            coef = coef / math.factorial(j[k])
        for row in range(n):
            prod = 1.0
            for k in range(1, d + 1):
                prod = prod * X[row, k - 1] ** j[k]
            out[row, col] = math.sqrt(coef) * prod
    return out
''',
"kernel_verdicts_answer": r'''def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    spec = None
    for s in V["candidates"]:
        if s["name"] == name:
            spec = s
    kind = spec["kind"]
    if kind == "x^T B z":
        B = spec["B"]
        # symmetric 2x2 matrix is PSD when diagonal >= 0 and determinant >= 0
        if B[0][1] != B[1][0]:
            return False
        det = B[0][0] * B[1][1] - B[0][1] * B[1][0]
        if B[0][0] >= 0 and B[1][1] >= 0 and det >= 0:
            return True
        return False
    if kind == "exp(a x_i z_i)":
        return spec["a"] >= 0
    if kind == "x.z + s (x.z)^2":
        return spec["s"] >= 0
    if kind == "(x.z + s)^p":
        return spec["s"] >= 0
    if kind == "exp(-g |x - z|^2)":
        return spec["g"] >= 0
    if kind == "a |x - z|":
        return spec["a"] == 0
    if kind == "s - |x - z|^2":
        return False
    if kind == "x.z + s":
        return spec["s"] >= 0
    if kind == "a x.z":
        return spec["a"] >= 0
    if kind == "w.x + w.z":
        return spec["w"][0] == 0 and spec["w"][1] == 0
    if kind == "cos(x_i + s z_i)":
        return spec["s"] == -1
    if kind == "max(v.x, v.z)":
        return spec["v"][0] == 0 and spec["v"][1] == 0
    if kind == "min or max of |x_i|, |z_i|":
        if spec["op"] == "min":
            return True
        return False
    if kind == "|x| |z| + s":
        return spec["s"] >= 0
    if kind == "(x.z)^p":
        return True
    return False
''',
"counterexample_answer": r'''def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    k = CANDIDATES[name]
    P = np.array(P, dtype=float)
    m = len(P)
    K = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            K[i, j] = k(P[i], P[j])
    values, vectors = np.linalg.eigh(K)
    smallest = 0
    for i in range(m):
        if values[i] < values[smallest]:
            smallest = i
    a = vectors[:, smallest]
    a = a / np.linalg.norm(a)
    return a
''',
"validity_arguments": r'''**K1 = (<x, z> + 0.5)^3: kernel.** By the binomial theorem
$(\langle x,z\rangle + 0.5)^3 = \langle x,z\rangle^3 + 1.5\langle x,z\rangle^2 + 0.75\langle x,z\rangle + 0.125$.
Every power $\langle x,z\rangle^k$ is a kernel (product of linear kernels), the coefficients are all positive
and a positive constant is a kernel, so the sum is a kernel. Feature map: like part 2 with
$\tilde x = (\sqrt{0.5}, x_1, x_2)$, all monomials of degree up to 3 with the multinomial weights.

**K2 = 2|x - z|: not a kernel.** On the diagonal $k(x,x) = 0$. Take the points $(0,0)$ and $(1,0)$:
the Gram matrix is $\begin{pmatrix}0 & 2\\ 2 & 0\end{pmatrix}$ with determinant $-4 < 0$, eigenvalues $2$ and $-2$.
With $a = (1,-1)/\sqrt2$ we get $a^T K a = -2$.

**K3 = x^T B z, B = [[4, -1], [-1, 5]]: kernel.** B is symmetric with trace 9 and determinant
$20 - 1 = 19 > 0$, so both eigenvalues are positive. Write $B = L L^T$ (Cholesky), then
$x^T B z = \langle L^T x, L^T z\rangle$ and $\phi(x) = L^T x$ is a feature map.

**K4 = -x2 - z2: not a kernel.** At the single point $x = (0, 1)$ we have $k(x,x) = -2 < 0$,
so the 1x1 Gram matrix $[-2]$ is not PSD.
''',
"closure_proofs": r'''(a) Since $K(x,z) = \langle\phi(x),\phi(z)\rangle$, we have $K(Ax, Az) = \langle \phi(Ax), \phi(Az)\rangle$.
So $\psi(x) = \phi(Ax)$ is a feature map for the new function, which is therefore a kernel.

(b) $f(x)K(x,z)f(z) = f(x)f(z)\langle\phi(x),\phi(z)\rangle = \langle f(x)\phi(x), f(z)\phi(z)\rangle$,
because $f(x)$ and $f(z)$ are just numbers. The feature map is $\psi(x) = f(x)\phi(x)$, so it is a kernel.
''',
}

# ---------------------------------------------------------------- s02patel: vectorised numpy
ANSWERS["s02patel"] = {
"quadratic_map_answer": r'''def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    X = np.asarray(X, dtype=float).reshape(-1, 2)
    c = float(V["c"])
    x1, x2 = X.T
    return np.column_stack([
        x1**2, x2**2, np.sqrt(2.0) * x1 * x2,
        np.sqrt(2.0 * c) * X[:, 0], np.sqrt(2.0 * c) * X[:, 1],
        np.full(len(X), c),
    ])
''',
"multinomial_map_answer": r'''def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    d = X.shape[1]
    combos = np.array(list(itertools.combinations_with_replacement(range(d + 1), p)))
    # exponent table J[m, i] = how often index i appears in multiset m
    J = (combos[:, :, None] == np.arange(d + 1)[None, None, :]).sum(axis=1)
    log_fact = np.array([math.lgamma(k + 1) for k in range(p + 1)])
    weights = np.sqrt(np.exp(math.lgamma(p + 1) - log_fact[J].sum(axis=1)))
    monomials = np.prod(X[:, None, :] ** J[None, :, 1:], axis=2)
    return monomials * weights[None, :]
''',
"kernel_verdicts_answer": r'''def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    spec = next(s for s in V["candidates"] if s["name"] == name)
    kind = spec["kind"]
    if kind == "x^T B z":
        B = np.asarray(spec["B"], dtype=float)
        return bool(np.allclose(B, B.T) and np.linalg.eigvalsh(B).min() >= -1e-12)
    if kind == "(x.z)^p":
        return True
    if kind == "s - |x - z|^2":
        return False
    if kind == "min or max of |x_i|, |z_i|":
        return spec["op"] == "min"
    if kind == "cos(x_i + s z_i)":
        return bool(spec["s"] == -1)
    if kind in ("w.x + w.z", "max(v.x, v.z)"):
        return not np.any(np.asarray(spec.get("w", spec.get("v"))))
    if kind == "a |x - z|":
        return spec["a"] == 0
    # the remaining kinds are kernels exactly when their scalar parameter is >= 0
    param = {"exp(a x_i z_i)": "a", "a x.z": "a", "exp(-g |x - z|^2)": "g",
             "x.z + s (x.z)^2": "s", "(x.z + s)^p": "s", "x.z + s": "s", "|x| |z| + s": "s"}[kind]
    return bool(spec[param] >= 0)
''',
"counterexample_answer": r'''def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    G = gram(name, np.asarray(P, dtype=float))
    G = 0.5 * (G + G.T)
    _, U = np.linalg.eigh(G)
    return U[:, 0] / np.linalg.norm(U[:, 0])
''',
"validity_arguments": r'''- $K_1(x,z) = x^\top B z$, $B = \begin{pmatrix}0&-2\\-2&-2\end{pmatrix}$. Not PSD: $\det B = -4$, so one eigenvalue of $B$ is negative. Concretely on $e_2 = (0,1)$ alone, $K_1(e_2,e_2) = B_{22} = -2 < 0$; on $\{e_1, e_2\}$ the Gram matrix is $B$ itself, eigenvalues $-1 \pm \sqrt5$. **Not a kernel.**
- $K_2 = (\langle x,z\rangle - 1)^2$. Points $0$ and $(1,0)$: Gram $\begin{pmatrix}1&1\\1&0\end{pmatrix}$, determinant $-1$. **Not a kernel** (the $-2\langle x,z\rangle$ term in the expansion has the wrong sign).
- $K_3 = 2 - \lVert x-z\rVert^2$. Points $0$ and $(3,0)$: Gram $\begin{pmatrix}2&-7\\-7&2\end{pmatrix}$, $\det = 4 - 49 < 0$. **Not a kernel**; any two points at squared distance above 4 break it.
- $K_4 = -2\langle x,z\rangle$. $K_4(x,x) = -2\lVert x\rVert^2 < 0$ for $x = (1,0)$, 1x1 Gram $[-2]$. **Not a kernel** (a negative multiple of the linear kernel).
''',
"closure_proofs": r'''Gram-matrix version. Fix points $x_1,\dots,x_m$ and coefficients $c\in\mathbb{R}^m$.

(a) Put $y_i = A x_i$. The Gram matrix of $K(A\cdot, A\cdot)$ on the $x_i$ equals the Gram matrix of $K$ on the $y_i$, which is PSD because $K$ is a kernel: $\sum_{ij} c_i c_j K(Ax_i, Ax_j) \ge 0$. Equivalently $\phi \circ A$ is a feature map.

(b) With $D = \mathrm{diag}(f(x_1),\dots,f(x_m))$ the new Gram matrix is $D G D$, where $G$ is PSD. Then $c^\top D G D c = (Dc)^\top G (Dc) \ge 0$, and $DGD$ is symmetric, so it is PSD.
''',
}

# ---------------------------------------------------------------- s03garcia: helper functions
ANSWERS["s03garcia"] = {
"quadratic_map_answer": r'''def _phi_one_point(x, c):
    """The six features of a single point x = (x1, x2)."""
    r2 = math.sqrt(2.0)
    rc = math.sqrt(2.0 * c)
    return [c, rc * x[0], rc * x[1], x[0] ** 2, r2 * x[0] * x[1], x[1] ** 2]


def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    X = np.asarray(X, dtype=float)
    return np.array([_phi_one_point(x, V["c"]) for x in X], dtype=float).reshape(len(X), 6)
''',
"multinomial_map_answer": r'''def multi_indices(d, p):
    """All (j_1, ..., j_d) with non-negative entries summing to at most p (j_0 is the rest)."""
    if d == 0:
        return [()]
    out = []
    for first in range(p + 1):
        for rest in multi_indices(d - 1, p - first):
            out.append((first,) + rest)
    return out


def multinomial_coefficient(p, js):
    j0 = p - sum(js)
    denom = math.factorial(j0)
    for j in js:
        denom *= math.factorial(j)
    return math.factorial(p) // denom


def monomial(x, js):
    value = 1.0
    for xi, j in zip(x, js):
        value *= xi ** j
    return value


def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    index_list = multi_indices(d, p)
    scale = np.sqrt([multinomial_coefficient(p, js) for js in index_list])
    features = np.array([[monomial(x, js) for js in index_list] for x in X]).reshape(n, len(index_list))
    return features * scale
''',
"kernel_verdicts_answer": r'''def _spec_of(name):
    for spec in V["candidates"]:
        if spec["name"] == name:
            return spec
    raise KeyError(name)


def _psd_2x2(B):
    (a, b), (c, d) = B
    return b == c and a >= 0 and d >= 0 and a * d - b * c >= 0


def _nonneg(key):
    return lambda spec: spec[key] >= 0


RULES = {
    "x^T B z": lambda spec: _psd_2x2(spec["B"]),
    "exp(a x_i z_i)": _nonneg("a"),
    "x.z + s (x.z)^2": _nonneg("s"),
    "(x.z + s)^p": _nonneg("s"),
    "exp(-g |x - z|^2)": _nonneg("g"),
    "a |x - z|": lambda spec: spec["a"] == 0,
    "s - |x - z|^2": lambda spec: False,
    "x.z + s": _nonneg("s"),
    "a x.z": _nonneg("a"),
    "w.x + w.z": lambda spec: all(w == 0 for w in spec["w"]),
    "cos(x_i + s z_i)": lambda spec: spec["s"] == -1,
    "max(v.x, v.z)": lambda spec: all(v == 0 for v in spec["v"]),
    "min or max of |x_i|, |z_i|": lambda spec: spec["op"] == "min",
    "|x| |z| + s": _nonneg("s"),
    "(x.z)^p": lambda spec: True,
}


def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    spec = _spec_of(name)
    return bool(RULES[spec["kind"]](spec))
''',
"counterexample_answer": r'''def _smallest_eigvec(M):
    vals, vecs = np.linalg.eigh(M)
    return vecs[:, np.argmin(vals)]


def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    M = gram(name, P)
    a = _smallest_eigvec(M)
    return a / np.sqrt(a @ a)
''',
"validity_arguments": r'''K1(x, z) = <x, z> - 0.5 is **not** a kernel: at the origin K1(0, 0) = -0.5, so already the one-point Gram matrix [-0.5] has a negative eigenvalue. Adding a negative constant to the linear kernel breaks positivity.

K2(x, z) = x^T B z with B = [[4, -2], [-2, -1]] is **not** a kernel. B has a negative diagonal entry, so for the point e2 = (0, 1) we get K2(e2, e2) = -1 < 0. (Also det B = -4 - 4 = -8 < 0.) The Gram matrix on {e1, e2} is B itself.

K3(x, z) = x1 + z1 is **not** a kernel: for x = (-1, 0), K3(x, x) = -2 < 0. More generally for points p, q the Gram matrix [[2p1, p1+q1], [p1+q1, 2q1]] has determinant -(p1 - q1)^2 <= 0, negative whenever p1 differs from q1.

K4(x, z) = exp(-2 x2 z2) is **not** a kernel. Take p = (0, 1), q = (0, -1). The Gram matrix is [[e^{-2}, e^{2}], [e^{2}, e^{-2}]], whose determinant e^{-4} - e^{4} is negative. The power series of exp(-2t) has terms of alternating sign, so it is not a sum of kernels with positive weights.
''',
"closure_proofs": r'''**(a)** Define the new map psi(x) := phi(Ax). For any x, z we get <psi(x), psi(z)> = <phi(Ax), phi(Az)> = K(Ax, Az). A function that can be written as an inner product of feature vectors is a kernel, hence K(Ax, Az) is one. Nothing is needed of A: it may even be singular.

**(b)** Define psi(x) := f(x) phi(x), a scalar times a vector. Then <psi(x), psi(z)> = f(x) f(z) <phi(x), phi(z)> = f(x) K(x, z) f(z), which is again an inner product of features, so it is a kernel.
''',
}

# ---------------------------------------------------------------- s04muller: list comprehensions
ANSWERS["s04muller"] = {
"quadratic_map_answer": r'''def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    c = V["c"]
    s, t = 2 ** 0.5, (2 * c) ** 0.5
    rows = [[u * u, v * v, s * u * v, t * u, t * v, c] for u, v in np.asarray(X, dtype=float)]
    return np.array(rows, dtype=float).reshape(-1, 6)
''',
"multinomial_map_answer": r'''def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    exps = [[combo.count(i) for i in range(d + 1)]
            for combo in itertools.combinations_with_replacement(range(d + 1), p)]
    coefs = [math.sqrt(math.factorial(p) / math.prod(math.factorial(e) for e in j)) for j in exps]
    rows = [[w * math.prod(xi ** e for xi, e in zip(x, j[1:])) for w, j in zip(coefs, exps)] for x in X]
    return np.array(rows, dtype=float).reshape(len(X), len(exps))
''',
"kernel_verdicts_answer": r'''def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    spec = [s for s in V["candidates"] if s["name"] == name][0]
    kind = spec["kind"]
    if kind == "x^T B z":
        B = spec["B"]
        return B[0][1] == B[1][0] and all(ev >= -1e-12 for ev in np.linalg.eigvalsh(np.array(B, dtype=float)))
    if kind in ["w.x + w.z", "max(v.x, v.z)"]:
        return all(c == 0 for c in spec.get("w", spec.get("v", [])))
    if kind in ["(x.z)^p"]:
        return True
    if kind in ["s - |x - z|^2"]:
        return False
    if kind == "a |x - z|":
        return spec["a"] == 0
    if kind == "cos(x_i + s z_i)":
        return spec["s"] == -1
    if kind == "min or max of |x_i|, |z_i|":
        return spec["op"] == "min"
    nonnegative = [key for key in ["a", "g", "s"] if key in spec]
    return all(spec[key] >= 0 for key in nonnegative)
''',
"counterexample_answer": r'''def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    k = CANDIDATES[name]
    pts = [np.asarray(q, dtype=float) for q in P]
    K = np.array([[k(p, q) for q in pts] for p in pts])
    w, U = np.linalg.eigh((K + K.T) / 2)
    a = U[:, 0]
    return a / np.linalg.norm(a)
''',
"validity_arguments": r'''**K1 = 2 − |x − z|²** — not a kernel. With $p = (0,0)$ and $q = (2,1)$ the squared distance is 5, so
$G = \begin{pmatrix} 2 & -3 \\ -3 & 2 \end{pmatrix}$, $\det G = 4 - 9 = -5 < 0$: one negative eigenvalue ($-1$, eigenvector $(1,1)/\sqrt2$).

**K2 = ⟨x, z⟩ + 2** — a kernel: the linear kernel plus a non-negative constant, both kernels, and sums of kernels are kernels. Explicitly $\phi(x) = (x_1, x_2, \sqrt{2})$ gives $\langle\phi(x),\phi(z)\rangle = x_1z_1 + x_2z_2 + 2$.

**K3 = max(−x1, −z1)** — not a kernel. For $x = (1, 0)$ the diagonal entry is $\max(-1,-1) = -1 < 0$, so the 1×1 Gram matrix $[-1]$ is already not PSD.

**K4 = xᵀBz with B = [[5, −1], [−1, 4]]** — a kernel. $B$ is symmetric, $B_{11} = 5 > 0$ and $\det B = 20 - 1 = 19 > 0$, so by Sylvester's criterion $B$ is positive definite and $B = B^{1/2}B^{1/2}$. Then $x^\top B z = \langle B^{1/2}x, B^{1/2}z\rangle$, feature map $\phi(x) = B^{1/2}x$.
''',
"closure_proofs": r'''For points $x_1, \dots, x_n$ and real numbers $\alpha_1, \dots, \alpha_n$:

(a) $\sum_{i,j}\alpha_i\alpha_j K(Ax_i, Ax_j) = \sum_{i,j}\alpha_i\alpha_j\langle\phi(Ax_i),\phi(Ax_j)\rangle = \lVert\sum_i \alpha_i\phi(Ax_i)\rVert^2 \ge 0$, and the function is symmetric since $K$ is. Hence every Gram matrix is PSD.

(b) $\sum_{i,j}\alpha_i\alpha_j f(x_i)K(x_i,x_j)f(x_j) = \lVert\sum_i \alpha_i f(x_i)\phi(x_i)\rVert^2 \ge 0$, with symmetry again inherited from $K$. So $f(x)K(x,z)f(z)$ is a kernel.
''',
}

# ---------------------------------------------------------------- s05okafor: long descriptive names and comments
ANSWERS["s05okafor"] = {
"quadratic_map_answer": r'''def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    # Expanding (c + x1 z1 + x2 z2)^2 gives
    #   c^2 + 2c x1 z1 + 2c x2 z2 + x1^2 z1^2 + x2^2 z2^2 + 2 x1 x2 z1 z2,
    # so each term is a product of one feature of x and the same feature of z.
    constant_c = V["c"]
    points = np.asarray(X, dtype=float)
    first_coordinate = points[:, 0]
    second_coordinate = points[:, 1]
    number_of_points = points.shape[0]
    constant_feature = np.full(number_of_points, constant_c)
    linear_scale = np.sqrt(2.0 * constant_c)
    linear_features_first = linear_scale * first_coordinate
    linear_features_second = linear_scale * second_coordinate
    square_of_first = first_coordinate ** 2
    square_of_second = second_coordinate ** 2
    cross_term = np.sqrt(2.0) * first_coordinate * second_coordinate
    feature_matrix = np.stack(
        [constant_feature, linear_features_first, linear_features_second,
         square_of_first, square_of_second, cross_term],
        axis=1,
    )
    return feature_matrix
''',
"multinomial_map_answer": r'''def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    data_points = np.asarray(X, dtype=float)
    number_of_points, input_dimension = data_points.shape
    # Prepend the constant coordinate 1 to every point: x_tilde = (1, x_1, ..., x_d).
    augmented_points = np.hstack([np.ones((number_of_points, 1)), data_points])
    factorial_of_degree = math.factorial(p)
    list_of_feature_columns = []
    # Each multiset of p coordinates (with repetition) is one multi-index (j_0, ..., j_d).
    for chosen_coordinates in itertools.combinations_with_replacement(range(input_dimension + 1), p):
        exponent_of_each_coordinate = [chosen_coordinates.count(coordinate)
                                       for coordinate in range(input_dimension + 1)]
        product_of_exponent_factorials = 1
        for exponent in exponent_of_each_coordinate:
            product_of_exponent_factorials *= math.factorial(exponent)
        multinomial_weight = factorial_of_degree / product_of_exponent_factorials
        # The monomial prod_i x_tilde_i^{j_i} is the product of the chosen columns.
        monomial_values = np.ones(number_of_points)
        for coordinate in chosen_coordinates:
            monomial_values = monomial_values * augmented_points[:, coordinate]
        list_of_feature_columns.append(np.sqrt(multinomial_weight) * monomial_values)
    return np.column_stack(list_of_feature_columns)
''',
"kernel_verdicts_answer": r'''def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    # Look up the plain description of this candidate in my variant.
    candidate_description = {spec["name"]: spec for spec in V["candidates"]}[name]
    kind_of_candidate = candidate_description["kind"]

    # Quadratic form with a matrix: a kernel exactly when the matrix is symmetric PSD.
    if kind_of_candidate == "x^T B z":
        matrix_b = np.array(candidate_description["B"], dtype=float)
        is_symmetric = np.array_equal(matrix_b, matrix_b.T)
        smallest_eigenvalue = np.linalg.eigvalsh(matrix_b).min()
        return bool(is_symmetric and smallest_eigenvalue >= 0)

    # Kinds that are always kernels (a power of the linear kernel).
    if kind_of_candidate == "(x.z)^p":
        return True

    # Kinds that are never kernels: negative or zero diagonal with positive off-diagonal.
    if kind_of_candidate == "s - |x - z|^2":
        return False
    if kind_of_candidate == "a |x - z|":
        return candidate_description["a"] == 0

    # Linear functions of x and z separately: k(x, x) = 2 w.x is negative somewhere unless w = 0.
    if kind_of_candidate == "w.x + w.z":
        return not any(candidate_description["w"])
    if kind_of_candidate == "max(v.x, v.z)":
        return not any(candidate_description["v"])

    # cos(x - z) = cos x cos z + sin x sin z is a kernel, cos(x + z) has cos(2x) < 0 on the diagonal.
    if kind_of_candidate == "cos(x_i + s z_i)":
        return candidate_description["s"] == -1

    # min(|x_i|, |z_i|) is the Brownian-motion covariance, max is not PSD.
    if kind_of_candidate == "min or max of |x_i|, |z_i|":
        return candidate_description["op"] == "min"

    # The rest depend on the sign of one parameter; a non-negative one gives a kernel.
    sign_parameter_of_kind = {
        "exp(a x_i z_i)": "a",
        "a x.z": "a",
        "exp(-g |x - z|^2)": "g",
        "x.z + s (x.z)^2": "s",
        "(x.z + s)^p": "s",
        "x.z + s": "s",
        "|x| |z| + s": "s",
    }
    parameter_value = candidate_description[sign_parameter_of_kind[kind_of_candidate]]
    return parameter_value >= 0
''',
"counterexample_answer": r'''def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    # The minimum of the Rayleigh quotient a^T K a over unit vectors is the smallest
    # eigenvalue of the symmetric Gram matrix K, reached at its eigenvector.
    gram_matrix_on_points = gram(name, P)
    symmetric_gram_matrix = (gram_matrix_on_points + gram_matrix_on_points.T) / 2.0
    eigenvalues_ascending, eigenvectors_as_columns = np.linalg.eigh(symmetric_gram_matrix)
    eigenvector_of_smallest_eigenvalue = eigenvectors_as_columns[:, 0]
    length_of_vector = np.linalg.norm(eigenvector_of_smallest_eigenvalue)
    return eigenvector_of_smallest_eigenvalue / length_of_vector
''',
"validity_arguments": r'''**Candidate K1, the form x^T B z with B = [[0, 0], [0, 3]].** This one is a kernel. The matrix B is diagonal with entries 0 and 3, so its eigenvalues are 0 and 3, both non-negative, and it is symmetric positive semi-definite. Writing out the form gives K1(x, z) = 3 x2 z2, which is the inner product of the one-dimensional feature vectors phi(x) = sqrt(3) x2 and phi(z) = sqrt(3) z2.

**Candidate K2, the function <x, z> - 0.5 <x, z>^2.** This one is not a kernel, because the negative coefficient in front of the square wins for long vectors. Taking the single point x = (2, 0) gives <x, x> = 4 and K2(x, x) = 4 - 0.5 * 16 = -4, which is a negative diagonal entry. A one-by-one Gram matrix [-4] is not positive semi-definite.

**Candidate K3, the form x^T B z with B = [[3, 1], [1, 3]].** This one is a kernel. The matrix is symmetric with eigenvalues 3 + 1 = 4 (eigenvector (1, 1)) and 3 - 1 = 2 (eigenvector (1, -1)), both strictly positive. Using the eigendecomposition B = U diag(4, 2) U^T, the feature map phi(x) = diag(2, sqrt(2)) U^T x satisfies <phi(x), phi(z)> = x^T B z.

**Candidate K4, the fifth power <x, z>^5.** This one is a kernel. The linear kernel <x, z> is a kernel and products of kernels are kernels (Schur product theorem), so its fifth power is one too. An explicit feature map consists of all degree-five monomials of (x1, x2) weighted by the square roots of their binomial coefficients: phi(x) = (sqrt(C(5, k)) x1^k x2^(5 - k)) for k = 0, ..., 5.
''',
"closure_proofs": r'''**Part (a), composing with a linear map.** Suppose K has the feature map phi, meaning K(x, z) = <phi(x), phi(z)> for every pair of points. Define a new feature map by first applying the matrix A and then phi, that is psi(x) = phi(A x). Then for every pair of points the inner product <psi(x), psi(z)> equals <phi(A x), phi(A z)>, which is exactly K(A x, A z). Because this new function is an inner product of feature vectors it is a positive semi-definite kernel.

**Part (b), multiplying by a function on both sides.** Again start from K(x, z) = <phi(x), phi(z)>. Define the rescaled feature map psi(x) = f(x) phi(x), where the real number f(x) simply multiplies every coordinate. The inner product of two rescaled vectors pulls both scalars out: <psi(x), psi(z)> = f(x) f(z) <phi(x), phi(z)> = f(x) K(x, z) f(z). So this function is also an inner product of feature vectors and therefore a kernel.
''',
}

# ---------------------------------------------------------------- s06rossi: terse, one-letter names
ANSWERS["s06rossi"] = {
"quadratic_map_answer": r'''def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    X = np.asarray(X, float); c = V["c"]; a, b = X[:, 0], X[:, 1]; r = np.sqrt(2)
    return np.c_[a*a, r*a*b, b*b, r*np.sqrt(c)*a, r*np.sqrt(c)*b, c + 0*a]
''',
"multinomial_map_answer": r'''def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    X = np.asarray(X, float); n, d = X.shape; F = math.factorial; C = []
    for t in itertools.combinations_with_replacement(range(d + 1), p):
        j = np.bincount(t, minlength=d + 1)
        w = F(p)
        for e in j: w //= F(e)
        C.append(np.sqrt(w) * np.prod(X ** j[1:], axis=1))
    return np.array(C).T.reshape(n, -1)
''',
"kernel_verdicts_answer": r'''def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    s = {q["name"]: q for q in V["candidates"]}[name]; k = s["kind"]
    if k == "x^T B z":
        B = np.array(s["B"], float); return bool((B == B.T).all() and np.linalg.eigvalsh(B)[0] >= 0)
    if k == "(x.z)^p": return True
    if k == "s - |x - z|^2": return False
    if k == "a |x - z|": return s["a"] == 0
    if k == "cos(x_i + s z_i)": return s["s"] == -1
    if k == "min or max of |x_i|, |z_i|": return s["op"] == "min"
    if k == "w.x + w.z": return not np.any(s["w"])
    if k == "max(v.x, v.z)": return not np.any(s["v"])
    return s.get("a", s.get("g", s.get("s"))) >= 0
''',
"counterexample_answer": r'''def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    l, U = np.linalg.eigh(gram(name, P)); u = U[:, np.argmin(l)]
    return u / np.linalg.norm(u)
''',
"validity_arguments": r'''K1 = exp(2|x−z|²): no. p=(0,0), q=(1,0): G = [[1, e²], [e², 1]], det = 1 − e⁴ < 0.

K2 = exp(−2 x₂z₂): no. p=(0, ½), q=(0, −½): G = [[e^{−1/2}, e^{1/2}], [e^{1/2}, e^{−1/2}]], det = e^{−1} − e < 0.

K3 = ⟨x,z⟩ + 2⟨x,z⟩²: yes. Sum of kernels with positive weights. φ(x) = (x₁, x₂, √2 x₁², √2 x₂², 2x₁x₂): then ⟨φ(x),φ(z)⟩ = ⟨x,z⟩ + 2(x₁z₁ + x₂z₂)².

K4 = x₂ + z₂: no. x=(0,−1): K4(x,x) = −2 < 0.
''',
"closure_proofs": r'''(a) ψ := φ∘A. ⟨ψ(x),ψ(z)⟩ = K(Ax,Az). Kernel. ∎

(b) ψ := fφ. ⟨ψ(x),ψ(z)⟩ = f(x)f(z)⟨φ(x),φ(z)⟩ = f(x)K(x,z)f(z). Kernel. ∎
''',
}

# ---------------------------------------------------------------- s07nguyen: einsum / broadcasting
ANSWERS["s07nguyen"] = {
"quadratic_map_answer": r'''def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    # (c + <x,z>)^2 = <x~ x~^T, z~ z~^T>_F with x~ = (sqrt(c), x1, x2); keep the upper triangle,
    # off-diagonal entries counted twice (hence sqrt 2).
    X = np.asarray(X, dtype=float)
    Xt = np.concatenate([np.full((X.shape[0], 1), np.sqrt(V["c"])), X], axis=1)
    outer = np.einsum("ni,nj->nij", Xt, Xt)
    iu, ju = np.triu_indices(3)
    weight = np.where(iu == ju, 1.0, np.sqrt(2.0))
    return outer[:, iu, ju] * weight
''',
"multinomial_map_answer": r'''def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    Xt = np.concatenate([np.ones((n, 1)), X], axis=1)             # x~ = (1, x)
    idx = np.array(list(itertools.combinations_with_replacement(range(d + 1), p)), dtype=int)
    counts = np.einsum("mpk->mk", (idx[:, :, None] == np.arange(d + 1)).astype(int))   # (m, d+1) exponents
    fact = np.array([math.factorial(k) for k in range(p + 1)], dtype=float)
    coef = math.factorial(p) / np.prod(fact[counts], axis=1)
    mono = np.prod(Xt[:, idx], axis=2)                             # (n, m): prod of chosen coords
    return mono * np.sqrt(coef)
''',
"kernel_verdicts_answer": r'''def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    spec = {c["name"]: c for c in V["candidates"]}[name]
    match spec["kind"]:
        case "x^T B z":
            B = np.asarray(spec["B"], dtype=float)
            return bool(np.array_equal(B, B.T) and np.all(np.linalg.eigvalsh(B) >= 0))
        case "(x.z)^p":
            return True
        case "s - |x - z|^2":
            return False
        case "a |x - z|":
            return spec["a"] == 0
        case "w.x + w.z":
            return not np.any(spec["w"])
        case "max(v.x, v.z)":
            return not np.any(spec["v"])
        case "cos(x_i + s z_i)":
            return spec["s"] == -1
        case "min or max of |x_i|, |z_i|":
            return spec["op"] == "min"
        case "exp(a x_i z_i)" | "a x.z":
            return spec["a"] >= 0
        case "exp(-g |x - z|^2)":
            return spec["g"] >= 0
        case "x.z + s (x.z)^2" | "(x.z + s)^p" | "x.z + s" | "|x| |z| + s":
            return spec["s"] >= 0
    raise ValueError(f"unknown kind {spec['kind']}")
''',
"counterexample_answer": r'''def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    P = np.asarray(P, dtype=float)
    k = CANDIDATES[name]
    K = np.vectorize(lambda i, j: k(P[i], P[j]))(*np.indices((len(P), len(P))))
    lam, Q = np.linalg.eigh(K)
    a = Q[:, lam.argmin()]
    return a / np.sqrt(np.einsum("i,i->", a, a))
''',
"validity_arguments": r'''1. $K_1(x,z) = 2\langle x,z\rangle$ is a kernel. A non-negative multiple of a kernel is a kernel; the feature map is $\phi(x) = \sqrt2\,x$, since $\langle \sqrt2 x, \sqrt2 z\rangle = 2\langle x, z\rangle$.

2. $K_2(x,z) = e^{2x_1z_1}$ is a kernel. Expand in a power series: $e^{2x_1z_1} = \sum_{n\ge0} \frac{2^n}{n!}(x_1z_1)^n$, a limit of sums of the kernels $(x_1z_1)^n$ with positive weights. An infinite feature map: $\phi_n(x) = \sqrt{2^n/n!}\,x_1^n$, $n = 0, 1, 2, \dots$

3. $K_3(x,z) = \max(|x_1|,|z_1|)$ is not a kernel. On $p = (1,0)$ and $q = (2,0)$ the Gram matrix is $\begin{pmatrix}1&2\\2&2\end{pmatrix}$ with determinant $2 - 4 = -2 < 0$.

4. $K_4(x,z) = \langle x,z\rangle - 1$ is not a kernel. At the origin $K_4(0,0) = -1$, a negative diagonal entry of the Gram matrix on $\{0\}$.
''',
"closure_proofs": r'''Take points $x_1,\dots,x_n$ and stack the feature vectors as rows of $\Phi$, so the Gram matrix of $K$ is $\Phi\Phi^\top$.

(a) The Gram matrix of $K(A\cdot,A\cdot)$ on $x_1,\dots,x_n$ is $\Psi\Psi^\top$ where row $i$ of $\Psi$ is $\phi(Ax_i)$. Any matrix of the form $\Psi\Psi^\top$ is symmetric and $v^\top\Psi\Psi^\top v = \lVert\Psi^\top v\rVert^2\ge0$.

(b) Let $F = \mathrm{diag}(f(x_1),\dots,f(x_n))$. The Gram matrix of $f(x)K(x,z)f(z)$ is $F\Phi\Phi^\top F = (F\Phi)(F\Phi)^\top$, again of the form $\Psi\Psi^\top$, hence PSD.
''',
}

# ---------------------------------------------------------------- s08smith: checks inputs, raises errors
ANSWERS["s08smith"] = {
"quadratic_map_answer": r'''def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        if X.size != 2:
            raise ValueError(f"expected a point of R^2, got shape {X.shape}")
        X = X[None, :]
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2), got {X.shape}")
    c = float(V["c"])
    if c <= 0:
        raise ValueError("c must be positive")
    phi = np.empty((X.shape[0], 6))
    phi[:, 0] = c
    phi[:, 1:3] = np.sqrt(2 * c) * X
    phi[:, 3:5] = X ** 2
    phi[:, 5] = np.sqrt(2) * X[:, 0] * X[:, 1]
    return phi
''',
"multinomial_map_answer": r'''def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    if isinstance(p, bool) or int(p) != p or p < 1:
        raise ValueError(f"p must be a positive integer, got {p!r}")
    p = int(p)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n, d), got shape {X.shape}")
    n, d = X.shape
    columns = []
    for combo in itertools.combinations_with_replacement(range(d + 1), p):
        j = [combo.count(i) for i in range(d + 1)]
        denominator = 1
        for ji in j:
            denominator *= math.factorial(ji)
        weight = math.sqrt(math.factorial(p) / denominator)
        col = np.full(n, weight)
        for i in range(1, d + 1):
            if j[i]:
                col = col * X[:, i - 1] ** j[i]
        columns.append(col)
    result = np.stack(columns, axis=1)
    expected = math.comb(d + p, p)
    if result.shape != (n, expected):
        raise RuntimeError(f"built {result.shape[1]} features, expected {expected}")
    return result
''',
"kernel_verdicts_answer": r'''def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    matches = [spec for spec in V["candidates"] if spec["name"] == name]
    if len(matches) != 1:
        raise KeyError(f"no candidate called {name!r}")
    spec = matches[0]
    kind = spec["kind"]
    if kind == "x^T B z":
        B = np.array(spec["B"], dtype=float)
        if B.shape != (2, 2):
            raise ValueError("B must be 2x2")
        if not np.allclose(B, B.T):
            return False
        return bool(np.linalg.eigvalsh(B).min() >= -1e-12)
    if kind == "(x.z)^p":
        return True
    if kind == "s - |x - z|^2":
        return False
    if kind == "a |x - z|":
        return spec["a"] == 0
    if kind == "w.x + w.z":
        return all(w == 0 for w in spec["w"])
    if kind == "max(v.x, v.z)":
        return all(v == 0 for v in spec["v"])
    if kind == "cos(x_i + s z_i)":
        return spec["s"] == -1
    if kind == "min or max of |x_i|, |z_i|":
        if spec["op"] not in ("min", "max"):
            raise ValueError(f"unknown op {spec['op']!r}")
        return spec["op"] == "min"
    if kind in ("exp(a x_i z_i)", "a x.z"):
        return spec["a"] >= 0
    if kind == "exp(-g |x - z|^2)":
        return spec["g"] >= 0
    if kind in ("x.z + s (x.z)^2", "(x.z + s)^p", "x.z + s", "|x| |z| + s"):
        return spec["s"] >= 0
    raise ValueError(f"don't know the kind {kind!r}")
''',
"counterexample_answer": r'''def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    if name not in CANDIDATES:
        raise KeyError(f"unknown candidate {name!r}")
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[1] != 2 or len(P) == 0:
        raise ValueError(f"P must have shape (m, 2), got {P.shape}")
    G = gram(name, P)
    if not np.all(np.isfinite(G)):
        raise ValueError("Gram matrix has non-finite entries")
    eigenvalues, eigenvectors = np.linalg.eigh((G + G.T) / 2)
    a = eigenvectors[:, 0]
    norm = np.linalg.norm(a)
    if norm == 0:
        raise RuntimeError("zero eigenvector")
    return a / norm
''',
"validity_arguments": r'''* **K1(x, z) = |x| |z| + 0.5 — kernel.** With the feature map φ(x) = (|x|, √0.5) ∈ ℝ² we get ⟨φ(x), φ(z)⟩ = |x||z| + 0.5. (Equivalently: f(x)f(z) with f = |·| is a kernel, and adding the non-negative constant 0.5 keeps it one.)
* **K2(x, z) = cos(x1 − z1) — kernel.** The angle-difference formula gives cos(x1 − z1) = cos x1 cos z1 + sin x1 sin z1, so φ(x) = (cos x1, sin x1) is a feature map.
* **K3(x, z) = max(x1, z1) — not a kernel.** The diagonal is K3(x, x) = x1, negative at x = (−1, 0): the 1×1 Gram matrix [−1] fails.
* **K4(x, z) = max(|x1|, |z1|) — not a kernel.** Points (1, 0) and (3, 0) give the Gram matrix [[1, 3], [3, 3]], whose determinant is 3 − 9 = −6 < 0, so it has a negative eigenvalue.
''',
"closure_proofs": r'''Claim (a). Let x_1, …, x_n be any points and y_i = A x_i. For every c ∈ ℝⁿ,
Σ_ij c_i c_j K(A x_i, A x_j) = Σ_ij c_i c_j ⟨φ(y_i), φ(y_j)⟩ = ‖Σ_i c_i φ(y_i)‖² ≥ 0,
and K(Ax, Az) = K(Az, Ax) by symmetry of K. So every Gram matrix of (x, z) ↦ K(Ax, Az) is symmetric PSD: it is a kernel.

Claim (b). Same points, same c. Put b_i = c_i f(x_i). Then
Σ_ij c_i c_j f(x_i) K(x_i, x_j) f(x_j) = Σ_ij b_i b_j K(x_i, x_j) ≥ 0
because K is a kernel, and symmetry is clear. Hence f(x) K(x, z) f(z) is a kernel.
''',
}

# ---------------------------------------------------------------- s09tanaka: classes
ANSWERS["s09tanaka"] = {
"quadratic_map_answer": r'''class QuadraticMap:
    """phi for (c + <x, z>)^2 on R^2."""

    def __init__(self, c):
        self.c = float(c)
        self.root_two = np.sqrt(2.0)
        self.root_two_c = np.sqrt(2.0 * self.c)

    def features(self, x):
        u, v = x
        return np.array([self.c, self.root_two_c * u, self.root_two_c * v,
                         u ** 2, v ** 2, self.root_two * u * v])

    def __call__(self, X):
        X = np.asarray(X, dtype=float)
        if len(X) == 0:
            return np.zeros((0, 6))
        return np.vstack([self.features(x) for x in X])


def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    return QuadraticMap(V["c"])(X)
''',
"multinomial_map_answer": r'''class MultinomialMap:
    """Feature map of (1 + <x, z>)^p on R^d, one coordinate per multi-index."""

    def __init__(self, d, p):
        self.d, self.p = d, p
        self.exponents = []
        self.weights = []
        for combo in itertools.combinations_with_replacement(range(d + 1), p):
            j = np.zeros(d + 1, dtype=int)
            for i in combo:
                j[i] += 1
            self.exponents.append(j[1:])
            self.weights.append(math.sqrt(math.factorial(p) / math.prod(math.factorial(int(t)) for t in j)))
        self.exponents = np.array(self.exponents)
        self.weights = np.array(self.weights)

    def __call__(self, X):
        X = np.asarray(X, dtype=float)
        out = np.ones((X.shape[0], len(self.weights)))
        for col, e in enumerate(self.exponents):
            for i in range(self.d):
                out[:, col] *= X[:, i] ** e[i]
        return out * self.weights


def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    X = np.asarray(X, dtype=float)
    return MultinomialMap(X.shape[1], p)(X)
''',
"kernel_verdicts_answer": r'''class Candidate:
    """One candidate of my variant, with the rule deciding whether it is a kernel."""

    SIGN_PARAMETER = {"exp(a x_i z_i)": "a", "a x.z": "a", "exp(-g |x - z|^2)": "g",
                      "x.z + s (x.z)^2": "s", "(x.z + s)^p": "s", "x.z + s": "s",
                      "|x| |z| + s": "s"}

    def __init__(self, spec):
        self.spec = spec
        self.kind = spec["kind"]

    def is_psd_kernel(self):
        kind, spec = self.kind, self.spec
        if kind in self.SIGN_PARAMETER:
            return spec[self.SIGN_PARAMETER[kind]] >= 0
        if kind == "x^T B z":
            B = np.array(spec["B"], dtype=float)
            return bool((B == B.T).all() and np.linalg.eigvalsh(B).min() >= 0)
        if kind == "(x.z)^p":
            return True
        if kind == "s - |x - z|^2":
            return False
        if kind == "a |x - z|":
            return spec["a"] == 0
        if kind == "w.x + w.z":
            return not any(spec["w"])
        if kind == "max(v.x, v.z)":
            return not any(spec["v"])
        if kind == "cos(x_i + s z_i)":
            return spec["s"] == -1
        if kind == "min or max of |x_i|, |z_i|":
            return spec["op"] == "min"
        raise NotImplementedError(kind)


def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    for spec in V["candidates"]:
        if spec["name"] == name:
            return bool(Candidate(spec).is_psd_kernel())
    raise KeyError(name)
''',
"counterexample_answer": r'''class GramMatrix:
    def __init__(self, kernel, points):
        self.points = np.asarray(points, dtype=float)
        m = len(self.points)
        self.matrix = np.empty((m, m))
        for i in range(m):
            for j in range(i, m):
                self.matrix[i, j] = self.matrix[j, i] = kernel(self.points[i], self.points[j])

    def lowest_direction(self):
        values, vectors = np.linalg.eigh(self.matrix)
        v = vectors[:, 0]
        return v / np.linalg.norm(v)


def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    return GramMatrix(CANDIDATES[name], P).lowest_direction()
''',
"validity_arguments": r'''K1 (x^T B z, B = [[1, -3], [-3, -2]]): NOT a kernel. Diagonal entry B22 = -2, so for e2 = (0, 1) the value K1(e2, e2) = -2 is negative. Also det B = -2 - 9 = -11, the eigenvalues have opposite signs. On the points {e1, e2} the Gram matrix equals B, which is indefinite.

K2 (x^T B z, B = [[3, -3], [-3, -2]]): NOT a kernel, for the same reason: K2(e2, e2) = B22 = -2 < 0, and det B = -6 - 9 = -15 < 0. A form x^T B z is a kernel only when B is PSD, since its Gram matrix on points X is X B X^T.

K3 (max(-x1, -z1)): NOT a kernel. On the diagonal K3(x, x) = -x1, which is -1 at x = (1, 0). A Gram matrix with a negative diagonal entry is not PSD (take a = the corresponding unit vector).

K4 (|x| |z| - 2): NOT a kernel. At x = 0, K4(0, 0) = -2. Another example: x = (1, 0), z = (0, 1) give the Gram matrix [[-1, -1], [-1, -1]], eigenvalues 0 and -2.
''',
"closure_proofs": r'''(a) Let Phi be the feature map of K. The map x -> Phi(Ax) is a composition of a linear map and Phi, so it is a well-defined map into the same feature space H. Its inner products are K(Ax, Az). Having a feature map means being a kernel, therefore (x, z) -> K(Ax, Az) is positive semi-definite.

(b) Consider g(x) = f(x) Phi(x) in H (multiply the vector Phi(x) by the number f(x)). By bilinearity of the inner product, <g(x), g(z)> = f(x) f(z) <Phi(x), Phi(z)> = f(x) K(x, z) f(z). So g is a feature map of the new function and it is a kernel.
''',
}

# ---------------------------------------------------------------- s10silva: textbook notation
ANSWERS["s10silva"] = {
"quadratic_map_answer": r'''def quadratic_feature_map(X):
    """Rows phi(x_i) with <phi(x), phi(z)> = (c + <x, z>)^2, c = V["c"], for X of shape (n, 2)."""
    # K(x, z) = (c + <x, z>)^2 = <phi(x), phi(z)>,
    # the six coordinates: squares of x_1 and x_2, their product times sqrt(2), sqrt(2c) x_1, sqrt(2c) x_2, then c
    c = V["c"]
    X = np.asarray(X, dtype=float)
    Phi = np.zeros((X.shape[0], 6))
    for i, x_i in enumerate(X):
        x_1, x_2 = x_i
        Phi[i] = [x_1 ** 2, x_2 ** 2, np.sqrt(2) * x_1 * x_2,
                  np.sqrt(2 * c) * x_1, np.sqrt(2 * c) * x_2, c]
    return Phi
''',
"multinomial_map_answer": r'''def multinomial_feature_map(X, p):
    """Rows phi(x_i) with <phi(x), phi(z)> = (1 + <x, z>)^p, for X of shape (n, d)."""
    # phi_j(x) = sqrt(p! / (j_0! j_1! ... j_d!)) prod_{i=1}^d x_i^{j_i}, over j_0 + ... + j_d = p
    X = np.asarray(X, dtype=float)
    n, d = X.shape

    def multi_indices(k, total):
        # all (j_1, ..., j_k) in N^k with j_1 + ... + j_k <= total
        if k == 0:
            yield ()
            return
        for j_k in range(total + 1):
            for head in multi_indices(k - 1, total - j_k):
                yield head + (j_k,)

    J = list(multi_indices(d, p))
    Phi = np.empty((n, len(J)))
    for col, j in enumerate(J):
        j_0 = p - sum(j)
        coeff = math.factorial(p) / math.factorial(j_0)
        for j_i in j:
            coeff /= math.factorial(j_i)
        Phi[:, col] = np.sqrt(coeff) * np.prod(X ** np.array(j), axis=1)
    return Phi
''',
"kernel_verdicts_answer": r'''def is_kernel(name):
    """True if CANDIDATES[name] is a positive semi-definite kernel on R^2."""
    # K is a kernel iff every Gram matrix (K(x_i, x_j))_{ij} is symmetric PSD.
    theta = next(spec for spec in V["candidates"] if spec["name"] == name)
    kind = theta["kind"]
    if kind == "x^T B z":                       # Gram = X B X^T: PSD iff B PSD
        B = np.array(theta["B"], dtype=float)
        lam = np.linalg.eigvalsh((B + B.T) / 2)
        return bool(np.allclose(B, B.T) and lam[0] >= 0)
    if kind == "(x.z)^p":                       # product of kernels
        return True
    if kind == "s - |x - z|^2":                 # det < 0 for |x - z|^2 > 2s
        return False
    if kind == "a |x - z|":                     # zero diagonal
        return theta["a"] == 0
    if kind in ("w.x + w.z", "max(v.x, v.z)"):  # K(x, x) = w^T x takes both signs
        u = theta["w"] if kind == "w.x + w.z" else theta["v"]
        return bool(np.all(np.asarray(u) == 0))
    if kind == "cos(x_i + s z_i)":              # cos(x - z) = cos x cos z + sin x sin z
        return theta["s"] == -1
    if kind == "min or max of |x_i|, |z_i|":    # min(s, t) = int 1[u <= s] 1[u <= t] du
        return theta["op"] == "min"
    if kind in ("exp(a x_i z_i)", "a x.z"):
        return theta["a"] >= 0
    if kind == "exp(-g |x - z|^2)":
        return theta["g"] >= 0
    return theta["s"] >= 0                      # the constants / coefficients s
''',
"counterexample_answer": r'''def witness(name, P):
    """Unit vector a minimising sum_ij a_i a_j k(p_i, p_j) for candidate ``name`` on P."""
    # min_{||a|| = 1} a^T K a = lambda_min(K) (Rayleigh), attained at its eigenvector
    K = gram(name, P)
    lam, U = np.linalg.eigh(K)
    a = U[:, 0]
    return a / np.linalg.norm(a)
''',
"validity_arguments": r'''**$K_1(x,z) = \exp(x_1 z_1)$.** Kernel. Taylor: $\exp(x_1z_1) = \sum_{n=0}^\infty \frac{(x_1z_1)^n}{n!} = \langle\phi(x),\phi(z)\rangle_{\ell^2}$ with $\phi(x) = \left(\frac{x_1^n}{\sqrt{n!}}\right)_{n\ge0}$. Alternatively: $x_1z_1$ is a kernel and $\exp$ of a kernel is a kernel (limit of polynomials with non-negative coefficients).

**$K_2(x,z) = \langle x,z\rangle - 2\langle x,z\rangle^2$.** Not a kernel. Let $x = (1,0)$: $K_2(x,x) = 1 - 2 = -1 < 0$, so the Gram matrix on $\{x\}$ is $(-1)$.

**$K_3(x,z) = \langle x,z\rangle$.** Kernel, the linear kernel: $\phi = \mathrm{id}$, $\sum_{i,j}\alpha_i\alpha_j\langle x_i,x_j\rangle = \lVert\sum_i\alpha_ix_i\rVert^2\ge0$.

**$K_4(x,z) = -x_1 - z_1$.** Not a kernel. With $x = (1,0)$, $K_4(x,x) = -2 < 0$. Two points $x=(1,0)$, $z=(-1,0)$ give $\begin{pmatrix}-2&0\\0&2\end{pmatrix}$, eigenvalue $-2$.
''',
"closure_proofs": r'''Let $K(x,z) = \langle\phi(x),\phi(z)\rangle_{\mathcal H}$.

**(a)** Define $\tilde\phi := \phi\circ A : \mathbb R^2\to\mathcal H$. Then $\langle\tilde\phi(x),\tilde\phi(z)\rangle_{\mathcal H} = \langle\phi(Ax),\phi(Az)\rangle_{\mathcal H} = K(Ax,Az)$, so $\tilde K(x,z) := K(Ax,Az)$ has a feature map and is a kernel.

**(b)** Define $\tilde\phi(x) := f(x)\,\phi(x)\in\mathcal H$. Then $\langle\tilde\phi(x),\tilde\phi(z)\rangle_{\mathcal H} = f(x)f(z)\,\langle\phi(x),\phi(z)\rangle_{\mathcal H} = f(x)K(x,z)f(z)$, hence a kernel. $\square$
''',
}

INDEPENDENT = {student[3:]: answers for student, answers in ANSWERS.items()}
