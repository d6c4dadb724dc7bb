"""Speed of kernlab's SVC and SVR against LIBSVM (scikit-learn's), as ratios in one run.

Run from the repository root::

    python benchmarks/bench_svc.py              # every case below but the large ones
    python benchmarks/bench_svc.py --large      # also n = 10000, 20000 and memory at 20000
    python benchmarks/bench_svc.py --only moons # the rows whose case contains "moons"
    python benchmarks/bench_svc.py --memory 20000   # peak memory of one fit at n = 20000
    python benchmarks/bench_svc.py --profile "moons, n = 5000"   # where one fit's time goes

Every row is a case (a data generator, a kernel width and C) at one seed of
its generator, or one width for fixed data.  Each is measured in three fresh
processes.  Each process first fits kernlab once on 200 points of the data
(untimed: that compiles the CVXPY subproblems, 20-40 ms once per process and
thread, and makes threadpoolctl list the loaded libraries, about 30 ms),
then times kernlab's fit and LIBSVM's on the same data, at the same stopping
rule and tolerance (``tol=1e-5``: LIBSVM stops on the same maximal KKT
violation that kernlab checks, ``KKT_TOL``).  The row shows the medians of
the three, their ratio beside the target and, from the first process,
LIBSVM at its default ``tol=1e-3`` for comparison, the largest difference
of the dual coefficients from LIBSVM's at ``tol=1e-8`` (in units of C) and
of the decision values on the training points, the strategy that answered
and its working-set steps.  (LIBSVM keeps its kernel values in float32: at a
large C its own answer misses the KKT conditions by up to 1e-3, and the
differences in those columns are LIBSVM's; ``tests/test_svm.py`` checks
kernlab's answers against their KKT conditions with the exact K.)

Targets (ratio to LIBSVM at tol=1e-5):

=============================================================  ======
full-rank 20-feature data (make_classification), n = 2000      <= 5x
full-rank 20-feature data, n = 10000                           <= 2x
full-rank 20-feature data, n = 20000                           <= 1x
two moons, n = 5000                                            <= 4x
standardised breast cancer, C = 1e6                            <= 5x
the cases kernlab used to refuse (moons at C = 1000, diabetes
at C = 100 and 1000, make_classification(5000) at C = 100,
SVR on diabetes at C = 100)                                    <= 10x
=============================================================  ======

Measurements
------------
(See the end of this docstring: the runs recorded, with the load of the
shared machine at the time.)
"""

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import time

import numpy as np

TOL = 1e-5          # LIBSVM's stopping tolerance: kernlab's KKT_TOL
PROCESSES = 3


# ----------------------------------------------------------------------------
# the cases
# ----------------------------------------------------------------------------

def full_rank(n, seed):
    from sklearn.datasets import make_classification

    X, y = make_classification(n, n_features=20, n_informative=10, random_state=seed)
    return X, y, np.sqrt(20.0) / 2, 1.0


def moons(n, noise, sigma, C):
    def data(seed):
        from sklearn.datasets import make_moons

        X, y = make_moons(n, noise=noise, random_state=seed)
        return X, y, sigma, C
    return data


def breast_cancer(C):
    def data(sigma):
        from sklearn.datasets import load_breast_cancer
        from sklearn.preprocessing import StandardScaler

        X, y = load_breast_cancer(return_X_y=True)
        return StandardScaler().fit_transform(X), y, sigma, C
    return data


def diabetes_classes(C):
    def data(sigma):
        X, z = _diabetes()
        return X, (z > np.median(z)).astype(int), sigma, C
    return data


def diabetes_targets(C, standardise):
    def data(sigma):
        X, z = _diabetes()
        if standardise:
            z = (z - z.mean()) / z.std()
        return X, z, sigma, C
    return data


def _diabetes():
    from sklearn.datasets import load_diabetes
    from sklearn.preprocessing import StandardScaler

    X, z = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), z


def classification_5000(seed):
    from sklearn.datasets import make_classification

    X, y = make_classification(5000, random_state=seed)
    return X, y, np.sqrt(10.0), 100.0


# name: (data(variant), variants, target, "svc" or "svr", large)
CASES = {
    "full rank, n = 2000": (lambda s: full_rank(2000, s), (0, 1, 2), 5.0, "svc", False),
    "moons, noise 0.2, n = 5000": (moons(5000, 0.2, 0.5, 1.0), (0, 1, 2), 4.0, "svc", False),
    "moons, noise 0.3, n = 5000": (moons(5000, 0.3, 0.5, 1.0), (0, 1, 2), 4.0, "svc", False),
    "breast cancer, C = 1e6, sigma": (breast_cancer(1e6), (np.sqrt(15.0), 3.0, 1.0, 0.3), 5.0,
                                      "svc", False),
    "refused: moons n = 2000, noise 0.3, C = 1000": (moons(2000, 0.3, 0.5, 1000.0), (0, 1, 2),
                                                     10.0, "svc", False),
    "refused: diabetes classes, C = 100, sigma": (diabetes_classes(100.0), (np.sqrt(5.0), 1.0),
                                                 10.0, "svc", False),
    "refused: diabetes classes, C = 1000, sigma": (diabetes_classes(1000.0),
                                                  (np.sqrt(5.0), 1.0), 10.0, "svc", False),
    "refused: make_classification(5000), C = 100": (classification_5000, (0, 1, 2), 10.0,
                                                    "svc", False),
    "refused: SVR diabetes, C = 100, sigma": (diabetes_targets(100.0, False),
                                             (np.sqrt(5.0), 1.0), 10.0, "svr", False),
    "refused: SVR diabetes (targets standardised), C = 100, sigma": (
        diabetes_targets(100.0, True), (np.sqrt(5.0), 1.0), 10.0, "svr", False),
    "full rank, n = 10000": (lambda s: full_rank(10000, s), (0, 1, 2), 2.0, "svc", True),
    "full rank, n = 20000": (lambda s: full_rank(20000, s), (0, 1), 1.0, "svc", True),
}


# ----------------------------------------------------------------------------
# one measurement, in a process of its own
# ----------------------------------------------------------------------------

def _fits(kind, sigma, C):
    from sklearn.svm import SVC as SkSVC
    from sklearn.svm import SVR as SkSVR

    from kernlab import SVC, SVR, Gaussian

    gamma = 1 / (2 * sigma**2)
    if kind == "svc":
        return (lambda: SVC(Gaussian(sigma=sigma), C=C),
                lambda tol: SkSVC(C=C, kernel="rbf", gamma=gamma, tol=tol))
    return (lambda: SVR(Gaussian(sigma=sigma), C=C, epsilon=0.1),
            lambda tol: SkSVR(C=C, kernel="rbf", gamma=gamma, epsilon=0.1, tol=tol))


def measure(name, index, compare):
    """Time kernlab and LIBSVM once each on one case; print a JSON record.

    With ``compare`` also LIBSVM at its default tolerance (timed) and at
    1e-8 (the answer compared with kernlab's).
    """
    data, variants, _, kind, _ = CASES[name]
    X, y, sigma, C = data(variants[index])
    ours, libsvm = _fits(kind, sigma, C)
    warm_X, warm_y, _, _ = data(variants[index])
    ours().fit(warm_X[:200], warm_y[:200])  # compiles the CVXPY subproblems
    start = time.perf_counter()
    model = ours().fit(X, y)
    t_ours = time.perf_counter() - start
    start = time.perf_counter()
    libsvm(TOL).fit(X, y)
    t_libsvm = time.perf_counter() - start
    steps = sum(1 for event in model.solver_trace_ if hasattr(event, "working_set"))
    if not compare:
        print(json.dumps(dict(ours=t_ours, libsvm=t_libsvm, method=model.method_, steps=steps)))
        return
    start = time.perf_counter()
    libsvm(1e-3).fit(X, y)
    t_default = time.perf_counter() - start
    exact = libsvm(1e-8).fit(X, y)
    coef = np.zeros(len(y))
    coef[exact.support_] = exact.dual_coef_[0]
    ours_coef = np.zeros(len(y))
    ours_coef[model.support_] = model.dual_coef_
    if kind == "svc":  # kernlab's dual_coef_ is t * alpha: LIBSVM's sign convention
        values = model.decision_function(X), exact.decision_function(X)
    else:
        values = model.predict(X), exact.predict(X)
    print(json.dumps(dict(ours=t_ours, libsvm=t_libsvm, default=t_default,
                          coef=float(np.abs(ours_coef - coef).max() / C),
                          values=float(np.abs(values[0] - values[1]).max()),
                          method=model.method_, steps=steps)))


def run_row(name, index, processes):
    """Medians of ``processes`` fresh processes; the first also compares the answers."""
    records = []
    for k in range(processes):
        out = subprocess.run([sys.executable, __file__, "--measure", name, str(index),
                              str(int(k == 0))], capture_output=True, text=True)
        if out.returncode != 0:
            return dict(error=out.stderr.strip().splitlines()[-1])
        records.append(json.loads(out.stdout.strip().splitlines()[-1]))
    med = {key: statistics.median(r[key] for r in records) for key in ("ours", "libsvm")}
    first = records[0]
    return dict(med, default=first["default"], coef=first["coef"], values=first["values"],
                method=first["method"], steps=first["steps"])


def _variant(value):
    return f"seed {value}" if isinstance(value, int) else f"sigma {value:.3g}"


def table(names, processes):
    print(f"{'case':<62} {'variant':<12} {'kernlab':>9} {'LIBSVM':>9} {'ratio':>7} "
          f"{'target':>7}  {'LIBSVM 1e-3':>11} {'|da|/C':>8} {'|df|':>8}  method (steps)",
          flush=True)
    for name in names:
        _, variants, target, _, _ = CASES[name]
        for index, variant in enumerate(variants):
            row = run_row(name, index, processes)
            if "error" in row:
                print(f"{name:<62} {_variant(variant):<12} ERROR {row['error']}", flush=True)
                continue
            ratio = row["ours"] / row["libsvm"]
            print(f"{name:<62} {_variant(variant):<12} {row['ours']:8.3f}s "
                  f"{row['libsvm']:8.3f}s {ratio:6.1f}x {target:6.0f}x{' ' if ratio <= target else '!'}"
                  f" {row['default']:10.3f}s {row['coef']:8.1e} {row['values']:8.1e}  "
                  f"{row['method']} ({row['steps']})", flush=True)


# ----------------------------------------------------------------------------
# memory and profile
# ----------------------------------------------------------------------------

def fit_once(n):
    """One fit of full-rank data in this process (run in a child by ``memory_case``)."""
    X, y, sigma, C = full_rank(n, 0)
    from kernlab import SVC, Gaussian

    start = time.perf_counter()
    model = SVC(Gaussian(sigma=sigma), C=C).fit(X, y)
    print(f"{time.perf_counter() - start:.1f} {model.method_}", flush=True)


def memory_case(n, repeats):
    """Peak resident memory of one fit at size n, each in a fresh process."""
    for _ in range(repeats):
        # A child per fit: ru_maxrss of the children is the largest of them,
        # so each measurement runs in a process of its own and reads it alone.
        code = (f"import resource, runpy; "
                f"runpy.run_path({__file__!r}, run_name='fit').get('fit_once')({n}); "
                f"print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout.split()
        seconds, method, peak_kib = float(out[0]), out[1], int(out[2])
        print(f"full rank, n = {n}, seed 0: fit {seconds:.1f} s ({method}), peak RSS "
              f"{peak_kib / 2**20:.2f} GiB (limit 2 GiB)", flush=True)


# Where the time of a fit goes: the functions whose cumulative time is reported.
STAGES = {  # label: (function name, a piece of its file name)
    "factor of K (pivoted Cholesky)": ("pivoted_cholesky_columns", "gram"),
    "factored QP (all subsets)": ("_solve_factored", "svm_dual"),
    "working-set method (all steps)": ("run", "_working_set"),
    "  CVXPY solves of the subproblems": ("_solve_subproblem", "_working_set"),
    "  Clarabel itself": ("solve_via_data", "clarabel"),
    "  exact re-solves of the subproblems": ("_exact", "_working_set"),
    "  choosing the sets": ("select", "_working_set"),
    "  kernel columns": ("cols", "_columns"),
    "polish (active-set Newton)": ("_polish", "svm_dual"),
}


def profile_case(name, variant):
    data, _, _, kind, _ = CASES[name]
    X, y, sigma, C = data(variant)
    ours, _ = _fits(kind, sigma, C)
    start = time.perf_counter()
    ours().fit(X, y)
    first = time.perf_counter() - start
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.runcall(ours().fit, X, y)
    total = time.perf_counter() - start
    stats = pstats.Stats(profile).stats
    print(f"{name} ({_variant(variant)}): first fit {first:.3f} s; second fit {total:.3f} s "
          "(under the profiler)")
    for label, (func, where) in STAGES.items():
        found = [v for k, v in stats.items() if k[2] == func and where in k[0]]
        seconds, calls = sum(v[3] for v in found), sum(v[0] for v in found)
        print(f"  {label:<40} {seconds:7.3f} s  ({calls} calls)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true",
                        help="also n = 10000 and 20000, and the memory of one fit at 20000")
    parser.add_argument("--only", help="only the cases whose name contains this")
    parser.add_argument("--processes", type=int, default=PROCESSES)
    parser.add_argument("--memory", type=int, metavar="N",
                        help="instead: peak memory of one fit at size N, in fresh processes")
    parser.add_argument("--profile", metavar="CASE", help="instead: profile one fit of CASE")
    parser.add_argument("--measure", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure[0], int(args.measure[1]), args.measure[2] == "1")
        return
    if args.memory:
        memory_case(args.memory, args.processes)
        return
    if args.profile:
        profile_case(args.profile, CASES[args.profile][1][0])
        return
    names = [name for name, case in CASES.items()
             if (args.large or not case[4]) and (args.only is None or args.only in name)]
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}, {os.cpu_count()} cores; medians "
          f"of {args.processes} fresh processes", flush=True)
    table(names, args.processes)
    if args.large and args.only is None:
        memory_case(20000, 1)


if __name__ == "__main__":
    main()
