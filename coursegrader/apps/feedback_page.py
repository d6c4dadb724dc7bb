"""The pages that show a student's notebook: feedback and Formgrader's grading page.

nbgrader's feedback template loads MathJax 2 from a CDN, so a student reading
the page offline sees raw TeX. The folder ``templates`` comes first on
nbconvert's search path for nbgrader's ``feedback`` and ``formgrade``
templates (``nbgrader_config.py``, which Formgrader reads too):

* ``mathjax.html.j2`` (in both) shadows nbconvert's macro and inlines MathJax 3
  with SVG output (which needs no web fonts) from the copy that
  ``sphinx-mathjax-offline`` installs for the website, with the configuration
  of :data:`MATHJAX_CONFIG` and the guard of :data:`MATHJAX_GUARD`, so that a
  student's TeX makes no link, style, class or id and moves nothing far, and
  the style sheet :data:`MATH_CLIP`, so that each formula (MathJax's, and the
  feedback's MathML) draws only inside its own box and a word longer than its
  line breaks inside its cell (:func:`offline_mathjax`);
* ``feedback/base.html.j2`` leaves the ``In [ ]`` / ``Out [ ]`` prompts empty
  (the judged test cells have no execution count, so they would read ``In [ ]``);
* :data:`TEMPLATE_FILE` (in both) is the page itself: it extends nbgrader's
  ``index.html.j2``, shows every Markdown cell through the ``clean_student_html``
  filter (:mod:`coursegrader.student_html`) and, in the feedback, names each
  graded part by its title (:mod:`coursegrader.preprocessors.title_graded_parts`).

The feedback page is then a single file of about 2 MB that needs no network.
Its Content-Security-Policy allows only its own inline scripts, by their hashes
(:mod:`coursegrader.csp`), as the Formgrader server's policy does for the
grading page (``deploy/formgrader_csp.py``).
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
from pathlib import Path

import nbgrader

__all__ = ["TEMPLATES", "TEMPLATE_FILE", "MATHJAX_CONFIG", "template_basedirs",
           "MATHJAX_GUARD", "MATH_CLIP", "offline_mathjax"]

#: Folder of the course's nbconvert templates.
TEMPLATES = Path(__file__).resolve().parents[1] / "templates"

#: The page template, in ``templates/feedback`` and ``templates/formgrade``.
TEMPLATE_FILE = "course.html.j2"

#: MathJax 3's configuration.  The pages show students' TeX, so no extension is
#: loaded on demand (``autoload``) and there is no \require: the maths fetches
#: nothing.  No macro sets an attribute: \mmlToken (in MathJax's base package,
#: which takes ``href``, ``style``, ``class``...) keeps only its text, and
#: \href, \class, \cssId and \style (the ``html`` extension, removed) only
#: their content.  :data:`MATHJAX_GUARD` then strips those attributes from
#: whatever formula sets them, and every link from the typeset output.
MATHJAX_CONFIG = {
    "tex": {
        "packages": {"[-]": ["html", "require", "autoload"]},
        "macros": {
            "mmlToken": ["\\mathsafeTokenText", 1],     # drops the element's kind
            "mathsafeTokenText": ["{#2}", 2, ""],          # and its [attributes]
            "href": ["{#2}", 2],
            "class": ["{#2}", 2],
            "cssId": ["{#2}", 2],
            "style": ["{#2}", 2],
        },
        "inlineMath": [["$", "$"], ["\\(", "\\)"]],
        "displayMath": [["$$", "$$"], ["\\[", "\\]"]],
        "processEscapes": True,
        "processEnvironments": True,
    },
    "svg": {"fontCache": "global"},
}

#: The script run after the configuration is set: a filter that removes
#: ``href``, ``style``, ``class`` and ``id`` from every formula's MathML, a
#: render action that removes every link from the typeset output, and bounds
#: on how far \raise, \lower, \moveleft, \moveright, a \rule and a negative
#: \kern (\hspace, \hskip, \mkern...) reach: past a few em the command is
#: shown as its TeX.
MATHJAX_GUARD = Path(__file__).with_name("mathjax_guard.js")

#: The style sheet that clips every formula, MathJax's and MathML, to its own
#: box, so that no student's formula paints over the rest of the page, and
#: breaks a word longer than its line inside its cell.
MATH_CLIP = Path(__file__).with_name("math_clip.css")

#: The distribution that ships MathJax 3 for the website, and its folder there.
MATHJAX_DISTRIBUTION = "sphinx-mathjax-offline"


def template_basedirs() -> list[str]:
    """Where nbconvert looks for templates: the course's, then nbgrader's."""
    nbgrader_templates = (Path(nbgrader.__file__).parent / "server_extensions"
                          / "formgrader" / "templates")
    return [str(TEMPLATES), str(nbgrader_templates)]


@functools.cache
def _mathjax_file(name: str) -> Path:
    dist = importlib.metadata.distribution(MATHJAX_DISTRIBUTION)
    for entry in dist.files or []:
        if entry.parts[-2:] == ("mathjax", name):
            return Path(dist.locate_file(entry))
    raise FileNotFoundError(f"{MATHJAX_DISTRIBUTION} has no mathjax/{name}")


def offline_mathjax(name: str) -> str:
    """The ``<style>`` :data:`MATH_CLIP`, then two ``<script>`` elements:
    :data:`MATHJAX_CONFIG` and :data:`MATHJAX_GUARD`, then MathJax's ``name``
    (e.g. ``tex-svg.js``) inlined.

    A Jinja filter of the course's templates (``HTMLExporter.filters``).  The
    style sheet applies with scripts off too, to the feedback's MathML.
    """
    text = _mathjax_file(name).read_text(encoding="utf-8")
    text = text.replace("</script", "<\\/script")
    config = json.dumps(MATHJAX_CONFIG).replace("</", "<\\/")
    guard = MATHJAX_GUARD.read_text(encoding="utf-8").replace("</", "<\\/")
    clip = MATH_CLIP.read_text(encoding="utf-8").replace("</", "<\\/")
    return (f"<style>\n{clip}</style>\n"
            f"<script>window.MathJax = {config};\n{guard}</script>\n"
            f"<script>{text}</script>")
