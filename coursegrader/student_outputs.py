"""Plain, cleaned copies of a notebook's outputs from an untrusted source.

Used for the outputs of the student's kernel run
(:mod:`coursegrader.preprocessors.judge_submission`) and for every code cell of
an autograded notebook
(:mod:`coursegrader.preprocessors.clean_student_html`); the HTML and
Markdown they keep are cleaned by :mod:`coursegrader.student_html`.
"""

import re

from nbformat.v4 import new_output

from .student_html import MarkdownBudget, clean_html

__all__ = ["clean_outputs", "plain_text", "MARKDOWN_CHARACTERS"]

TEXT_LIMIT = 100_000   # characters kept of one output's text
MARKDOWN_CHARACTERS = 100_000   # Markdown rendered per notebook, cells and outputs together
_KEPT_DATA = ("text/plain", "text/html", "text/markdown", "text/latex", "image/png",
              "image/jpeg")


#: An escape character that does not start a short ANSI sequence setting colours
#: or weight (SGR), as honest outputs hold (IPython's tracebacks: ``\x1b[0;31m``,
#: ``\x1b[38;5;241m``).
_OTHER_ESCAPE = re.compile(r"\x1b(?!\[[0-9;]{0,32}m)")


def plain_text(value):
    """``value`` as text (a list of strings joined), cut to the limit; else "".

    Of ANSI escape sequences, which the pages that show outputs turn into
    colours, only short colour settings stay; any other escape character is
    written out as ``\\x1b``.  (nbconvert's conversion takes time quadratic
    in a sequence's length: 40 outputs of one sequence of 100,000 characters
    held Formgrader's page for 80 s.)
    """
    if isinstance(value, list):
        value = "".join(v for v in value if type(v) is str)
    if type(value) is not str:
        return ""
    return _OTHER_ESCAPE.sub(r"\\x1b", value[:TEXT_LIMIT])


def clean_outputs(outputs, markdown=None):
    """Plain, sanitised copies of notebook ``outputs`` from an untrusted source.

    Streams, errors and rich outputs only; of rich data only text, HTML and
    Markdown (cleaned by :mod:`coursegrader.student_html`), LaTeX and PNG/JPEG
    images; anything else -- scripts, widgets, SVG, metadata -- is dropped.
    ``markdown``: the notebook's :class:`~coursegrader.student_html.MarkdownBudget`,
    which Markdown outputs share with its cells (default: one for these outputs).
    """
    markdown = markdown or MarkdownBudget(MARKDOWN_CHARACTERS)
    kept = []
    for out in outputs if isinstance(outputs, list) else []:
        kind = out.get("output_type") if isinstance(out, dict) else None
        if kind == "stream":
            name = out.get("name")
            name = name if name in ("stdout", "stderr") else "stdout"
            kept.append(new_output("stream", name=name,
                                   text=plain_text(out.get("text"))))
        elif kind == "error":
            tb = out.get("traceback")
            kept.append(new_output("error", ename=plain_text(out.get("ename"))[:200],
                                   evalue=plain_text(out.get("evalue"))[:2000],
                                   traceback=[plain_text(t) for t in tb[:200]]
                                   if isinstance(tb, list) else []))
        elif kind in ("execute_result", "display_data"):
            raw = out.get("data") if isinstance(out.get("data"), dict) else {}
            data = {}
            for mime in _KEPT_DATA:
                if mime in raw:
                    text = plain_text(raw[mime])
                    data[mime] = clean_html(text) if mime == "text/html" \
                        else markdown.clean(text) if mime == "text/markdown" else text
            if not data:
                continue
            extra = {}
            if kind == "execute_result":
                n = out.get("execution_count")
                extra["execution_count"] = n if type(n) is int else None
            kept.append(new_output(kind, data=data, **extra))
    return kept

