"""Three more honest ps1 answers, in styles the similarity check's counts of
wrapping must not take for wrapping: a helper for ``np.asarray`` called in every
part, casts to ``float`` everywhere, and a class for each part.  Each value is
the list of the answer's code cells, as handed in."""

__all__ = ["STYLES"]

STYLES = {
    "helpers": [
        '''\
arr = lambda v: np.asarray(v, dtype=float)
col = lambda v: arr(v).reshape(-1, 1)


def quadratic_feature_map(X):
    X = arr(X)
    c = V["c"]
    a = col(X[:, 0])
    b = col(X[:, 1])
    one = col(np.ones(len(X)))
    return np.hstack([col(a ** 2), col(b ** 2), col(np.sqrt(2) * a * b), col(np.sqrt(2 * c) * a), col(np.sqrt(2 * c) * b), col(c * one)])
''',
        '''\
def multinomial_feature_map(X, p):
    X = arr(X)
    n, d = X.shape
    Xt = np.hstack([col(np.ones(n)), X])
    cols = []
    for combo in itertools.combinations_with_replacement(range(d + 1), p):
        js = arr([combo.count(i) for i in range(d + 1)])
        coef = math.factorial(p) / np.prod([math.factorial(int(j)) for j in js])
        cols.append(col(np.sqrt(coef) * np.prod(Xt ** js, axis=1)))
    return np.hstack(cols)
''',
        '''\
def is_kernel(name):
    rng = np.random.default_rng(5)
    for s in (0.3, 1.0, 2.5):
        for _ in range(100):
            G = arr(gram(name, arr(rng.normal(size=(5, 2)) * s)))
            if not np.allclose(G, G.T):
                return False
            if np.linalg.eigvalsh(arr((G + G.T) / 2)).min() < -1e-7 * max(1.0, abs(G).max()):
                return False
    return True
''',
        '''\
def witness(name, P):
    G = arr(gram(name, arr(P)))
    w, v = np.linalg.eigh(arr((G + G.T) / 2))
    return arr(v[:, int(np.argmin(w))])
''',
    ],
    "casts": [
        '''\
def quadratic_feature_map(X):
    c = float(V["c"])
    rows = []
    for x in np.asarray(X, dtype=float).tolist():
        a = float(x[0])
        b = float(x[1])
        s2 = float(math.sqrt(2.0))
        sc = float(math.sqrt(2.0 * c))
        rows.append([float(a ** 2), float(b ** 2), float(s2 * a * b), float(sc * a), float(sc * b), float(c)])
    return np.array(rows, dtype=float)
''',
        '''\
def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    n = int(X.shape[0])
    d = int(X.shape[1])
    p = int(p)
    out = []
    for r in range(n):
        x = [1.0] + [float(v) for v in X[r]]
        row = []
        for combo in itertools.combinations_with_replacement(range(d + 1), p):
            js = [int(combo.count(i)) for i in range(d + 1)]
            w = float(math.factorial(p))
            for j in js:
                w = float(w / math.factorial(j))
            m = float(1.0)
            for i in range(d + 1):
                m = float(m * float(x[i]) ** int(js[i]))
            row.append(float(math.sqrt(w)) * m)
        out.append(row)
    return np.array(out, dtype=float)
''',
        '''\
def is_kernel(name):
    rng = np.random.default_rng(int(3))
    for scale in [float(0.1), float(1.0), float(3.0)]:
        for t in range(int(100)):
            P = np.asarray(rng.normal(size=(int(5), int(2))) * float(scale), dtype=float)
            G = np.asarray(gram(str(name), P), dtype=float)
            if float(np.max(np.abs(G - G.T))) > float(1e-9):
                return bool(False)
            lo = float(np.min(np.linalg.eigvalsh(0.5 * (G + G.T))))
            if lo < -float(1e-7) * float(max(1.0, float(np.max(np.abs(G))))):
                return bool(False)
    return bool(True)
''',
        '''\
def witness(name, P):
    P = np.asarray(P, dtype=float)
    G = np.asarray(gram(str(name), P), dtype=float)
    w, v = np.linalg.eigh(0.5 * (G + G.T))
    a = np.asarray(v[:, int(np.argmin(w))], dtype=float)
    return a / float(np.linalg.norm(a))
''',
    ],
    "classes": [
        '''\
class QuadraticMap:
    def __init__(self, c):
        self.c = float(c)

    def one(self, x):
        a, b = float(x[0]), float(x[1])
        k = (2.0 * self.c) ** 0.5
        return [a * a, b * b, (2.0 ** 0.5) * a * b, k * a, k * b, self.c]

    def __call__(self, X):
        return np.array([self.one(x) for x in np.asarray(X, dtype=float)])


def quadratic_feature_map(X):
    return QuadraticMap(V["c"])(X)
''',
        '''\
class MultinomialMap:
    def __init__(self, d, p):
        self.d, self.p = d, p
        self.terms = []
        for combo in itertools.combinations_with_replacement(range(d + 1), p):
            js = tuple(combo.count(i) for i in range(d + 1))
            w = math.factorial(p)
            for j in js:
                w /= math.factorial(j)
            self.terms.append((js, math.sqrt(w)))

    def features(self, x):
        xt = [1.0] + list(x)
        row = []
        for js, w in self.terms:
            v = w
            for xi, j in zip(xt, js):
                v *= xi ** j
            row.append(v)
        return row

    def __call__(self, X):
        return np.array([self.features(x) for x in X])


def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    return MultinomialMap(X.shape[1], p)(X)
''',
        '''\
class KernelTester:
    def __init__(self, seed=11, trials=250):
        self.rng = np.random.default_rng(seed)
        self.trials = trials

    def sample(self):
        return self.rng.uniform(-3, 3, size=(5, 2))

    def passes(self, name):
        for t in range(self.trials):
            G = gram(name, self.sample())
            if np.max(np.abs(G - G.T)) > 1e-9:
                return False
            if np.linalg.eigvalsh((G + G.T) / 2).min() < -1e-7 * max(1.0, np.abs(G).max()):
                return False
        return True


def is_kernel(name):
    return KernelTester().passes(name)
''',
        '''\
class Witness:
    def __init__(self, name):
        self.name = name

    def of(self, P):
        M = gram(self.name, np.asarray(P, dtype=float))
        w, v = np.linalg.eigh((M + M.T) / 2)
        return v[:, int(np.argmin(w))]


def witness(name, P):
    return Witness(name).of(P)
''',
    ],
}
