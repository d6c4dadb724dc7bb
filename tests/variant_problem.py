"""A small problem set with variants, for the tests of the variant machinery.

``install("ps90")`` registers it as ``coursecheck.problems.ps90`` for the
test's process: one part that varies (``scaled``: c times x, c the
variant's), one that does not (``doubled``).  With ``verdicts=True`` it also
asks for verdicts that vary (``kernel_verdicts``: ``is_kernel(name)``, whether
each of twelve candidates ``K1`` ... ``K12``, exp(a x z) with its own
a of the variant's, is a kernel: exactly when a >= 0), as ps1's part 3
is planned to.  ``install_plain("ps91")``
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


#: The candidates of ``kernel_verdicts``, by the neutral names the cases carry.
CANDIDATES = tuple(f"K{i}" for i in range(1, 13))


def _draw_with_verdicts(rng):
    params = _draw(rng)      # the same c and x as without verdicts
    signs = rng.choice([-1.0, 1.0], size=len(CANDIDATES))
    scales = np.round(rng.uniform(0.5, 2.0, size=len(CANDIDATES)), 2)
    params["a"] = {k: float(s * m) for k, s, m in zip(CANDIDATES, signs, scales)}
    return params


def _check_with_verdicts(params):
    if sorted(params["a"]) != sorted(CANDIDATES) or any(
            not 0.5 <= abs(a) <= 2.0 for a in params["a"].values()):
        return f"a = {params['a']} must give each candidate a in ±[0.5, 2]"
    return _check(params)


def verdict_part():
    """``kernel_verdicts``: is ``exp(a x z)`` with the variant's a of each candidate a kernel?"""
    return Part(
        func="is_kernel", points=2, varies=True, verdict=True,
        description="the verdict for each candidate",
        public=lambda v: [Case(args=(k,), label=k) for k in CANDIDATES],
        hidden=lambda v, rng: [],
        reference=lambda v, name: bool(v["a"][name] >= 0))


def module(name, verdicts=False):
    mod = types.ModuleType(f"coursecheck.problems.{name}")
    mod.VARIANT = (Variation(draw=_draw_with_verdicts, check=_check_with_verdicts) if verdicts
                   else Variation(draw=_draw, check=_check))
    mod.PARTS = {
        "scaled": Part(
            func="scaled", points=2, varies=True, description="c times x",
            public=lambda v: [Case(args=(np.array(v["x"]),), label="your x")],
            hidden=lambda v, rng: [Case(args=(rng.normal(size=4),), label="random x")],
            reference=lambda v, x: v["c"] * x),
        "doubled": _doubled(),
    }
    if verdicts:
        mod.PARTS["kernel_verdicts"] = verdict_part()
    return mod


def install(monkeypatch, name="ps90", verdicts=False):
    """Register the problem set for this test (undone after it)."""
    monkeypatch.setitem(sys.modules, f"coursecheck.problems.{name}", module(name, verdicts))
    return name


def install_plain(monkeypatch, name="ps91"):
    """Register a problem set without variants for this test (undone after it)."""
    mod = types.ModuleType(f"coursecheck.problems.{name}")
    mod.PARTS = {"doubled": _doubled()}
    monkeypatch.setitem(sys.modules, f"coursecheck.problems.{name}", mod)
    return name
