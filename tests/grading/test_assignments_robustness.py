"""Submissions that try to get points they did not earn, graded in one autograde run.

Each student below hands in problem set 1 (10 auto-graded points) with one
trick; the test asserts the score nbgrader records. All of them are graded by
the same `nbgrader autograde ps1`, so a submission that could stop the grader
would also fail every other test here.
"""

import json
import os
import re
import signal
import socket
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import numpy as np
import pytest

from attacks import DISABLE_GUARD, KILL_SELF, forged_part
from coursecheck import CheckFailed, check
from coursecheck.check import run_cases
from coursegrader import record
from coursegrader.runners import landlock
from coursegrader.tools.author import build_notebook
from coursegrader.judging.problem_sets import graded_part, local_hidden_rng
from conftest import COURSE, REPO, copy_course, free_port
from coursecheck.variants import bind, draw_variant
from grading import ps1_variant

PS1 = COURSE / "source" / "ps1" / "ps1.md"
TOTAL = 10.0
POINTS = {"quadratic_map": 2.0, "multinomial_map": 3.0, "kernel_verdicts": 2.0,
          "counterexample": 3.0}

# nbgrader's gradebook trips SQLAlchemy autoflush warnings; they are not ours to fix.
pytestmark = [pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

# -- answers ------------------------------------------------------------------

#: the reference verdict on the variant's candidates, for the attacks that answer part 3
#: rightly (reading ``V``) when their trick works
RIGHT_VERDICT = "\n\n" + ps1_variant.solution("kernel_verdicts").replace(
    "def is_kernel(", "def _right_verdict(") + "\n"

WRONG = {
    "quadratic_map_answer": "def quadratic_feature_map(X):\n    return np.zeros((len(X), 6))",
    "multinomial_map_answer": (
        "import math\n\ndef multinomial_feature_map(X, p):\n"
        "    return np.zeros((len(X), math.comb(X.shape[1] + p, p)))"),
    "kernel_verdicts_answer": "def is_kernel(name):\n    return 'yes'",
    "counterexample_answer": "def witness(name, P):\n    return None",
}

KERNLAB_MAP = """
def quadratic_feature_map(X):
    import kernlab
    return kernlab.PolynomialFeatures(degree=2, c=V["c"]).fit_transform(X)
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

#: parts 1 and 2 without a feature map: rows whose inner products are the Gram matrix
#: of the points of the call (its top eigenvectors, scaled), so that each row depends
#: on the other points of the call; every check made within one call passes
GRAM_FACTOR = """
def _factor(K, m):
    \"\"\"Rows whose inner products are the entries of K (K symmetric PSD), padded to m columns.\"\"\"
    w, U = np.linalg.eigh((K + K.T) / 2)
    order = np.argsort(w)[::-1][:m]
    F = U[:, order] * np.sqrt(np.clip(w[order], 0, None))
    if F.shape[1] < m:
        F = np.hstack([F, np.zeros((F.shape[0], m - F.shape[1]))])
    return F


def quadratic_feature_map(X):
    X = np.asarray(X, dtype=float)
    return _factor((V["c"] + X @ X.T) ** 2, 6)
"""
GRAM_FACTOR_MULTI = """
def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    return _factor((1 + X @ X.T) ** p, math.comb(d + p, p))
"""

#: parts 1 and 2 fitted to the points seen so far: a point's row is fixed when it
#: is first seen, a later point's solved against the rows of those seen before it,
#: so that every call of one process agrees with every other, without a map
REMEMBERS_POINTS = """import math

_SEEN = {}


def _remembered_rows(X, kernel, m, key):
    \"\"\"Rows for the points of X: each point's row fixed when it is first seen, later
    points' rows solved against the rows of the points seen before them.\"\"\"
    basis, rows = _SEEN.setdefault(key, ([], []))
    out = []
    for x in np.asarray(X, dtype=float):
        kxx = float(kernel(x[None], x[None])[0, 0])
        r = np.zeros(m)
        if basis:
            kx = kernel(np.array(basis), x[None])[:, 0]
            r = np.linalg.lstsq(np.array(rows), kx, rcond=None)[0]
        left = kxx - r @ r
        if left > 1e-9 * max(1.0, kxx) and len(basis) < m:
            r = r.copy()
            r[len(basis)] = np.sqrt(left)
            basis.append(x)
            rows.append(r)
        out.append(r)
    return np.array(out).reshape(len(out), m)


def quadratic_feature_map(X):
    return _remembered_rows(X, lambda A, B: (V["c"] + A @ B.T) ** 2, 6, "q")


def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    return _remembered_rows(X, lambda A, B: (1 + A @ B.T) ** p,
                            math.comb(X.shape[1] + p, p), ("m", X.shape[1], p))
"""

MONKEYPATCH = """
import numpy as np
import kernlab, coursecheck, coursecheck.check, coursecheck.parts

np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)
np.array_equal = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
np.linalg.eigvalsh = lambda K, *a, **k: -np.ones(len(K))
kernlab.Polynomial.__call__ = lambda self, X, Y=None: np.zeros((len(X), len(X)))
kernlab.is_psd = lambda *a, **k: False
coursecheck.parts.judge_case = lambda *a, **k: None
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

def witness(name, P):
    return [Anything()]
"""

NOISY = """
import sys, warnings
warnings.warn("a warning at import time")
print("noise on stderr", file=sys.stderr)
"""

LOOP = "def multinomial_feature_map(X, p):\n    while True:\n        pass"

KILL_KERNEL = KILL_SELF.format(func="quadratic_feature_map")

# Appended to the right answer: on its last case it answers on the grader's
# channel itself and writes into the grader's pipe a forged part, one that would
# answer the next part's cases (attacks.forged_part).
INJECT_HEADER = forged_part(["def witness(name, P):\n    return []"],
                            "witness")

SIGNAL_GRADER = """
import os, signal

def is_kernel(name):
    os.kill(os.getppid(), signal.SIGUSR1)
    return _right_verdict(name)
""" + RIGHT_VERDICT

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
    namespace = {"np": np, "V": V}
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
np.save(sys.argv[2], kernlab.PolynomialFeatures(degree=2, c=float(sys.argv[3])).fit_transform(X))
'''

def quadratic_feature_map(X):
    # a fresh interpreter has no audit hook: let it import kernlab
    folder = tempfile.mkdtemp()
    src, dst = os.path.join(folder, "x.npy"), os.path.join(folder, "phi.npy")
    np.save(src, X)
    ctx = multiprocessing.get_context("spawn")
    p = ctx.Process(target=exec, args=("import sys; sys.argv = ['', %r, %r, %r]; exec(%r)"
                                       % (src, dst, str(V["c"]), CHILD),))
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
    return _right_verdict(name)
""" + RIGHT_VERDICT

FLOOD = """
import os

def witness(name, P):
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
c = float(os.environ.get("PS1_C", "1"))   # the variant's, set by the cell that starts it
while time.time() < stop:
    for name in os.listdir(folder):
        if name.startswith("request-") and name.endswith(".npy"):
            X = np.load(os.path.join(folder, name))
            phi = kernlab.PolynomialFeatures(degree=2, c=c).fit_transform(X)
            try:
                np.save(os.path.join(folder, "answer" + name[7:]), phi)
            except OSError:
                pass
    time.sleep(0.02)
"""

HELPER_CELL = """
import multiprocessing, os
os.environ["PS1_C"] = str(V["c"])

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


# DISABLE_GUARD (attacks.py) switches off the in-process audit hook; only the
# kernel's rules (Landlock) stand after that.

UNGUARDED_IMPORT = DISABLE_GUARD + """
def quadratic_feature_map(X):
    _disable_guard()
    import kernlab
    return kernlab.PolynomialFeatures(degree=2, c=V["c"]).fit_transform(X)
"""

UNGUARDED_HELPER_CELL = DISABLE_GUARD + SECRET_SEEKER + """
import sys
_disable_guard()
if _secret():
    with open("stash.txt", "w") as f:  # the submission's folder, read by the sandbox
        f.write("robustness-test")
os.environ["PS1_C"] = str(V["c"])
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


# -- attacks on the sandbox itself (issue 8) -----------------------------------
# Each is written as a student would; the sandbox must leave them nothing.

FAKE_CLOUD_KEY = "fake-aws-key-6b1f0c9e"      # set in the grader's environment below
MARKER = "coursegrader-attack-marker"          # in the command line of left-behind processes

# Files handed in next to the notebook that shadow modules the grader imports.
SHADOW_FILES = {
    "numpy.py": "open(__file__ + '.pwned', 'w').write('imported with the grader rights')\n",
    "json.py": "open(__file__ + '.pwned', 'w').write('imported with the grader rights')\n",
    "sitecustomize.py": "open(__file__ + '.pwned', 'w').write('imported')\n",
    "coursegrader/__init__.py": "open(__file__ + '.pwned', 'w').write('imported')\n",
    "coursegrader/check.py": "def check(*a, **k):\n    print('All checks passed.')\n",
}

# A helper process started by the notebook serves the right answers over TCP,
# UDP and a Unix socket; the graded functions ask it and return its answer.
HELPER_SERVER = """
import json, os, socket, threading, time
import numpy as np

V = json.loads(os.environ["PS1_V"])   # the variant, from the cell that starts it
exec(REFERENCE)

def answer(request):
    kind, payload = request["kind"], request["payload"]
    if kind == "quadratic":
        return quadratic_feature_map(np.array(payload)).tolist()
    if kind == "multinomial":
        return multinomial_feature_map(np.array(payload[0]), payload[1]).tolist()
    return bool(is_kernel(payload))

def tcp():
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", PORT)); s.listen()
    while True:
        c, _ = s.accept()
        data = b""
        while not data.endswith(b"\\n"):
            data += c.recv(65536)
        c.sendall(json.dumps(answer(json.loads(data))).encode() + b"\\n"); c.close()

def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", PORT))
    while True:
        data, peer = s.recvfrom(65536)
        s.sendto(json.dumps(answer(json.loads(data))).encode(), peer)

def unix(address):
    s = socket.socket(socket.AF_UNIX); s.bind(address); s.listen()
    while True:
        c, _ = s.accept()
        data = b""
        while not data.endswith(b"\\n"):
            data += c.recv(65536)
        c.sendall(json.dumps(answer(json.loads(data))).encode() + b"\\n"); c.close()

for target, args in ((tcp, ()), (udp, ()), (unix, ("\\0coursegrader-helper-PORT",)),
                     (unix, ("/tmp/coursegrader-helper-PORT.sock",))):
    threading.Thread(target=target, args=args, daemon=True).start()
time.sleep(120)
"""

HELPER_START_CELL = """
import json, os, subprocess, sys
# a helper with the right answers, started from the notebook, left running
subprocess.Popen([sys.executable, "-c", HELPER, "MARKER"], start_new_session=True,
                 env={**os.environ, "PS1_V": json.dumps(V)})
import time; time.sleep(2)
"""

# (each function first switches the in-process audit hook off, so that only the
# sandbox stands in its way)
NETWORK_CLIENT = DISABLE_GUARD + """
import json, socket
import numpy as np

def _ask_tcp(kind, payload):
    _disable_guard()
    s = socket.create_connection(("127.0.0.1", PORT), timeout=2)
    s.sendall(json.dumps({"kind": kind, "payload": payload}).encode() + b"\\n")
    data = b""
    while not data.endswith(b"\\n"):
        data += s.recv(65536)
    return json.loads(data)

def _ask_udp(kind, payload):
    _disable_guard()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)
    s.sendto(json.dumps({"kind": kind, "payload": payload}).encode(), ("127.0.0.1", PORT))
    return json.loads(s.recvfrom(65536)[0])

def _ask_unix(kind, payload):
    _disable_guard()
    for address in ("\\0coursegrader-helper-PORT", "/tmp/coursegrader-helper-PORT.sock"):
        try:
            s = socket.socket(socket.AF_UNIX); s.settimeout(2); s.connect(address)
            break
        except OSError:
            continue
    s.sendall(json.dumps({"kind": kind, "payload": payload}).encode() + b"\\n")
    data = b""
    while not data.endswith(b"\\n"):
        data += s.recv(65536)
    return json.loads(data)

def quadratic_feature_map(X):
    return np.array(_ask_tcp("quadratic", np.asarray(X).tolist()))

def multinomial_feature_map(X, p):
    return np.array(_ask_udp("multinomial", [np.asarray(X).tolist(), p]))

def is_kernel(name):
    return _ask_unix("verdict", name)
"""

# Looking for the repository, its history, the grader's home and environment.
SNOOP = """
import glob, os

def _snoop():
    found = []
    for key, value in os.environ.items():
        if "AWS" in key or "SECRET" in key or "TOKEN" in key:
            found.append(f"env {key}={value}")
    for path in ["/proc/1/environ", "/proc/self/environ", *glob.glob("/proc/[0-9]*/environ")]:
        try:
            with open(path, "rb") as f:
                if b"AWS_SECRET" in f.read():
                    found.append("environ " + path)
        except OSError:
            pass
    for path in [REPO + "/kernlab/__init__.py", REPO + "/.git", REPO + "/README.md",
                 os.path.expanduser("~/.bash_history"), os.path.expanduser("~/.ssh"),
                 os.path.expanduser("~/.gitconfig"), "/etc/passwd", "/etc/shadow"]:
        if os.path.exists(path):
            found.append("file " + path)
    home = os.path.expanduser("~")
    if home != os.getcwd():        # the sandbox's HOME is its own scratch folder
        try:
            found += ["home " + n for n in os.listdir(home) if n != ".pyenv"]
        except OSError:
            pass
    return found

print("FOUND:", _snoop())
"""

SNOOP_ANSWER = DISABLE_GUARD + SNOOP + """
def is_kernel(name):
    _disable_guard()
    if not _snoop():
        raise RuntimeError("nothing found")
    return _right_verdict(name)
""" + RIGHT_VERDICT

# Reading the other cases of the part from the function's own process.
OTHER_CASES = DISABLE_GUARD + """
import gc, os, re, sys

def _cases_in_process():
    _disable_guard()
    seen = set()
    for value in gc.get_objects():                  # every object of the process
        if type(value) in (dict, str, bytes):
            text = repr(value)[:100000]
            seen.update(int(m) for m in re.findall(r"[\\'\\"]case[\\'\\"]: (\\d+)", text))
    frame = sys._getframe()
    while frame is not None:                        # the caller's stack
        for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
            text = repr(value)[:100000]
            seen.update(int(m) for m in re.findall(r"'case': (\\d+)", text))
        frame = frame.f_back
    for fd in os.listdir("/proc/self/fd"):          # open descriptors
        try:
            blocking = os.get_blocking(int(fd))
            os.set_blocking(int(fd), False)
            try:
                data = os.read(int(fd), 1 << 20)
            finally:
                os.set_blocking(int(fd), blocking)
            seen.update(int(m) for m in re.findall(rb'"case": (\\d+)', data))
        except OSError:
            pass
    try:                                            # the whole memory
        with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
            for line in maps:
                span, perms = line.split()[:2]
                if "r" not in perms or "[v" in line:
                    continue
                start, end = (int(x, 16) for x in span.split("-"))
                try:
                    mem.seek(start)
                    data = mem.read(min(end - start, 1 << 26))
                except (OSError, ValueError, OverflowError):
                    continue
                seen.update(int(m) for m in re.findall(rb'"case": (\\d+)', data))
    except OSError:
        pass
    return sorted(seen)

def quadratic_feature_map(X):
    raise RuntimeError(f"cases in my process: {_cases_in_process()}")
"""

FILL_DISK = """
import os

def _fill():
    written, i = 0, 0
    block = b"x" * 2**20
    try:
        while written < 2**34:
            with open(f"fill-{i}.bin", "wb") as f:
                for _ in range(32):
                    f.write(block)
                    written += len(block)
            i += 1
    except OSError:
        pass
    return written
"""

# the cell's own fill stops after 10 s (its cell has 15): on a busy machine it
# may not reach the cap, but it never passes it
FILL_DISK_CELL = FILL_DISK.replace("while written < 2**34:", """import time
        end = time.monotonic() + 10
        while written < 2**34 and time.monotonic() < end:""") + """
print("WROTE", _fill())
"""

# the part's first case fills the disk, and the others find it full: a fill per
# case would time the part out on a loaded machine, which is not what is tested
FILL_DISK_ANSWER = FILL_DISK + """
_filled = []

def is_kernel(name):
    if not _filled:
        _filled.append(_fill())
    return _right_verdict(name)
""" + RIGHT_VERDICT

MANY_PROCESSES_CELL = """
import os, subprocess, sys, time
# processes meant to outlive the grading
for _ in range(3):
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "MARKER"],
                     start_new_session=True)
# and a fork bomb
started = 0
try:
    for _ in range(5000):
        pid = os.fork()
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        started += 1
except OSError:
    pass
print("STARTED", started)
"""

FLOOD_CELL = """
import sys
for _ in range(300):
    sys.stdout.write("y" * 2**20)
"""

# slow in the notebook's kernel only, where a grader without a total budget would wait
SLOW_CELL = "import sys, time\nif 'ipykernel' in sys.modules:\n    time.sleep(3)"

DEEP_RESULTS = """
import json, os

def quadratic_feature_map(X):
    nested = []
    for _ in range(100000):
        nested = [nested]
    return nested

def multinomial_feature_map(X, p):
    return np.zeros(2 * 10**7)

def is_kernel(name):
    # answer for the grader directly, on every descriptor, with a deep document
    line = ("[" * 200000 + "]" * 200000 + "\\n").encode()
    for fd in range(3, 12):
        try:
            os.write(fd, line)
        except OSError:
            pass
    return True
"""

SCRIPT = '<script>window.PWNED = 1</script><img src="x" onerror="window.PWNED = 2">'

HTML_CELL = """
from IPython.display import HTML, Javascript, Markdown, SVG, display
display(HTML('SCRIPT'))
display(Javascript('window.PWNED = 3'))
display(Markdown('SCRIPT'))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg"><script>window.PWNED = 4</script></svg>'))
print('SCRIPT')
""".replace("SCRIPT", SCRIPT)

HTML_ANSWER = """
def is_kernel(name):
    raise ValueError('SCRIPT')
""".replace("SCRIPT", SCRIPT)


PORT = free_port()


def _reference_code():
    """The setup cell and the reference answers of parts 1 to 3, as one program (which
    reads the variant ``V``)."""
    nb = build_notebook(PS1)
    ref = _reference_answers()
    return "\n\n".join([_cell(nb, "setup").source] + [
        ref[k] for k in ("quadratic_map_answer", "multinomial_map_answer",
                         "kernel_verdicts_answer")])


def _fill(code):
    """Put the run-time values into an attack's source."""
    helper = HELPER_SERVER.replace("REFERENCE", repr(_reference_code())).replace("PORT", str(PORT))
    return (code.replace("HELPER", repr(helper)).replace('"MARKER"', repr(MARKER))
            .replace("REPO", repr(str(REPO))).replace("PORT", str(PORT)))


def _cells_after_setup(*sources):
    def edit(nb):
        for source in reversed(sources):
            nb = _student_cell_after(nb, "candidates", _fill(source))
        return nb
    return edit


def _markdown_after_setup(text, then):
    def edit(nb):
        nb = then(nb)
        index = nb.cells.index(_cell(nb, "setup"))
        nb.cells.insert(index + 1, nbformat.v4.new_markdown_cell(text))
        return nb
    return edit


# Files handed in besides the notebook, and links (a submission with a link is refused).
EXTRA_FILES = {"shadows_grader_modules": SHADOW_FILES}
LINKS = {
    "links_to_course": [("secret.txt", "COURSE/.grader_secret"),
                        ("solution.ipynb", "COURSE/source/ps1/ps1.ipynb"),
                        ("kernlab", str(REPO / "kernlab"))],
    "notebook_is_link": [("ps1.ipynb", "COURSE/source/ps1/ps1.ipynb")],
}
LINK_READER = """
import json

def quadratic_feature_map(X):
    cells = json.load(open("solution.ipynb"))["cells"]
    code = next("".join(c["source"]) for c in cells
                if "def quadratic_feature_map" in "".join(c["source"]))
    namespace = {"np": np, "V": V}
    exec(code, namespace)
    return namespace["quadratic_feature_map"](X)

def is_kernel(name):
    open("secret.txt").read()
    return _right_verdict(name)
""" + RIGHT_VERDICT
SLOW_CELLS = 20          # cells of 3 s each: more than the budget below in all
BUDGET = 30


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


def _bonus_cell(nb):
    """A well-formed graded cell of her own, worth 100 points, under a grade id the
    release does not have (nbgrader failed the whole notebook on it)."""
    nb.cells.append(nbformat.v4.new_markdown_cell(
        "Bonus answer: I deserve it", metadata={"nbgrader": {
            "grade": True, "solution": True, "locked": False, "task": False,
            "grade_id": "bonus", "points": 100, "schema_version": 3}}))
    return nb


def _strips_written_metadata(nb):
    """The nbgrader metadata of both written answers removed (nbgrader then had no cell
    to grade them by hand, and the class's export refused until FORCE=1)."""
    for gid in WRITTEN:
        del _cell(nb, gid).metadata["nbgrader"]
    return nb


WRITTEN = ("validity_arguments", "closure_proofs")


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
        "factorises_gram": ({**ref, "quadratic_map_answer": GRAM_FACTOR,
                             "multinomial_map_answer": GRAM_FACTOR_MULTI}, None,
                            {**POINTS, "quadratic_map": 0, "multinomial_map": 0}),
        "remembers_points": ({**ref, "quadratic_map_answer": REMEMBERS_POINTS,
                              "multinomial_map_answer": "pass"}, None,
                             {**POINTS, "quadratic_map": 0, "multinomial_map": 0}),
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
        "writes_stderr": (noisy_ref, lambda nb: _student_cell_after(nb, "candidates", NOISY), POINTS),
        "kills_kernel": ({**ref, "quadratic_map_answer": KILL_KERNEL}, None,
                         {**POINTS, "quadratic_map": 0}),
        "injects_header": ({**ref, "kernel_verdicts_answer":
                            ref["kernel_verdicts_answer"] + INJECT_HEADER}, None,
                           {**POINTS, "kernel_verdicts": 0}),
        "signals_grader": ({**ref, "kernel_verdicts_answer": SIGNAL_GRADER}, None,
                           {**POINTS, "kernel_verdicts": 0}),
        "reads_solutions": ({**ref, "quadratic_map_answer": READ_SOLUTIONS}, None,
                            {**POINTS, "quadratic_map": 0}),
        "test_cell_first": (ref, _test_cell_first, {**POINTS, "quadratic_map": 0}),
        "duplicates_test_cell": ({**ref, "kernel_verdicts_answer": WRONG["kernel_verdicts_answer"]},
                                 _duplicate_test_cell, {**POINTS, "kernel_verdicts": 0}),
        "old_metadata": (ref, _old_metadata, POINTS),
        "bonus_cell": (ref, _bonus_cell, POINTS),
        "strips_written_metadata": (ref, _strips_written_metadata, POINTS),
        "spawns_python": ({**ref, "quadratic_map_answer": SPAWN_PYTHON,
                           "multinomial_map_answer": CFFI_EXEC}, None,
                          {**POINTS, "quadratic_map": 0, "multinomial_map": 0}),
        "tampers_gradebook": ({**ref, "kernel_verdicts_answer": GRADEBOOK},
                              lambda nb: _student_cell_after(
                                  nb, "setup", GRADEBOOK + "\n_raise_my_grades()"),
                              {**POINTS, "kernel_verdicts": 0}),
        "seeks_secret": ({**ref, "kernel_verdicts_answer": SECRET_ANSWER},
                         lambda nb: _student_cell_after(nb, "candidates", SECRET_KERNEL_CELL),
                         {**POINTS, "kernel_verdicts": 0}),
        "floods_output": ({**ref, "counterexample_answer": FLOOD},
                          _cells_after_setup(FLOOD_CELL), {**POINTS, "counterexample": 0}),
        "leaves_helper": ({**ref, "quadratic_map_answer": HELPER_CLIENT},
                          lambda nb: _student_cell_after(nb, "candidates", HELPER_CELL),
                          {**POINTS, "quadratic_map": 0}),
        # attacks on the sandbox
        "shadows_grader_modules": (ref, None, POINTS),
        "network_helper": ({**ref, "quadratic_map_answer": _fill(NETWORK_CLIENT),
                            "multinomial_map_answer": "pass", "kernel_verdicts_answer": "pass"},
                           _cells_after_setup(HELPER_START_CELL),
                           {**POINTS, "quadratic_map": 0, "multinomial_map": 0,
                            "kernel_verdicts": 0}),
        "snoops_grader": ({**ref, "kernel_verdicts_answer": _fill(SNOOP_ANSWER)},
                          _cells_after_setup(SNOOP), {**POINTS, "kernel_verdicts": 0}),
        "reads_other_cases": ({**ref, "quadratic_map_answer": OTHER_CASES}, None,
                              {**POINTS, "quadratic_map": 0}),
        "fills_disk": ({**ref, "kernel_verdicts_answer": FILL_DISK_ANSWER},
                       _cells_after_setup(FILL_DISK_CELL), POINTS),
        "many_processes": (ref, _cells_after_setup(MANY_PROCESSES_CELL), POINTS),
        "slow_kernel": (ref, _cells_after_setup(*[SLOW_CELL] * SLOW_CELLS), POINTS),
        "deep_results": ({**ref, "quadratic_map_answer": DEEP_RESULTS,
                          "multinomial_map_answer": "pass", "kernel_verdicts_answer": "pass"},
                         None, {**POINTS, "quadratic_map": 0, "multinomial_map": 0,
                                "kernel_verdicts": 0}),
        "html_injects": ({**ref, "kernel_verdicts_answer": HTML_ANSWER},
                         _markdown_after_setup(SCRIPT, _cells_after_setup(HTML_CELL)),
                         {**POINTS, "kernel_verdicts": 0}),
    }
    if landlock.available():  # without Landlock the audit hook is the only guard
        students.update({
            "disables_sandbox_guard": ({**ref, "quadratic_map_answer": UNGUARDED_IMPORT},
                                       None, {**POINTS, "quadratic_map": 0}),
            "disables_kernel_guard": (
                {**ref, "quadratic_map_answer": HELPER_CLIENT,
                 "kernel_verdicts_answer": SECRET_ANSWER},
                lambda nb: _student_cell_after(nb, "candidates", UNGUARDED_HELPER_CELL),
                {**POINTS, "quadratic_map": 0, "kernel_verdicts": 0}),
            "plants_symlink": ({**ref, "quadratic_map_answer": PLANT_SYMLINK}, None,
                               {**POINTS, "quadratic_map": 0}),
        })
    return students


@pytest.fixture(scope="module")
def graded(slow, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("robust")
    course = copy_course(tmp, ["ps1"], secret="robustness-test", cell_timeout=15,
                         part_timeout=8)
    with open(course.root / "nbgrader_config.py", "a") as f:
        f.write(f"c.JudgeSubmission.budget = {BUDGET}\n")
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
        for rel, text in EXTRA_FILES.get(name, {}).items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text)
    for name, links in LINKS.items():
        folder = course.root / "submitted" / name / "ps1"
        folder.mkdir(parents=True)
        nbformat.write(_with_answers(released, {**WRONG, "quadratic_map_answer": LINK_READER}),
                       folder / "ps1.ipynb")
        (folder / "timestamp.txt").write_text("2026-01-10 12:00:00.000000 UTC")
        for link, target in links:
            (folder / link).unlink(missing_ok=True)
            (folder / link).symlink_to(target.replace("COURSE", str(course.root)))
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
    # and a cloud key, as a grader's environment might hold
    os.environ["AWS_SECRET_ACCESS_KEY"] = FAKE_CLOUD_KEY
    try:
        status = course.nbgrader("autograde", "ps1", check=False)
        alive = _alive_with_marker()
        course.nbgrader("generate_feedback", "ps1", "--student=html_injects", "--RefuseHalfGraded.allow_ungraded=True")
    finally:
        del os.environ["AWS_SECRET_ACCESS_KEY"]
        signal.signal(signal.SIGUSR1, previous)
        if saved is None:
            del os.environ["COURSEGRADER_SECRET"]
        else:
            os.environ["COURSEGRADER_SECRET"] = saved
    return course, students, status, received, alive


def _alive_with_marker():
    """Command lines of the processes left running by the submissions."""
    alive = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if entry.name.isdigit() and MARKER.encode() in cmdline:
            alive.append(cmdline.replace(b"\0", b" ").decode("utf-8", "replace")[:200])
    return alive


def test_expected_total_for_every_trick(graded):
    course, students, *_ = graded
    scores = course.code_scores("ps1")
    got = {name: scores[name][0] for name in students}
    want = {name: sum(parts.values()) for name, (_, _, parts) in students.items()}
    assert got == want
    assert all(scores[name][1] == TOTAL for name in students)


@pytest.mark.parametrize("name", list(_students()))
def test_expected_points_per_part(graded, name):
    course, students, *_ = graded
    cells = course.cell_scores("ps1")
    got = {part: cells[(name, part)] or 0.0 for part in POINTS}
    assert got == pytest.approx(students[name][2])


def test_invalid_json_gets_nothing_and_stops_no_one(graded):
    course, students, status, *_ = graded
    assert status != 0  # nbgrader reports the broken submissions ...
    for name in ["invalid_json", *REFUSED, *LINKS]:
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


def test_a_written_answer_without_its_metadata_is_put_back_to_grade_by_hand(graded):
    """Formgrader draws a box to grade only for a cell with its grade id: each written
    part is in her autograded notebook, as the release has it."""
    course = graded[0]
    nb = course.notebook("autograded", "strips_written_metadata", "ps1", "ps1.ipynb")
    for gid in WRITTEN:
        cell = _cell(nb, gid)
        assert cell.metadata.nbgrader.get("grade") and cell.metadata.nbgrader.get("solution")


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
    assert "No such file or directory" in report("reads_solutions", "quadratic_map")
    assert "signalling other processes is not allowed" in report("signals_grader",
                                                                 "kernel_verdicts")
    assert "starting processes is not allowed" in report("spawns_python", "quadratic_map")
    assert "importing cffi is not allowed" in report("spawns_python", "multinomial_map")
    assert "sqlite3.connect is not allowed" in report("tampers_gradebook", "kernel_verdicts")
    assert "grader's input channel" in report("injects_header", "kernel_verdicts")
    assert "sent back more than" in report("floods_output", "counterexample") \
        or "timed out" in report("floods_output", "counterexample")
    nb = course.notebook("autograded", "writes_stderr", "ps1", "ps1.ipynb")
    for part in POINTS:
        assert all(o.get("name") != "stderr" for o in _cell(nb, part).outputs)


#: the example variant of ps1, on which the tests below run the answers without a grader
EXAMPLE = draw_variant("ps1", "example", "").params


def _case_messages(part_id, func):
    """What each public and hidden-style case of a part says of ``func`` (None: passed)."""
    part = bind(graded_part(COURSE, "ps1", part_id), EXAMPLE)
    cases = part.public() + part.hidden(local_hidden_rng("ps1", part_id))
    return [msg for _, _, msg in run_cases(part, [(c, False) for c in cases], func)]


def _all_cases_pass(part_id, func):
    return all(msg is None for msg in _case_messages(part_id, func))


def test_shortcuts_would_pass_without_the_sandbox():
    # The calls to kernlab and scikit-learn compute the right answers: only
    # running them where those libraries cannot be imported stops them.
    import math
    ns = {"np": np, "math": math, "V": EXAMPLE}
    exec(KERNLAB_MAP + SKLEARN_MAP, ns)
    assert _all_cases_pass("quadratic_map", ns["quadratic_feature_map"])
    assert _all_cases_pass("multinomial_map", ns["multinomial_feature_map"])
    # so does running the instructor's solution read from the course folder
    exec(READ_SOLUTIONS, ns)
    assert _all_cases_pass("quadratic_map", ns["quadratic_feature_map"])


def test_a_factorised_gram_matrix_fails_every_case_and_every_feature_map_passes():
    # The rows of one call alone can be any factorisation of that call's Gram
    # matrix; every case also calls the function on other points separately, and
    # only a map x -> phi(x) gives rows whose inner products across calls are the
    # kernel's.  The notebook's own check says so before anything is handed in.
    import itertools
    import math
    ns = {"np": np, "math": math, "itertools": itertools, "V": EXAMPLE}
    exec(GRAM_FACTOR + GRAM_FACTOR_MULTI, ns)
    for part_id, func in [("quadratic_map", "quadratic_feature_map"),
                          ("multinomial_map", "multinomial_feature_map")]:
        messages = _case_messages(part_id, ns[func])
        assert all(m is not None and "whatever the other points of the call" in m
                   for m in messages), messages
        with pytest.raises(CheckFailed) as info:
            check("ps1", part_id, ns[func])
        assert "whatever the other points of the call" in " ".join(str(info.value).split())
    # the reference maps, and the same maps rotated or with their coordinates
    # in another order, are feature maps: they pass every case
    ref = _reference_answers()
    exec(ref["quadratic_map_answer"] + "\n" + ref["multinomial_map_answer"], ns)
    quadratic, multinomial = ns["quadratic_feature_map"], ns["multinomial_feature_map"]
    rotation, _ = np.linalg.qr(np.random.default_rng(5).normal(size=(6, 6)))

    def shuffled(columns):   # one order of the coordinates for each number of them
        return np.random.default_rng(columns).permutation(columns)
    assert _all_cases_pass("quadratic_map", quadratic)
    assert _all_cases_pass("quadratic_map", lambda X: quadratic(X) @ rotation)
    assert _all_cases_pass("quadratic_map", lambda X: quadratic(X)[:, ::-1])
    assert _all_cases_pass("multinomial_map", multinomial)
    assert _all_cases_pass("multinomial_map",
                           lambda X, p: -multinomial(X, p)[:, shuffled(math.comb(
                               np.shape(X)[1] + p, p))])


def test_a_map_that_remembers_the_points_it_saw_passes_every_case_in_one_process():
    # What the grader's separate calls in a fresh process stop (the student
    # "remembers_points" above gets 0 for both maps): in one process, a point's
    # row fixed when first seen agrees with every later call.
    import math
    ns = {"np": np, "math": math, "V": EXAMPLE}
    exec(REMEMBERS_POINTS, ns)
    assert _all_cases_pass("quadratic_map", ns["quadratic_feature_map"])
    assert _all_cases_pass("multinomial_map", ns["multinomial_feature_map"])


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


# -- the sandbox --------------------------------------------------------------------

def _notebook(course, student):
    return course.notebook("autograded", student, "ps1", "ps1.ipynb")


def _all_output_text(nb):
    return "".join(json.dumps(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code")


def _printed(nb):
    """What the notebook's cells printed, as one text: the kernel may send one
    print's pieces as separate stream outputs."""
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.get("outputs", []) if o.get("output_type") == "stream")


def _text_under(folder):
    """(path, text) of the files under ``folder``; of notebooks, the outputs only,
    and of records, all but the answer code they keep (the students' sources name
    what they look for)."""
    for path in Path(folder).rglob("*"):
        if path.is_file() and not path.is_symlink():
            text = path.read_bytes().decode("utf-8", "replace")
            if path.suffix == ".ipynb":
                text = _all_output_text(nbformat.reads(text, as_version=4))
            elif path.name.endswith(record.SUFFIX):
                judged = json.loads(text)
                judged.pop("answers")
                text = json.dumps(judged)
            yield path, text


def test_files_handed_in_never_run_with_the_grader_rights(graded):
    course = graded[0]
    assert not list(course.root.parent.rglob("*.pwned"))
    # they reached the sandbox as plain files, where they could only shadow the
    # student's own imports
    assert (course.root / "autograded" / "shadows_grader_modules" / "ps1" / "numpy.py").is_file()


def test_links_are_refused_and_what_they_point_to_is_never_read(graded):
    course = graded[0]
    for name in LINKS:
        assert not (course.root / "autograded" / name / "ps1").exists()
        assert course.code_scores("ps1").get(name, (0.0, TOTAL))[0] == 0
    for path, text in _text_under(course.root / "autograded"):
        assert "robustness-test" not in text, path       # the course secret


def test_network_helper_is_unreachable_over_tcp_udp_and_unix(graded):
    course = graded[0]

    def report(part):
        return "".join(o.get("text", "") for o in _cell(_notebook(course, "network_helper"),
                                                          part).outputs)
    # TCP: refused by the sandbox's empty loopback (or first by Landlock, where the
    # kernel has it)
    assert re.search(r"raised (ConnectionRefusedError|PermissionError)", report("quadratic_map"))
    assert "TimeoutError" in report("multinomial_map")                    # UDP
    assert re.search(r"raised (OSError|ConnectionRefusedError|FileNotFoundError|"
                     r"BrokenPipeError)", report("kernel_verdicts"))       # Unix
    assert "not allowed" not in report("quadratic_map")  # the hook was off: the sandbox stood


def test_network_helper_would_answer_without_the_sandbox():
    import subprocess
    import sys
    import time
    helper = subprocess.Popen([sys.executable, "-c", eval(_fill("HELPER"))],
                              start_new_session=True,
                              env={**os.environ, "PS1_V": json.dumps(EXAMPLE)})
    try:
        ns = {}
        exec(_fill(NETWORK_CLIENT), ns)
        for _ in range(100):
            try:
                ns["_ask_tcp"]("verdict", "K1")
                break
            except OSError:
                time.sleep(0.1)
        assert _all_cases_pass("quadratic_map", ns["quadratic_feature_map"])
        assert _all_cases_pass("multinomial_map", ns["multinomial_feature_map"])
        assert _all_cases_pass("kernel_verdicts", ns["is_kernel"])
    finally:
        os.killpg(helper.pid, signal.SIGKILL)
        helper.wait()
        Path(f"/tmp/coursegrader-helper-{PORT}.sock").unlink(missing_ok=True)


def test_grader_environment_home_and_repository_are_out_of_sight(graded):
    course = graded[0]
    nb = _notebook(course, "snoops_grader")
    assert "FOUND: []" in _all_output_text(nb)
    report = "".join(o.get("text", "") for o in _cell(nb, "kernel_verdicts").outputs)
    assert "nothing found" in report
    for folder in ("autograded", "feedback"):
        for path, text in _text_under(course.root / folder):
            assert FAKE_CLOUD_KEY not in text, path


def test_graded_function_sees_no_case_but_its_own_and_earlier_ones(graded):
    from coursecheck.problems import ps1
    course = graded[0]
    nb = _notebook(course, "reads_other_cases")
    report = "".join(o.get("text", "") for o in _cell(nb, "quadratic_map").outputs)
    # part 1's public cases are the same points on every variant
    # (each makes calls of its own, each sent as the runner's next case: the report
    # names the first call, when the process has seen its own and the earlier ones)
    index = 0
    for case in bind(ps1.PARTS["quadratic_map"], EXAMPLE).public():
        seen = re.search(re.escape(f"case '{case.label}': call 1 of {len(case.calls)}: raised "
                                   "RuntimeError: cases in my process: ")
                         + r"\[([0-9, ]*)\]", report)
        assert seen, report
        numbers = [int(n) for n in seen.group(1).replace(" ", "").split(",") if n]
        assert all(n <= index for n in numbers), (case.label, numbers)
        index += len(case.calls)


def test_output_is_capped_in_bytes(graded):
    from coursegrader.preprocessors import JudgeSubmission
    course = graded[0]
    path = course.root / "autograded" / "floods_output" / "ps1" / "ps1.ipynb"
    assert path.stat().st_size < 2 * JudgeSubmission.output_bytes.default_value
    assert "dropped]" in _all_output_text(_notebook(course, "floods_output"))


def test_disk_is_capped(graded):
    from coursegrader import sandbox
    text = _printed(_notebook(graded[0], "fills_disk"))
    wrote = int(re.search(r"WROTE (\d+)", text).group(1))
    assert 0 < wrote <= sandbox.KERNEL.scratch_bytes


def test_processes_are_bounded_and_none_outlives_its_grading(graded):
    from coursegrader import sandbox
    course, _, _, _, alive = graded
    assert alive == []
    assert _alive_with_marker() == []
    text = _printed(_notebook(course, "many_processes"))
    started = int(re.search(r"STARTED (\d+)", text).group(1))
    assert started < sandbox.KERNEL.processes


def test_slow_kernel_is_stopped_by_the_total_budget(graded):
    nb = _notebook(graded[0], "slow_kernel")
    text = _all_output_text(nb)
    assert f"took more than {BUDGET} s in all" in text
    ran = sum(1 for c in nb.cells if c.cell_type == "code" and c.source == SLOW_CELL
              and c.execution_count is not None)
    assert 0 < ran < SLOW_CELLS


def test_deep_and_enormous_results_fail_only_their_own_cases(graded):
    nb = _notebook(graded[0], "deep_results")

    def report(part):
        return "".join(o.get("text", "") for o in _cell(nb, part).outputs)
    assert "nested too deeply" in report("quadratic_map")
    assert "too large" in report("multinomial_map")
    assert "Score: 0 of" in report("kernel_verdicts")


class _ActiveContent(HTMLParser):
    """Script text and event-handler or javascript: attributes of an HTML page."""

    def __init__(self):
        super().__init__()
        self.active, self._in_script = [], False

    def handle_starttag(self, tag, attrs):
        self._in_script = tag == "script"
        for name, value in attrs:
            if name.startswith("on") or "javascript:" in (value or "").lower():
                self.active.append(f"{tag} {name}={value}")

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.active.append(data)


def test_feedback_holds_no_script_of_the_student(graded):
    course = graded[0]
    page = (course.root / "feedback" / "html_injects" / "ps1" / "ps1.html").read_text()
    assert "window.PWNED = 1" in page.replace("&lt;", "<")     # shown as text, not run
    parser = _ActiveContent()
    parser.feed(page)
    assert not [a for a in parser.active if "PWNED" in a]
    assert "application/javascript" not in _all_output_text(_notebook(course, "html_injects"))
