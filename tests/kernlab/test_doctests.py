"""The examples in every kernlab module's docstrings run and print what they show."""

import doctest
import importlib
import pkgutil

import matplotlib
import pytest

import kernlab

matplotlib.use("Agg")

MODULES = sorted(info.name for info in pkgutil.iter_modules(kernlab.__path__))


def test_every_module_is_listed():
    assert {"kernels", "gram", "svm", "ridge", "_linalg", "_estimator", "_validation"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(f"kernlab.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, result
    assert result.attempted > 0, f"kernlab.{name} has no runnable example"
