"""The feedback page a student opens: maths typeset offline, no cell prompts.

nbgrader's feedback template loads MathJax 2 from a CDN, so a student reading
the page offline sees raw TeX. The folder
``templates/feedback`` comes first on nbconvert's search path for nbgrader's
``feedback`` template (``nbgrader_config.py``) and shadows two of the files it
builds on: ``mathjax.html.j2``, whose macro inlines MathJax 3 with SVG output
(which needs no web fonts) from the copy that ``sphinx-mathjax-offline``
installs for the website, and ``base.html.j2``, which leaves the ``In [ ]`` /
``Out [ ]`` prompts empty (the judged test cells have no execution count, so
they would read ``In [ ]``).
The page is then a single file of about 2 MB that needs no network.
"""

from __future__ import annotations

import functools
import importlib.metadata
from pathlib import Path

import nbgrader

__all__ = ["TEMPLATES", "template_basedirs", "offline_mathjax"]

#: Folder of the course's nbconvert templates.
TEMPLATES = Path(__file__).resolve().with_name("templates")

#: The distribution that ships MathJax 3 for the website, and its folder there.
MATHJAX_DISTRIBUTION = "sphinx-mathjax-offline"


def template_basedirs() -> list[str]:
    """Where nbconvert looks for templates: the course's, then nbgrader's."""
    nbgrader_templates = (Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
                          / "templates")
    return [str(TEMPLATES), str(nbgrader_templates)]


@functools.cache
def _mathjax_file(name: str) -> Path:
    dist = importlib.metadata.distribution(MATHJAX_DISTRIBUTION)
    for entry in dist.files or []:
        if entry.parts[-2:] == ("mathjax", name):
            return Path(dist.locate_file(entry))
    raise FileNotFoundError(f"{MATHJAX_DISTRIBUTION} has no mathjax/{name}")


def offline_mathjax(name: str) -> str:
    """The text of MathJax's ``name`` (e.g. ``tex-svg.js``), safe inside a ``<script>``.

    A Jinja filter of the feedback template (``HTMLExporter.filters``).
    """
    text = _mathjax_file(name).read_text(encoding="utf-8")
    return text.replace("</script", "<\\/script")
