"""Speed of kernlab's SVC against LIBSVM (scikit-learn's SVC), as ratios in one run.

Run from the repository root::

    python benchmarks/bench_svc.py              # the cases below except n = 10000
    python benchmarks/bench_svc.py --large      # also full-rank data at n = 10000
    python benchmarks/bench_svc.py --profile    # where each second of one fit goes
    python benchmarks/bench_svc.py --memory 20000   # peak memory of one fit at n = 20000

Each time is the median of three runs, kernlab and LIBSVM timed alternately
so that the drift of a shared machine does not favour one side; the ratio
kernlab / LIBSVM is printed beside its target, with the largest difference
of the dual coefficients from LIBSVM's at tol=1e-8 (in units of C) and the
method that answered (``SVC.method_``).

Targets (ratio to LIBSVM):

=====================================================  ======
full-rank 20-feature data (make_classification), 2000  <= 8x
full-rank 20-feature data, n = 10000                   <= 4x
two-dimensional moons, n = 5000                        <= 15x
C = 1e6 on standardised breast cancer (n = 300)        <= 10x
=====================================================  ======

Measured on 2026-11-24 at 06:23 UTC in two runs of
``python benchmarks/bench_svc.py`` on the shared two-core development
machine under a load average of 1.0-1.1 (other engineers' tests running);
each time a median of three:

=================================  ========  ========  ==========  ===========
case                               kernlab   LIBSVM    ratio       method
=================================  ========  ========  ==========  ===========
full rank, n = 2000                1.21 s    0.273 s   4.4x, 4.4x  working-set
moons, sigma = 0.5, n = 5000       0.53 s    0.096 s   5.5x, 5.2x  factor
breast cancer, C = 1e6, n = 300    0.021 s   0.0033 s  6.2x, 6.1x  working-set
=================================  ========  ========  ==========  ===========

(Times of the first run.)  Dual coefficients agreed with LIBSVM's to 4e-8,
1e-4 and 5e-11 times C.  The three targets run by default are met.  The
C = 1e6 ratio moves with the load more than the others: earlier the same
morning, before the last three changes below (no iterative refinement, K
on one BLAS thread, no polish after a step that raised the violation),
runs under a load of 2.2-2.8 gave 7.2x, 8.8x and 9.8x, the last with
LIBSVM itself at 8.3 ms.  A single fit in a fresh process, which compiles
its CVXPY subproblem, took 10.6x (``--repeats 1``).  Full-rank data at
n = 10000 (``--large --repeats 1``, one run, not a median, at 06:22 under
a load of 1.2) took 24.4 s against LIBSVM's 11.0 s: 2.2x, coefficients
within 9e-6 C.  At 06:52 on the idle machine (load 1.0), one more run of the
default cases gave 4.5x, 5.2x and 6.4x, and full-rank data at n = 10000,
as a median of three, 22.0 s against LIBSVM's 9.6 s: 2.3x (coefficients
within 9e-6 C).  All four targets are met.

Memory at n = 20000 (full-rank data, one fit of ``SVC`` alone): the fit
first raised ``KeyError`` (the working-set column cache evicted a column the
step was about to use; fixed, with a test) and then peaked at 5.6 GB, because
the polish kept up to n x n columns while the steps' 1.5 GiB cache was still
held.  Letting the steps' columns go before each polish and keeping at most
1 GiB of the polish's brought it to 4.15 GB (3.96 GiB, measured once with
``/usr/bin/time -v``).  memray then showed where that came from: the live
heap peaked at only 2.3 GB, of which 1.9 GB was one request for all 12,000
support columns at once (the polish's ``K[:, support] @ coef``), and the
steps' columns, kept as 10,000 separate 160 kB arrays, stayed resident after
they were let go (the C allocator keeps freed blocks of that size in the
heap).  Now both keep their columns in one block each
(``kernlab/_columns.py``), which is given back whole, and the polish's
product is formed a slice of columns at a time.  ``--memory 20000`` (three
fits, each in a fresh process, peak RSS from ``getrusage``) at 09:25 UTC on
the idle machine: 1.72 GiB each time (limit 4 GiB), fits of 73, 62 and 61 s.

Where the seconds go (``--profile``: a second fit of each case under the
profiler, after an unprofiled first one, at 06:24 under a load of 1.0):

=====================================  ==============  ========  ==========
stage                                  full rank 2000  moons     C = 1e6
=====================================  ==============  ========  ==========
first fit (not profiled)               1.38 s          0.48 s    0.039 s
second fit, under the profiler         1.38 s          0.51 s    0.033 s
pivoted Cholesky factor of K           0.033 s         0.062 s   0.002 s
factored QPs on subsets (CVXPY)        --              0.38 s    --
working-set steps                      0.59 s (50)     --        0.023 s (2)
  of which CVXPY's parameter update    0.18 s          0.10 s    0.008 s
  of which Clarabel                    0.14 s          0.26 s    0.008 s
polish and KKT check                   0.70 s (2)      0.07 s    0.004 s (1)
  of which Cholesky KKT systems        0.47 s (13)     0.001 s   0.002 s (5)
=====================================  ==============  ========  ==========

(The CVXPY and Clarabel rows of moons are its two subset QPs.)  At
C = 1e6 the rest of the 33 ms is forming K (about 2 ms), the estimator's
checks and CVXPY's bookkeeping around each solve (setting the parameters,
reading the answer back: about 3 ms a solve), inflated by the profiler.
A first fit in a process also compiles the CVXPY subproblem it needs
(15-25 ms, once per thread).

What changed, C = 1e6 on breast cancer first (ratios after "was" are those
of the runs before each change):

* C = 1e6, n = 300 (was 38x; 52 support vectors, the largest multiplier
  60): two working-set steps and a polish instead of five steps, and each
  step about half as long.

  - The first working set: at the start from zero every point violates
    its condition by the same amount, and the set was the first 64 points
    in index order.  Ties are now broken by the margins of the difference
    of the class means in feature space (one product with K, which is in
    memory up to 2500 points): 28 of the 52 support vectors are in it.
  - While the support fills at most three quarters of a set, it stays in
    the next set beside the most violating points (chunking), and every
    step that lowers the violation is followed by the polish, which is
    cheap while the support is small (2-3 ms here).  The second set
    holds 47 of the 52 support vectors; from its answer the polish (whose
    active-set steps free the points whose conditions fail) finds the
    exact one (KKT violation 3e-14).  All of breast cancer (569 points,
    77 support vectors) takes four steps.
  - Each step's CVXPY problem takes Q_BB through an upper-triangular
    pivoted Cholesky factor (the set ordered by its pivots, LAPACK's
    dpstrf) instead of a full square root from an eigendecomposition:
    half the entries, and Clarabel's time per solve fell from 12 ms to
    4 ms; without iterative refinement to about 3 ms.  The triangle is a
    parameter vector scattered into R by a constant matrix, which CVXPY
    compiles in 20 ms instead of 80 ms.
  - Compiled subproblems are kept per thread for the next fit (compiling
    costs several solves), and the bounded one is only compiled when
    a step needs it.
  - The pivoted Cholesky that finds the rank above 200 is LAPACK's dpstrf
    on the whole K up to 600 points (1-2 ms instead of 30-50 ms for 200
    columns one at a time).
  - ``threadpool_limits`` looked up the loaded libraries at every use
    (about 4 ms, several times a fit); one ``ThreadpoolController`` is
    now made once (``kernlab._linalg.one_blas_thread``).  K of up to 2500
    points is formed on one BLAS thread.

  The floor of this design at n = 300 is two CVXPY solves of about 7 ms
  each (CVXPY's parameter update and bookkeeping 4 ms, Clarabel 3 ms for
  15 interior-point iterations on 64 variables), against LIBSVM's 4 ms for
  the whole fit.

Earlier changes (the profile figures in them predate the ones above):

* moons, n = 5000 (was 23x): Clarabel's time on the factored QP grows
  faster than the number of points, and only 437 of 5000 end with a
  multiplier.  The QP is now solved on 750 random points, then on the
  points that matter (multipliers, and conditions at zero within 0.1 of
  failing: 847 points), and grown by violators until none is left
  outside; two CVXPY solves of about 0.3 s each instead of one of 2.4-4 s.
  The rest is the pivoted Cholesky factor (0.4 s; a Gaussian kernel column
  used to start two threads for a single column, which cost more than the
  column) and the polish (0.5 s).
* full rank, n = 2000 (was 11.5x): the polish's KKT system of the ~1700
  free multipliers is solved by one Cholesky factor and a Schur complement
  (half the flops of the LU before) on one BLAS thread (OpenBLAS's two
  threads made it several times slower on the busy machine); K is formed
  once up to 2500 points instead of column by column; working sets of 64
  points first stopped at a violation of 0.1 (the polish finds the active
  sets from there) take about 50 steps instead of 140.  Per step, CVXPY's
  parameter update and bookkeeping and Clarabel take roughly equal parts;
  before the Cholesky change the polish took 4.9 s of 11 s under the
  profiler, three LU solves of 1.2 s each.
"""

import argparse
import cProfile
import pstats
import statistics
import subprocess
import sys
import time

import numpy as np
from sklearn.datasets import load_breast_cancer, make_classification, make_moons
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from kernlab import SVC, Gaussian


def paired_medians(fn_a, fn_b, repeats=3):
    """Medians of ``fn_a`` and ``fn_b`` timed alternately, and their last results."""
    times_a, times_b = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        out_a = fn_a()
        times_a.append(time.perf_counter() - start)
        start = time.perf_counter()
        out_b = fn_b()
        times_b.append(time.perf_counter() - start)
    return statistics.median(times_a), statistics.median(times_b), out_a, out_b


def full_rank(n):
    X, y = make_classification(n, n_features=20, n_informative=10, random_state=0)
    return X, y, np.sqrt(20.0) / 2, 1.0


def moons(n):
    X, y = make_moons(n, noise=0.2, random_state=0)
    return X, y, 0.5, 1.0


def breast_cancer(n):
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(X), n, replace=False)
    return StandardScaler().fit_transform(X[idx]), y[idx], np.sqrt(15.0), 1e6


CASES = {  # name: (data, n, target ratio)
    "full rank, n = 2000": (full_rank, 2000, 8.0),
    "moons, n = 5000": (moons, 5000, 15.0),
    "breast cancer, C = 1e6, n = 300": (breast_cancer, 300, 10.0),
}
LARGE = {"full rank, n = 10000": (full_rank, 10000, 4.0)}


def run_case(name, data, n, target, repeats):
    X, y, sigma, C = data(n)
    gamma = 1 / (2 * sigma**2)

    def ours():
        return SVC(Gaussian(sigma=sigma), C=C).fit(X, y)

    def ref():
        return SkSVC(C=C, kernel="rbf", gamma=gamma, tol=1e-8).fit(X, y)

    t_ours, t_ref, model, libsvm = paired_medians(ours, ref, repeats)
    alpha = np.zeros(len(y))
    alpha[libsvm.support_] = np.abs(libsvm.dual_coef_[0])
    diff = np.abs(model.alpha_ - alpha).max() / C
    ratio = t_ours / t_ref
    print(f"{name:<34} kernlab {t_ours:7.3f} s  LIBSVM {t_ref:6.4f} s  "
          f"ratio {ratio:6.1f}x "
          f"(target {target:g}x, {'met' if ratio <= target else 'MISSED'})  "
          f"|alpha - LIBSVM| / C = {diff:.1e}  method {model.method_}", flush=True)
    print(f"{'':<34} {model.solver_reason_}", flush=True)


# Where the time of a fit goes: the functions whose cumulative time is reported.
STAGES = {  # label: (function name, a piece of its file name)
    "factor of K (pivoted Cholesky)": ("pivoted_cholesky_columns", "gram"),
    "factored QP (all subsets)": ("_solve_factored", "svm_dual"),
    "  CVXPY solves on subsets": ("_factored_qp", "svm_dual"),
    "working-set method (all steps)": ("run", "_working_set"),
    "  CVXPY canonicalisation": ("get_problem_data", "problem"),
    "  Clarabel": ("solve_via_data", "clarabel"),
    "  kernel columns for the steps": ("columns", "_working_set"),
    "  triangular factors of the sets": ("_triangular_root", "_working_set"),
    "polish and KKT check": ("_polished", "svm_dual"),
    "  KKT systems (Cholesky)": ("_saddle_solve", "svm_dual"),
}


def profile_case(name, data, n):
    """Profile the second fit: the first compiles the CVXPY subproblems it needs."""
    X, y, sigma, C = data(n)
    start = time.perf_counter()
    SVC(Gaussian(sigma=sigma), C=C).fit(X, y)
    first = time.perf_counter() - start
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.runcall(SVC(Gaussian(sigma=sigma), C=C).fit, X, y)
    total = time.perf_counter() - start
    stats = pstats.Stats(profile).stats
    print(f"{name}: first fit {first:.3f} s; second fit {total:.3f} s in all "
          "(under the profiler)")
    for label, (func, where) in STAGES.items():
        found = [v for k, v in stats.items() if k[2] == func and where in k[0]]
        seconds, calls = sum(v[3] for v in found), sum(v[0] for v in found)
        print(f"  {label:<36} {seconds:7.3f} s  ({calls} calls)")


def fit_once(n):
    """One fit of full-rank data in this process (run in a child by ``memory_case``)."""
    X, y, sigma, C = full_rank(n)
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
        print(f"full rank, n = {n}: fit {seconds:.1f} s ({method}), peak RSS "
              f"{peak_kib / 2**20:.2f} GiB (limit 4 GiB)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also n = 10000")
    parser.add_argument("--memory", type=int, metavar="N",
                        help="instead: peak memory of one fit at size N, in a fresh process")
    parser.add_argument("--profile", action="store_true",
                        help="profile one fit per case")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.memory:
        memory_case(args.memory, args.repeats)
        return
    cases = {**CASES, **(LARGE if args.large else {})}
    for name, (data, n, target) in cases.items():
        if args.profile:
            profile_case(name, data, n)
        else:
            run_case(name, data, n, target, args.repeats)


if __name__ == "__main__":
    main()
