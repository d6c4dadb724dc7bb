"""Speed of kernlab's learning estimators against their targets.

Run from the repository root::

    python benchmarks/bench_learning.py

Every timing is the median of three runs and is printed beside its target.
The n = 10000 SVM runs in a fresh subprocess so that its peak resident
memory (``resource.getrusage``) belongs to that fit alone.  The whole script
takes a few minutes on two cores.  Wall-clock ratios are only meaningful on
an otherwise idle machine, so the load average is printed at start and end.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

import cvxpy as cp
import numpy as np
from sklearn.datasets import make_moons
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.svm import SVC as SkSVC

from kernlab import SVC, Gaussian, KernelRidge, NystroemKernelRidge, RandomFeatureRidge

GIB = 2**30


def median_time(fn, repeats=3):
    """Median wall-clock seconds of ``fn()`` over ``repeats`` runs, and its last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def paired_median_times(fn_a, fn_b, repeats=3):
    """Medians of ``fn_a`` and ``fn_b`` timed alternately (a, b, a, b, ...).

    Alternating keeps slow drifts of a shared machine from favouring one side.
    Returns (median_a, median_b, last_a, last_b).
    """
    times_a, times_b = [], []
    for _ in range(repeats):
        t, out_a = median_time(fn_a, 1)
        times_a.append(t)
        t, out_b = median_time(fn_b, 1)
        times_b.append(t)
    return statistics.median(times_a), statistics.median(times_b), out_a, out_b


def report(label, value, target, ok):
    print(f"  {label:<58} {value:>12}   target {target:<14} {'met' if ok else 'MISSED'}",
          flush=True)


# ---------------------------------------------------------------------------
def bench_kernel_ridge():
    print("Kernel ridge fit, Gaussian kernel, n = 5000, d = 50")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5000, 50))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.standard_normal(5000)
    sigma, lam = np.sqrt(50.0), 1e-2
    ours, ref, model, sk = paired_median_times(
        lambda: KernelRidge(Gaussian(sigma=sigma), lam=lam).fit(X, y),
        lambda: SkKernelRidge(alpha=lam, kernel="rbf", gamma=1 / (2 * sigma**2)).fit(X, y))
    print(f"  kernlab {ours:.2f} s, scikit-learn {ref:.2f} s "
          f"(max |alpha difference| {np.abs(model.alpha_ - sk.dual_coef_).max():.1e})")
    report("kernlab time / scikit-learn time", f"{ours / ref:.2f}x", "<= 0.8x", ours / ref <= 0.8)


# ---------------------------------------------------------------------------
def moons(n):
    return make_moons(n, noise=0.2, random_state=0)


def textbook_dual(X, y, C, kernel):
    """The dual as usually written: quad_form of the dense n x n matrix."""
    t = np.where(y == 1, 1.0, -1.0)
    Q = kernel(X) * np.outer(t, t)
    a = cp.Variable(len(y))
    problem = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(Q))),
                         [a >= 0, a <= C, t @ a == 0])
    # Clarabel's default linear algebra suits this dense problem best (QDLDL,
    # which SVC requests for its sparse factored problem, is ~5x slower here).
    problem.solve(solver=cp.CLARABEL)
    return a.value


def bench_svm():
    kernel, C = Gaussian(sigma=0.5), 1.0
    print("Dual SVM, Gaussian kernel (sigma = 0.5), C = 1, two moons (noise 0.2)")
    X, y = moons(2000)
    ours, book, model, alpha = paired_median_times(lambda: SVC(kernel, C=C).fit(X, y),
                                                   lambda: textbook_dual(X, y, C, kernel))
    print(f"  n = 2000: SVC {ours:.2f} s (factor rank {model.rank_}), textbook quad_form "
          f"{book:.2f} s, max |alpha difference| {np.abs(alpha - model.alpha_).max():.1e}")
    report("n = 2000: textbook time / SVC time", f"{book / ours:.1f}x", ">= 4x", book / ours >= 4)

    X, y = moons(4000)
    ours, ref, model, _ = paired_median_times(
        lambda: SVC(kernel, C=C).fit(X, y),
        lambda: SkSVC(C=C, kernel="rbf", gamma=1 / (2 * 0.5**2)).fit(X, y))
    ref_tight, _ = median_time(lambda: SkSVC(C=C, kernel="rbf", gamma=1 / (2 * 0.5**2),
                                             tol=1e-8).fit(X, y))
    print(f"  n = 4000: SVC {ours:.2f} s (factor rank {model.rank_}), scikit-learn "
          f"{ref:.3f} s (default tol=1e-3), {ref_tight:.3f} s (tol=1e-8)")
    report("n = 4000: SVC time / scikit-learn time (default tol)", f"{ours / ref:.0f}x",
           "<= 60x", ours / ref <= 60)

    child = subprocess.run([sys.executable, __file__, "--svm-child", "10000"],
                           capture_output=True, text=True, check=True)
    seconds, peak = (float(v) for v in child.stdout.split())
    print(f"  n = 10000: SVC {seconds:.1f} s in a subprocess")
    report("n = 10000: peak resident memory", f"{peak / GIB:.2f} GiB", "< 4 GiB", peak < 4 * GIB)


def svm_child(n):
    """Fit once and print (seconds, peak RSS in bytes); run in a fresh process."""
    X, y = moons(n)
    start = time.perf_counter()
    SVC(Gaussian(sigma=0.5), C=1.0).fit(X, y)
    seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(seconds, peak_kib * 1024)


# ---------------------------------------------------------------------------
def full_rank(n):
    """Two classes in 20 dimensions: the Gaussian Gram matrix has full numerical rank."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n, n_features=20, n_informative=10, random_state=0)
    return X, y, Gaussian(sigma=np.sqrt(20.0))


def fit_full_rank(n):
    """Fit SVC and LIBSVM (default tol and tol=1e-8) on full-rank data; returns a summary."""
    X, y, kernel = full_rank(n)
    gamma = 1 / (2 * kernel.sigma**2)
    ours, ref, model, _ = paired_median_times(
        lambda: SVC(kernel, C=1.0).fit(X, y),
        lambda: SkSVC(C=1.0, kernel="rbf", gamma=gamma).fit(X, y), repeats=1)
    ref_tight, tight = median_time(
        lambda: SkSVC(C=1.0, kernel="rbf", gamma=gamma, tol=1e-8).fit(X, y), 1)
    alpha = np.zeros(n)
    alpha[tight.support_] = np.abs(tight.dual_coef_[0])
    return dict(ours=ours, ref=ref, ref_tight=ref_tight, method=model.method_,
                diff=float(np.abs(alpha - model.alpha_).max()), n_sv=len(model.support_))


def bench_svm_full_rank():
    print("Dual SVM on full-rank data: 20 features, Gaussian kernel (sigma = sqrt(20)), C = 1")
    for n in (2000, 10000):
        if n == 2000:
            out, peak = fit_full_rank(n), None
        else:  # a fresh process, so that its peak memory is this fit's alone
            child = subprocess.run([sys.executable, __file__, "--full-rank-child", str(n)],
                                   capture_output=True, text=True, check=True)
            *values, peak = child.stdout.split()
            out = dict(zip(("ours", "ref", "ref_tight", "diff", "n_sv"), map(float, values)),
                       method="working-set")
            peak = float(peak)
        print(f"  n = {n}: SVC {out['ours']:.1f} s ({out['method']}, {out['n_sv']:.0f} support "
              f"vectors), LIBSVM {out['ref']:.2f} s (tol 1e-3), {out['ref_tight']:.2f} s "
              f"(tol 1e-8)")
        report(f"n = {n}: SVC time / LIBSVM time (tol 1e-3)", f"{out['ours'] / out['ref']:.0f}x",
               "<= 20x", out["ours"] / out["ref"] <= 20)
        report(f"n = {n}: SVC time / LIBSVM time (tol 1e-8)",
               f"{out['ours'] / out['ref_tight']:.0f}x", "<= 20x",
               out["ours"] / out["ref_tight"] <= 20)
        report(f"n = {n}: max |alpha - LIBSVM alpha (tol 1e-8)| / C", f"{out['diff']:.1e}",
               "<= 1e-3", out["diff"] <= 1e-3)
        if peak is not None:
            report(f"n = {n}: peak resident memory", f"{peak / GIB:.2f} GiB", "< 4 GiB",
                   peak < 4 * GIB)


def full_rank_child(n):
    """Print the summary of :func:`fit_full_rank` and the peak RSS in bytes."""
    out = fit_full_rank(n)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(out["ours"], out["ref"], out["ref_tight"], out["diff"], out["n_sv"], peak_kib * 1024)


# ---------------------------------------------------------------------------
def bench_approximations():
    print("Approximate kernel ridge, Gaussian kernel (sigma = 1), n = 20000, d = 3")
    rng = np.random.default_rng(1)

    def sample(n):
        X = rng.uniform(-3, 3, (n, 3))
        return X, np.sin(X[:, 0]) * np.cos(X[:, 1]) + 0.2 * X[:, 2] ** 2

    X, f = sample(20000)
    y = f + 0.3 * rng.standard_normal(len(f))
    X_test, f_test = sample(5000)
    y_test = f_test + 0.3 * rng.standard_normal(len(f_test))
    sigma, lam = 1.0, 1.0

    def rmse(model):
        return float(np.sqrt(np.mean((model.predict(X_test) - y_test) ** 2)))

    exact_t, exact = median_time(lambda: KernelRidge(Gaussian(sigma=sigma), lam=lam).fit(X, y))
    exact_rmse = rmse(exact)
    print(f"  exact KernelRidge: fit {exact_t:.1f} s, test RMSE {exact_rmse:.4f} "
          f"(noise level 0.3)")
    for name, make in [
        ("NystroemKernelRidge (500 landmarks)",
         lambda: NystroemKernelRidge(Gaussian(sigma=sigma), lam=lam, n_components=500,
                                     random_state=0)),
        ("RandomFeatureRidge (1000 features)",
         lambda: RandomFeatureRidge(sigma=sigma, lam=lam, n_components=1000, random_state=0)),
    ]:
        t, model = median_time(lambda: make().fit(X, y))
        err = rmse(model)
        print(f"  {name}: fit {t:.2f} s, test RMSE {err:.4f}")
        report(f"{name}: speed-up over exact", f"{exact_t / t:.0f}x", ">= 10x",
               exact_t / t >= 10)
        report(f"{name}: RMSE / exact RMSE", f"{err / exact_rmse:.3f}", "<= 1.05",
               err / exact_rmse <= 1.05)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["ridge", "svm", "svm-full-rank", "approx"],
                        help="run one section only")
    parser.add_argument("--svm-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--full-rank-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.svm_child:
        svm_child(args.svm_child)
        return
    if args.full_rank_child:
        full_rank_child(args.full_rank_child)
        return
    start = time.perf_counter()
    print("load average at start (1, 5, 15 min): %.1f %.1f %.1f on %d cores"
          % (*os.getloadavg(), os.cpu_count()))
    sections = {"ridge": bench_kernel_ridge, "svm": bench_svm,
                "svm-full-rank": bench_svm_full_rank, "approx": bench_approximations}
    for name, run in sections.items():
        if args.only in (None, name):
            run()
    print(f"total {time.perf_counter() - start:.0f} s; load average at end: "
          "%.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()
