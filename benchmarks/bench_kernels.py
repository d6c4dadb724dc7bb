"""Speed and memory of kernlab's Gaussian Gram matrix against scikit-learn's rbf_kernel.

Run with ``python benchmarks/bench_kernels.py``.  Prints the median of three
timings of each for n = 5000 points in d = 50 dimensions, their ratio, and
kernlab's peak memory traced by tracemalloc (numpy reports its allocations
there), each beside its target.
"""

import os
import statistics
import time
import tracemalloc

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel

from kernlab import Gaussian

N, D, SIGMA, REPEATS = 5000, 50, 3.0, 3
TARGET_RATIO = 0.7          # kernlab time / scikit-learn time
PEAK_LIMIT = 2 * N * N * 8  # bytes: at most two n x n float64 arrays alive


def median_times(funcs, repeats=REPEATS):
    """Median wall-clock seconds of each function, runs interleaved.

    Interleaving (a, b, a, b, ...) exposes both to the same background load.
    One untimed call of each comes first, so that one-off costs (first use of
    BLAS and of the thread pool, growing the heap) are not timed.
    """
    for func in funcs:
        func()
    times = [[] for _ in funcs]
    for _ in range(repeats):
        for func, record in zip(funcs, times):
            start = time.perf_counter()
            func()
            record.append(time.perf_counter() - start)
    return [statistics.median(record) for record in times]


def peak_bytes(func):
    """Peak traced memory (bytes) while ``func()`` runs."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main():
    X = np.random.default_rng(0).standard_normal((N, D))
    kernel = Gaussian(sigma=SIGMA)
    gamma = 1.0 / (2.0 * SIGMA ** 2)

    # The two must agree before their speeds are worth comparing.
    K_ours, K_ref = kernel(X[:500]), rbf_kernel(X[:500], gamma=gamma)
    error = np.abs(K_ours - K_ref).max()
    del K_ours, K_ref

    ours, ref = median_times([lambda: kernel(X), lambda: rbf_kernel(X, gamma=gamma)])
    peak = peak_bytes(lambda: kernel(X))
    ratio = ours / ref

    print(f"Gaussian Gram matrix, n = {N}, d = {D}, sigma = {SIGMA}, median of {REPEATS} runs")
    # Timings on a shared machine move with its load; print it beside them.
    print(f"  cores {os.cpu_count()}, load average (1 min) {os.getloadavg()[0]:.1f}")
    print(f"  max |kernlab - sklearn| on 500 points : {error:.2e}")
    print(f"  kernlab Gaussian(sigma)(X)            : {ours:.3f} s")
    print(f"  sklearn rbf_kernel(X, gamma)          : {ref:.3f} s")
    print(f"  ratio kernlab / sklearn               : {ratio:.2f}  (target <= {TARGET_RATIO})  "
          f"{'OK' if ratio <= TARGET_RATIO else 'MISSED'}")
    print(f"  kernlab peak traced memory            : {peak / 2**20:.1f} MiB  "
          f"(limit 2*n*n*8 = {PEAK_LIMIT / 2**20:.1f} MiB)  "
          f"{'OK' if peak <= PEAK_LIMIT else 'MISSED'}")


if __name__ == "__main__":
    main()
