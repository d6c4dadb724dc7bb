"""kernlab: kernels, feature maps, ridge regression, SVMs, Gaussian processes and RKHS tools.

The reference library of the course: the book computes with it and the
autograder checks students' work against it.

``import kernlab`` is quick: each name is loaded from its module the first
time it is used, so ``kernlab.Gaussian`` or ``kernlab.is_psd`` needs only
NumPy and SciPy, and scikit-learn and CVXPY are imported when an estimator
(``kernlab.SVC``, ``kernlab.Ridge``, ...) is first used.
"""

import importlib

__version__ = "0.1.0"

#: Where each name of ``kernlab.<name>`` lives (together, the modules' ``__all__``).
HOMES = {
    "kernels": ("Kernel", "Linear", "Polynomial", "Gaussian", "LaplacianL1", "LaplacianL2",
                "Matern", "Exponential", "Sigmoid", "ANOVA", "Min", "GeneralLinear",
                "SetKernel", "Spectrum", "AllSubstrings", "Precomputed", "FunctionKernel",
                "Constant", "Sum", "Product", "Scaled", "Power", "Exp", "PolynomialOf",
                "Rescaled", "Composed", "Normalized", "OnColumns"),
    "features": ("FeatureMap", "PolynomialFeatures", "ANOVAFeatures", "CorrelationFeatures",
                 "BiasFeatures", "GaussianTaylorFeatures", "RandomFourierFeatures",
                 "Nystroem"),
    "gram": ("gram_matrix", "kernel_mult", "find_counterexample", "Counterexample",
             "pivoted_cholesky", "gram_factor"),
    "_linalg": ("is_psd", "PSDVerdict"),
    "ridge": ("ridge_flops", "Ridge", "BasisRidge", "KernelRidge", "NystroemKernelRidge",
              "RandomFeatureRidge"),
    "svm": ("SVC", "SVR", "LinearSVCPrimal", "KernelSVCPrimal", "KKTReport", "kkt_report"),
    "rkhs": ("RKHSFunction", "kernel_distance", "MercerExpansion", "mercer_eigen",
             "gaussian_mercer_eigenvalues", "gaussian_mercer_eigenfunctions", "h1_inner",
             "h1_norm", "min_kernel_section"),
    "gaussian_process": ("GaussianProcessRegressor", "kernel_hyperparameters"),
    "rademacher": ("RademacherComplexity", "rkhs_ball_rademacher", "MarginBound",
                   "margin_bound"),
    "kernel_pca": ("KernelPCA",),
    "model_selection": ("kfold", "GridSearch"),
}
_HOME = {name: module for module, names in HOMES.items() for name in names}

__all__ = list(_HOME)


def __getattr__(name):
    """``kernlab.<name>``: a public name or a module of the package, loaded on first use."""
    if name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    else:
        try:
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
