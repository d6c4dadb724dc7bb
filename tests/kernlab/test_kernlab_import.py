"""``import kernlab`` loads each name on first use, and exposes exactly the modules' names."""

import importlib
import subprocess
import sys

import pytest

import kernlab
from conftest import REPO

MODULES = ["kernels", "features", "gram", "ridge", "svm", "rkhs", "kernel_pca", "gaussian_process",
           "rademacher", "model_selection"]


def test_every_public_name_is_the_modules_own():
    exported = {}
    for name in MODULES:
        module = importlib.import_module(f"kernlab.{name}")
        for public in module.__all__:
            exported[public] = getattr(module, public)
    assert sorted(kernlab.__all__) == sorted(exported)
    for public, value in exported.items():
        assert getattr(kernlab, public) is value, public
    for home, names in kernlab.HOMES.items():
        module = importlib.import_module(f"kernlab.{home}")
        assert all(getattr(module, n) is getattr(kernlab, n) for n in names), home


def test_unknown_names_are_refused_by_name():
    with pytest.raises(AttributeError, match="'kernlab' has no attribute 'Gausian'"):
        kernlab.Gausian
    with pytest.raises(ImportError):
        from kernlab import no_such_thing  # noqa: F401


def fresh(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.slow
def test_kernels_and_psd_checks_need_neither_scikit_learn_nor_cvxpy():
    """A kernel and a PSD check do not wait for the estimators' libraries."""
    before, after, star = fresh("""
import sys
import numpy as np
import kernlab
X = np.random.default_rng(0).standard_normal((20, 3))
K = kernlab.Polynomial(degree=2, c=1.0)(X) + kernlab.Gaussian(sigma=1.0)(X)
assert kernlab.is_psd(K)
print(any(m in sys.modules for m in ("sklearn", "cvxpy")), end=" ")
model = kernlab.SVC(kernlab.Gaussian(sigma=1.0), C=1.0).fit(X, np.sign(X[:, 0]))
print(all(m in sys.modules for m in ("sklearn", "cvxpy")), end=" ")
namespace = {}
exec("from kernlab import *", namespace)
print(sorted(n for n in namespace if not n.startswith("__")) == sorted(kernlab.__all__))
""")
    assert (before, after, star) == ("False", "True", "True")
