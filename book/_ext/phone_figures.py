"""Give every chapter figure a second drawing for phones.

The kernels that execute the chapters load the IPython extension
``figure_layouts`` (the book's own module, next to this one, never part of
what students install): each Matplotlib figure a cell shows then comes as
a PNG (the PDF's image) and as an HTML ``<picture>`` that shows a phone a
drawing at most 340 pixels wide, with the same font sizes.  The kernels are
started from a kernel specification written into the build directory, which
the chapters' ``python3`` kernel name is aliased to; the chapters' sources and
their notebook downloads are unchanged.  The ``alt`` text of the picture is
filled in from the figure's caption by ``figure_alt``.  A chapter draws its
figures for the laptop's column alone, so that a student runs it with the
student package only.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from sphinx.application import Sphinx

KERNEL = "kernel-methods-book"


def write_kernel(app: Sphinx, config) -> None:
    root = Path(app.doctreedir).parent / "kernels-with-phone-figures"
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
            "--IPKernelApp.extra_extensions=figure_layouts"]
    here = str(Path(__file__).resolve().parent)   # where figure_layouts is
    python_path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)
    (spec / "kernel.json").write_text(json.dumps(
        {"argv": argv, "display_name": "Python 3 (book)", "language": "python",
         "env": {"PYTHONPATH": python_path}, "metadata": {"debugger": False}}, indent=1))
    paths = os.environ.get("JUPYTER_PATH", "")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(root), paths) if p)
    aliases = dict(config.nb_kernel_rgx_aliases or {})
    aliases.setdefault("python3", KERNEL)
    config.nb_kernel_rgx_aliases = aliases


def setup(app: Sphinx):
    app.connect("config-inited", write_kernel)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
