"""kernlab.GaussianProcessRegressor against scikit-learn's: time and agreement.

Run from the repository root::

    python benchmarks/bench_gaussian_process.py

For several sizes and seeds it times, alternately, the two libraries on the
same work: a fit with fixed hyperparameters followed by the mean and standard
deviation at 500 new points, and one evaluation of the log marginal
likelihood with its gradient.  It prints the median times, their ratio and
the largest disagreement.  Wall-clock ratios mean something only on an
otherwise idle machine, so the load average is printed at start and end.
"""

import os
import statistics
import time

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from kernlab import Gaussian, GaussianProcessRegressor


def median_seconds(fn, repeats=3):
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def case(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    X_new = rng.normal(size=(500, 4))
    ours = GaussianProcessRegressor(1.5 * Gaussian(sigma=1.2), noise_var=0.05)
    theirs = SkGPR(ConstantKernel(1.5) * RBF(1.2), alpha=0.05, optimizer=None)
    evidence = SkGPR(ConstantKernel(1.5) * RBF(1.2) + WhiteKernel(0.05), alpha=0.0,
                     optimizer=None).fit(X, y)

    def predict(model):
        return model.fit(X, y).predict(X_new, return_std=True)

    t_ours, (m_ours, s_ours) = median_seconds(lambda: predict(ours))
    t_theirs, (m_theirs, s_theirs) = median_seconds(lambda: predict(theirs))
    gap = max(np.abs(m_ours - m_theirs).max(), np.abs(s_ours - s_theirs).max())
    g_ours, (v_ours, d_ours) = median_seconds(
        lambda: ours.log_marginal_likelihood(ours.theta_, eval_gradient=True))
    g_theirs, (v_theirs, d_theirs) = median_seconds(
        lambda: evidence.log_marginal_likelihood(evidence.kernel_.theta, eval_gradient=True))
    gap_evidence = max(abs(v_ours - v_theirs), np.abs(d_ours - d_theirs).max())
    print(f"n = {n:5d}, seed {seed}: fit + predict {t_ours:6.3f} s vs {t_theirs:6.3f} s "
          f"(ratio {t_ours / t_theirs:4.2f}), largest difference {gap:.1e}; "
          f"evidence + gradient {g_ours:6.3f} s vs {g_theirs:6.3f} s "
          f"(ratio {g_ours / g_theirs:4.2f}), largest difference {gap_evidence:.1e}",
          flush=True)


def main():
    print("load average at start (1, 5, 15 min): %.1f %.1f %.1f on %d cores"
          % (*os.getloadavg(), os.cpu_count()))
    for n in (200, 1000, 3000):
        for seed in (0, 1):
            case(n, seed)
    print("load average at end: %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()
