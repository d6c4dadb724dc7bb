"""Make the kernels that execute the chapters draw their figures inline.

A Jupyter kernel shows Matplotlib figures as cell outputs only with the inline
backend, its default.  A shell that exports ``MPLBACKEND=Agg`` (common in test
and CI set-ups) would be inherited by every kernel the build starts, and every
figure would silently vanish from the book.  This extension removes a
non-inline ``MPLBACKEND`` from the build's environment before any notebook runs.
"""

from __future__ import annotations

import os

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)


def clear_backend(app: Sphinx, config) -> None:
    backend = os.environ.get("MPLBACKEND")
    if backend and "inline" not in backend:
        logger.info("ignoring MPLBACKEND=%s so that chapter figures render inline", backend)
        del os.environ["MPLBACKEND"]


def setup(app: Sphinx):
    app.connect("config-inited", clear_backend)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
