"""A small problem set with variants, for the tests of the variant machinery.

``install("ps90")`` registers it as ``coursecheck.problems.ps90`` for the
test's process: one part that varies (``scaled``: c times x, c the
variant's), one that does not (``doubled``).  ``install_plain("ps91")``
registers a problem set without variants (``doubled`` alone).
"""

import sys
import types

import numpy as np

from coursecheck.parts import Case, Part
from coursecheck.variants import Variation

C_VALUES = (0.5, 1.5, 2.0, 3.0, 4.5)


def _draw(rng):
    return {"c": float(rng.choice(C_VALUES)),
            "x": np.round(rng.normal(size=3), 3)}


def _check(params):
    return None if params["c"] in C_VALUES else f"c = {params['c']} is outside {C_VALUES}"


def _doubled():
    return Part(func="doubled", points=1, description="2 x",
                public=lambda: [Case(args=(np.arange(3.0),), label="0, 1, 2")],
                hidden=lambda rng: [Case(args=(rng.normal(size=2),), label="random x")],
                reference=lambda x: 2 * x)


def module(name):
    mod = types.ModuleType(f"coursecheck.problems.{name}")
    mod.VARIANT = Variation(draw=_draw, check=_check)
    mod.PARTS = {
        "scaled": Part(
            func="scaled", points=2, varies=True, description="c times x",
            public=lambda v: [Case(args=(np.array(v["x"]),), label="your x")],
            hidden=lambda v, rng: [Case(args=(rng.normal(size=4),), label="random x")],
            reference=lambda v, x: v["c"] * x),
        "doubled": _doubled(),
    }
    return mod


def install(monkeypatch, name="ps90"):
    """Register the problem set for this test (undone after it)."""
    monkeypatch.setitem(sys.modules, f"coursecheck.problems.{name}", module(name))
    return name


def install_plain(monkeypatch, name="ps91"):
    """Register a problem set without variants for this test (undone after it)."""
    mod = types.ModuleType(f"coursecheck.problems.{name}")
    mod.PARTS = {"doubled": _doubled()}
    monkeypatch.setitem(sys.modules, f"coursecheck.problems.{name}", mod)
    return name
