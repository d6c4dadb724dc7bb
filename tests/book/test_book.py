"""The course book builds cleanly and every page renders in a real browser.

One module-scoped fixture builds the book from scratch (into a temporary
directory, or into ``$BOOK_BUILD_DIR`` when that is set, which is emptied
first) with warnings as errors and every notebook executed.  The first test
checks the build itself.  Another fixture opens each page once in headless
Chromium, over a local HTTP server, on a laptop's screen and on a phone's, and
measures what a reader would see; the browser tests assert on its measurements.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml
from markdown_it import MarkdownIt

from conftest import CHROMIUM, require_chromium
from conftest import CHROMIUM_ARGS as BROWSER_ARGS
from accessibility import LAPTOP, PHONE, axe_violations

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [*BROWSER_ARGS, "--disable-quic"]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The only tolerated log line with "WARNING": ipykernel's notice, printed by
# every kernel it starts, that it talks to the executor over local TCP.
KERNEL_NOTICE = re.compile(r"^\[IPKernelApp\] WARNING \| Kernel is running over TCP without encryption")

# TeX left in a page's visible text (outside maths and code) means an equation
# or a role that was never rendered: $$, \( or \[ delimiters, environments,
# commands such as \frac or \lambda (in a formula that Markdown broke up, or
# in a section title quoted by a reference), or MyST roles such as {eq}
# printed literally.  A JavaScript regex.
RAW_TEX = r"\$\$|\\\(|\\\[|\\begin\{|\\[A-Za-z]{2,}|\{eq\}|\{prf:"

# IPython startup file placed in the build's kernels: every figure a chapter
# draws is inspected when it is rendered, and each visible axis (x, y and, in
# 3-D, z) must carry a label, either its own or that of an axis it shares.
# One JSON line per figure goes to $BOOK_FIGURE_AUDIT.
FIGURE_AUDIT_STARTUP = """
import json, os
from matplotlib.backend_bases import FigureCanvasBase

_print_figure = FigureCanvasBase.print_figure


def _labelled(ax, which):
    if getattr(ax, f"get_{which}label")().strip():
        return True
    group = getattr(ax, f"get_shared_{which}_axes", None)
    shared = group().get_siblings(ax) if group else []
    return any(getattr(o, f"get_{which}label")().strip() for o in shared if o is not ax)


def _drawn(ax):
    if hasattr(ax, "_colorbar") or ax.get_label() == "<colorbar>":
        return False
    # 3-D axes switch their axis lines with _axis3don; axison is always False.
    return getattr(ax, "_axis3don", True) if hasattr(ax, "get_zlabel") else ax.axison


def _smallest_text_px(figure, dpi):
    from matplotlib.text import Text
    sizes = [t.get_fontsize() for t in figure.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return min(sizes) * dpi / 72 if sizes else None


def _audited_print_figure(self, *args, **kwargs):
    dpi = kwargs.get("dpi")
    dpi = self.figure.dpi if dpi in (None, "figure") else dpi
    missing = []
    for ax in self.figure.axes:
        if not _drawn(ax):
            continue
        axes = "xyz" if hasattr(ax, "get_zlabel") else "xy"
        missing += [f"{ax.get_title() or 'untitled panel'}: no {w}-label"
                    for w in axes if not _labelled(ax, w)]
    with open(os.environ["BOOK_FIGURE_AUDIT"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"missing": missing,
                              "smallest_text_px": _smallest_text_px(self.figure, dpi)})
                  + "\\n")
    return _print_figure(self, *args, **kwargs)


FigureCanvasBase.print_figure = _audited_print_figure
"""


PDF_NAME = "kernel-methods.pdf"


def tex_available():
    """True when the LaTeX tools the PDF build needs are installed."""
    return all(shutil.which(tool) for tool in ("latexmk", "xelatex"))


def _require(tool_ok, what):
    if not tool_ok:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{what} is required in CI")
        pytest.skip(f"{what} is not installed; test skipped")


def toc_files():
    """Docnames of all pages in _toc.yml, root first."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            files.append(chapter["file"])
            files.extend(s["file"] for s in chapter.get("sections", []))
    return [re.sub(r"\.(md|ipynb)$", "", f) for f in files]


def is_notebook(docname):
    """True for MyST-markdown notebooks (a jupytext header with a kernelspec)."""
    text = (ROOT / f"{docname}.md").read_text(encoding="utf-8")
    return text.startswith("---") and "kernelspec:" in text.split("---", 2)[1]


@pytest.fixture(scope="module")
def built_book(slow, tmp_path_factory):
    """Build the whole book from scratch once; yield (html_dir, build_log)."""
    target = os.environ.get("BOOK_BUILD_DIR")
    if target:
        out = Path(target).resolve()
        inside = ROOT in out.parents and (ROOT / "_build") not in out.parents
        if out == ROOT or out in ROOT.parents or inside:
            pytest.fail("BOOK_BUILD_DIR must lie outside the repository or in _build/")
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
    else:
        out = tmp_path_factory.mktemp("book")
    cmd = [
        sys.executable, "-c", "from jupyter_book.cli.main import main; main()",
        "build", "-W", "-n", "--keep-going", "--path-output", str(out), str(ROOT),
    ]
    # The kernels that execute the chapters get a fresh IPython directory whose
    # startup file audits every figure (see FIGURE_AUDIT_STARTUP).
    startup = out / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-figure-audit.py").write_text(FIGURE_AUDIT_STARTUP)
    audit = out / "figure_audit.jsonl"
    audit.write_text("")
    env = dict(os.environ, PYTHONHASHSEED="0", IPYTHONDIR=str(out / "ipython"),
               BOOK_FIGURE_AUDIT=str(audit))
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    log = ANSI.sub("", proc.stdout + proc.stderr)
    returncode = proc.returncode
    # The PDF of the whole book, as scripts/build.sh makes it: Jupyter Book's
    # LaTeX builder (notebooks come from the cache just filled), copied into
    # the site, which links to it.
    if returncode == 0 and tex_available():
        pdf = subprocess.run(cmd[:4] + ["--builder", "pdflatex"] + cmd[4:], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=900)
        log += ANSI.sub("", pdf.stdout + pdf.stderr)
        returncode = pdf.returncode
        built = out / "_build" / "latex" / PDF_NAME
        if built.is_file():
            shutil.copy(built, out / "_build" / "html" / PDF_NAME)
    (out / "build.log").write_text(log)
    return out / "_build" / "html", log, returncode


@pytest.mark.timeout(1000)
def test_book_builds_without_warnings(built_book):
    """The build succeeds with -W, logs no warning or error, and ships notebooks."""
    html, log, returncode = built_book
    problems = [
        line for line in log.splitlines()
        if ("WARNING" in line or "ERROR" in line) and not KERNEL_NOTICE.match(line)
    ]
    assert returncode == 0, f"jupyter-book build failed:\n{log[-6000:]}"
    assert not problems, "build logged problems:\n" + "\n".join(problems[:40])

    # Every page of the table of contents was written.
    for docname in toc_files():
        assert (html / f"{docname}.html").is_file(), f"{docname}.html missing"

    # MathJax is served from the site itself, not from a CDN.
    intro = (html / "book" / "intro.html").read_text(encoding="utf-8")
    assert "cdn.jsdelivr" not in intro and "cdnjs" not in intro
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()

    # Each chapter has a downloadable notebook holding exactly its code cells,
    # and the page links to it.
    chapters = [d for d in toc_files() if is_notebook(d)]
    assert chapters, "no chapter is a MyST notebook"
    for docname in chapters:
        ipynb = html / "_sources" / f"{docname}.ipynb"
        assert ipynb.is_file(), f"no notebook download for {docname}"
        nb = nbformat.read(ipynb, as_version=4)
        nbformat.validate(nb)
        src = jupytext.read(ROOT / f"{docname}.md", fmt="md:myst")
        code = [c.source for c in nb.cells if c.cell_type == "code"]
        assert code == [c.source for c in src.cells if c.cell_type == "code"]
        assert nb.metadata["kernelspec"]["name"] == "python3"
        # citations written out as on the page (JupyterLab has no bibliography)
        prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert "{cite" not in prose, f"{docname}: a citation role left in the notebook"
        if "{cite" in (ROOT / f"{docname}.md").read_text():
            assert re.search(r"\([A-Z][^()]*, \d{4}\)", prose), f"{docname}: no (author, year)"
        page = (html / f"{docname}.html").read_text(encoding="utf-8")
        # Every figure a code cell declares was drawn and carries its label.
        declared = re.findall(r"^\s*name:\s*(fig-[\w-]+)", (ROOT / f"{docname}.md").read_text(),
                              flags=re.MULTILINE)
        for label in declared:
            assert f'id="{label}"' in page, f"{docname}: figure {label} missing"
        name = Path(docname).name
        assert f"_sources/{docname}.ipynb" in page and f'download="{name}.ipynb"' in page


def test_every_figure_has_a_caption_and_labelled_axes(built_book):
    """Each drawn figure sits in a captioned figure and labels all of its axes."""
    html, _, returncode = built_book
    assert returncode == 0, "the book did not build"
    images = 0
    for docname in toc_files():
        page = (html / f"{docname}.html").read_text(encoding="utf-8")
        figures = re.findall(r"<figure\b.*?</figure>", page, flags=re.S)
        outside = re.sub(r"<figure\b.*?</figure>", "", page, flags=re.S)
        assert "_images/" not in outside, f"{docname}: an image outside a captioned figure"
        for figure in figures:
            caption = re.search(r"<figcaption>(.*?)</figcaption>", figure, flags=re.S)
            text = re.sub(r"<[^>]+>|Fig\. \d+", "", caption.group(1)).strip() if caption else ""
            assert text, f"{docname}: a figure without a caption"
            images += len(re.findall(r"<img\b", figure))
    audit = [json.loads(line) for line in
             (html.parents[1] / "figure_audit.jsonl").read_text().splitlines()]
    # Every chapter figure went through the audit when it was rendered.
    assert images > 0 and len(audit) >= images, (images, len(audit))
    unlabelled = [m for a in audit for m in a["missing"]]
    assert not unlabelled, "figures with unlabelled axes:\n" + "\n".join(unlabelled)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A browser closing a connection early is not an error of the site.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="module")
def site(slow, built_book):
    """Serve the built site on 127.0.0.1; yield its base URL."""
    html = built_book[0]
    handler = functools.partial(_QuietHandler, directory=str(html))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", html
    finally:
        server.shutdown()
        server.server_close()


def _status(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


# ---------------------------------------------------------------------------
# Layout: code, figures, tables and maths on a laptop and on a phone
# ---------------------------------------------------------------------------

MAX_CODE_LINE = 88
# A figure may be scaled down to three quarters of the size it is drawn at,
# and its smallest text, in pixels of the saved image, must stay readable
# after that: 11 px drawn, so at least 8 px shown.
MIN_FIGURE_SCALE = 0.75
MIN_FIGURE_TEXT_PX = 11

LAYOUT_REPORT = """() => {
  const overflows = el => el.scrollWidth > el.clientWidth + 1;
  return {
    images: [...document.querySelectorAll('article img')].map(img => ({
      figure: (img.closest('figure') || {}).id || img.src.split('/').pop(),
      natural: img.naturalWidth,
      shown: img.getBoundingClientRect().width,
      alt: img.getAttribute('alt') || '',
    })),
    code: [...document.querySelectorAll('div.cell_input pre, div.highlight pre')]
      .filter(overflows).map(pre => pre.textContent.split('\\n')[0].slice(0, 60)),
    // A display whose typeset formula is wider than its box.
    maths: [...document.querySelectorAll('mjx-container[display="true"]')]
      .filter(m => {
        const formula = m.querySelector('mjx-math');
        const box = m.closest('div.math') || m.parentElement;
        return formula && formula.getBoundingClientRect().width > box.clientWidth + 1;
      })
      .map(m => (m.closest('div.math') || {}).id || m.textContent.slice(0, 60)),
    pageWidth: document.documentElement.scrollWidth,
  };
}"""


def _chromium(p):
    return p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


# ---------------------------------------------------------------------------
# Every page of the site, loaded once on each screen and measured
# ---------------------------------------------------------------------------

# Each browser test below asserts on what one fixture, site_pages, measured:
# every page opened once at 1366 px and once at 390 px (as a phone lays it
# out), its maths typeset, every report read, then the few changes some tests
# need (showing a button, scrolling tables, planting margin notes) made after
# the reports they could disturb.  Tests that click, tap or sabotage a page
# open their own.

SCREENS = {"laptop": {"viewport": LAPTOP},
           "phone": {"viewport": PHONE, "is_mobile": True}}

# What a reader would see wrong on a page: maths not typeset, TeX left in the
# text, images not loaded; and the links of its navigation.
RENDER_REPORT = """(rawTexPattern) => ({
  maths: [...document.querySelectorAll('div.math, span.math')]
    .filter(el => !el.querySelector('mjx-container'))
    .map(el => el.textContent.slice(0, 80)),
  mathErrors: [...document.querySelectorAll('mjx-merror')]
    .map(el => el.getAttribute('data-mjx-error') || el.textContent),
  displayCount: document.querySelectorAll('div.math').length,
  // TeX that never reached MathJax: delimiters or commands left
  // in the visible text outside maths and code.
  rawTex: (() => {
    const skip = 'mjx-container, .math, pre, code, script, style, '
      + '.highlight, .cell_output';
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent;
      if (new RegExp(rawTexPattern).test(text)
          && !n.parentElement.closest(skip)) {
        found.push(text.trim().slice(0, 80));
      }
    }
    return found;
  })(),
  images: [...document.images]
    .filter(img => !(img.complete && img.naturalWidth > 0))
    .map(img => img.src),
  nav: [...document.querySelectorAll(
      '.bd-sidebar-primary a[href], .bd-sidebar-secondary a[href], '
      + '.prev-next-area a[href], a.download[href], .bd-header a[href]')]
    .map(a => a.href),
  title: document.title,
})"""

# Where each figure image stands on the screen, and whether a box between it
# and its figure, narrower than the image, cuts it (and scrolls).
FIGURE_REPORT = """() => [...document.querySelectorAll('article img')].map(img => {
  const box = img.getBoundingClientRect();
  const figure = (img.closest('figure') || {}).id;
  let cut = false;
  for (let el = img.parentElement; el && el.tagName !== 'ARTICLE';
       el = el.parentElement) {
    cut = cut || el.scrollWidth > el.clientWidth + 1;
    if (el.tagName === 'FIGURE') break;
  }
  return {figure: figure || img.src.slice(-40),
          natural: img.naturalWidth, shown: box.width,
          left: box.left, right: box.right, cut};
})"""

COUNT_REPORT = """() => {
  const count = selector => document.querySelectorAll(selector).length;
  return {
    equationNumbers: count('article div.math span.eqno'),
    phoneFigures: count('article figure picture img'),
    displays: count('mjx-container[display="true"]'),
    equations: count('mjx-container'),
    spokenEquations: count('mjx-container mjx-assistive-mml math'),
  };
}"""


def site_page_names():
    """The pages the browser tests open: home, every chapter, index and search."""
    return ["index", *toc_files(), "genindex", "search"]


def _open(context, url, problems=None):
    """Open url, refusing every other host, and wait until its maths is typeset.

    Console errors, failed requests and requests to other hosts are appended
    to ``problems``, when given, as they happen."""
    page = context.new_page()
    problems = [] if problems is None else problems

    def route(r):
        if urllib.parse.urlparse(r.request.url).hostname == "127.0.0.1":
            r.continue_()
        else:
            problems.append("request to another host: " + r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: m.type == "error" and problems.append(
        "console error: " + m.text))
    page.on("pageerror", lambda exc: problems.append("console error: " + str(exc)))
    page.on("requestfailed", lambda r: problems.append("failed request: " + r.url))
    page.on("response", lambda r: r.status >= 400 and problems.append(
        f"failed request: {r.status} {r.url}"))
    page.goto(url, wait_until="networkidle")
    if page.evaluate("() => !!(window.MathJax && window.MathJax.startup)"):
        page.wait_for_function("() => window.MathJax.startup.promise !== undefined",
                               timeout=20000)
        page.evaluate("() => window.MathJax.startup.promise")
    return page


def _measure(page, problems, screen, docname, shots):
    """Every measurement the browser tests make of one loaded page, as plain data."""
    found = {
        "render": page.evaluate(RENDER_REPORT, RAW_TEX),
        "layout": page.evaluate(LAYOUT_REPORT),
        "equations": page.evaluate(PHONE_REPORT),
        "figures": page.evaluate(FIGURE_REPORT),
        "tables": page.evaluate(TABLE_REPORT),
        "page_width": page.evaluate("() => document.documentElement.scrollWidth"),
        "counts": page.evaluate(COUNT_REPORT),
        "boxes": page.evaluate(BOX_REPORT),
    }
    found["problems"] = list(problems)
    # From here on each step changes the page, after every report it could change.
    # The theme's "Back to top" button shows once the reader scrolls down and
    # back up: show it, so that axe checks it too.
    page.evaluate("() => { const b = document.getElementById('pst-back-to-top');"
                  " if (b) b.style.display = 'block'; }")
    found["axe"] = axe_violations(page)
    if screen == "laptop":
        # a whole long chapter, drawn by a busy machine, took more than the
        # default 30 s: the screenshot is evidence, not a test of speed
        page.screenshot(path=str(shots / f"{docname.replace('/', '__')}.png"), full_page=True,
                        timeout=180_000)
    if screen == "phone":
        page.evaluate(SCROLL_TABLES_RIGHT)
        found["tables_scrolled"] = page.evaluate(TABLE_REPORT)
        if docname == "book/assignments":
            found["downloads"] = _download_links_on_screen(page)
        if docname.startswith("book/chapters/"):
            found["planted"] = page.evaluate(PLANT_MARGIN_NOTES)
            page.wait_for_timeout(100)
            found["boxes_beside_notes"] = page.evaluate(BOX_REPORT)
    return found


def _download_links_on_screen(page):
    """With its tables scrolled back to the start, each notebook link of the
    page scrolled into view: is it visible, and where is its box?"""
    links = page.locator("article table a[href$='.ipynb']")
    page.evaluate("() => document.querySelectorAll('article table')"
                  ".forEach(t => { t.scrollLeft = 0; })")
    shown = []
    for k in range(links.count()):
        link = links.nth(k)
        link.scroll_into_view_if_needed()
        shown.append({"visible": link.is_visible(), "box": link.bounding_box()})
    return shown


#: Browsers that measure pages at once in site_pages (axe-core keeps one busy).
PAGE_BROWSERS = 2


def _measure_pages(base, shots, tasks, measured, errors):
    """Take (screen, docname) pairs off ``tasks`` until none is left, measuring
    each page in this thread's own browser into ``measured[screen][docname]``."""
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as p:
            browser = _chromium(p)
            contexts = {}
            while True:
                try:
                    screen, docname = tasks.get_nowait()
                except queue.Empty:
                    break
                if screen not in contexts:
                    contexts[screen] = browser.new_context(**SCREENS[screen])
                problems = []
                page = _open(contexts[screen], urllib.parse.urljoin(base, f"{docname}.html"),
                             problems)
                measured[screen][docname] = _measure(page, problems, screen, docname, shots)
                page.close()
            for context in contexts.values():
                context.close()
            browser.close()
    except BaseException as exc:  # re-raised by site_pages, in the test's thread
        errors.append(exc)


@pytest.fixture(scope="module")
def site_pages(site):
    """Every page measured on each screen: {screen: {docname: measurements}}.

    :data:`PAGE_BROWSERS` browsers, each in a thread of its own (Playwright's
    objects belong to the thread that made them), share the pages between
    them, so that the machine's cores run axe-core on two pages at once; every
    page is still opened in a fresh tab of a context with its screen's size.
    The laptop's full-page screenshots go to the site's _screenshots/."""
    require_chromium()
    base, html = site
    shots = html / "_screenshots"
    shots.mkdir(exist_ok=True)
    measured = {screen: {} for screen in SCREENS}
    tasks = queue.Queue()
    for screen in SCREENS:
        for docname in site_page_names():
            tasks.put((screen, docname))
    errors = []
    # daemons: a test stopped by its timeout does not keep pytest from ending
    threads = [threading.Thread(target=_measure_pages, daemon=True,
                                args=(base, shots, tasks, measured, errors))
               for _ in range(PAGE_BROWSERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    assert all(set(measured[s]) == set(site_page_names()) for s in SCREENS), measured.keys()
    return measured


@pytest.mark.timeout(1800)
def test_pages_render_in_chromium(site, site_pages):
    """Every page loads offline with rendered maths, figures and working links."""
    _, html = site
    shots = html / "_screenshots"
    pages = ["index"] + toc_files()
    links_seen = set()
    failures = []
    for docname in pages:
        found = site_pages["laptop"][docname]
        report = found["render"]
        where = f"{docname}: "
        failures += [where + p for p in found["problems"]]
        failures += [where + "maths not rendered: " + m for m in report["maths"]]
        failures += [where + "MathJax error: " + m for m in report["mathErrors"]]
        failures += [where + "raw TeX in the text: " + t for t in report["rawTex"]]
        failures += [where + "image not loaded: " + s for s in report["images"]]
        if docname != "index" and is_notebook(docname) and report["displayCount"] == 0:
            failures.append(where + "no display equation found (page or selector broken)")
        for href in report["nav"]:
            parsed = urllib.parse.urlparse(href)
            if parsed.scheme in ("http", "https") and parsed.hostname == "127.0.0.1":
                links_seen.add(parsed._replace(fragment="").geturl())
            elif parsed.scheme in ("http", "https"):
                failures.append(where + "navigation link leaves the site: " + href)

    for link in sorted(links_seen):
        if link.endswith("/" + PDF_NAME) and not tex_available():
            continue  # no TeX Live here: the PDF is not built (its own test says so)
        status = _status(link)
        if status != 200:
            failures.append(f"navigation link {link} returned HTTP {status}")
    assert not failures, "\n".join(failures[:60])
    # Each chapter page must have been visited and screenshotted.
    assert all((shots / f"{d.replace('/', '__')}.png").stat().st_size > 0 for d in pages)
    # The links found include every page of the table of contents.
    reached = {urllib.parse.urlparse(u).path for u in links_seen}
    missing = [d for d in toc_files() if f"/{d}.html" not in reached]
    assert not missing, f"pages not reachable from the navigation: {missing}"


def test_code_cells_fit_the_column():
    """No line of a chapter's code cells, nor of a code block on any page, is
    longer than 88 characters."""
    long_lines = []
    for docname in toc_files():
        text = (ROOT / f"{docname}.md").read_text(encoding="utf-8")
        # Plain code blocks (```bash, ```python); directives such as
        # {code-cell} or {prf:proof} start with a brace.
        blocks = [token.content for token in MarkdownIt("commonmark").parse(text)
                  if token.type == "fence" and not token.info.startswith("{")]
        if is_notebook(docname):
            nb = jupytext.read(ROOT / f"{docname}.md", fmt="md:myst")
            blocks += [cell.source for cell in nb.cells if cell.cell_type == "code"]
        for source in blocks:
            long_lines += [f"{docname}: {len(line)} chars: {line[:60]}"
                           for line in source.splitlines() if len(line) > MAX_CODE_LINE]
    assert not long_lines, "code lines too long:\n" + "\n".join(long_lines)


def test_outputs_print_numbers_and_figures_have_readable_text(built_book):
    """NumPy scalars print as numbers; every figure's smallest text is readable."""
    html, _, returncode = built_book
    assert returncode == 0, "the book did not build"
    for docname in toc_files():
        page = (html / f"{docname}.html").read_text(encoding="utf-8")
        for repr_ in ("np.float64(", "np.int64(", "np.True_", "np.False_"):
            assert repr_ not in page, f"{docname}: an output prints {repr_}...)"
    audit = [json.loads(line) for line in
             (html.parents[1] / "figure_audit.jsonl").read_text().splitlines()]
    sizes = [a["smallest_text_px"] for a in audit if a["smallest_text_px"] is not None]
    assert len(sizes) == len(audit) > 0
    small = [round(s, 1) for s in sizes if s < MIN_FIGURE_TEXT_PX]
    assert not small, f"figures whose smallest text is under {MIN_FIGURE_TEXT_PX} px: {small}"


@pytest.mark.timeout(1800)
def test_layout_on_a_laptop_and_a_phone(site_pages):
    """Figures, code, maths and tables fit a 1366 px laptop and a 390 px phone.

    On both screens every figure image is shown at no less than three quarters
    of its drawn size and has alternative text.  On the laptop no code block
    scrolls sideways.  On the phone nothing widens the page: wide figures,
    tables and equations scroll inside their own boxes.
    """
    failures = []
    figures_seen = 0
    for name in ("laptop", "phone"):
        for docname in toc_files():
            report = site_pages[name][docname]["layout"]
            where = f"{name} {docname}: "
            for img in report["images"]:
                figures_seen += 1
                scale = img["shown"] / img["natural"] if img["natural"] else 0
                if scale < MIN_FIGURE_SCALE:
                    failures.append(where + f"figure {img['figure']} shown at "
                                    f"{scale:.0%} of its {img['natural']} px")
                alt = img["alt"].strip()
                if len(alt) < 20 or re.search(r"\.(png|jpe?g|svg)$", alt):
                    failures.append(where + f"figure {img['figure']} has no alt text")
            # (the screen's width, not the window's: a phone widens its
            # window to a page wider than the screen)
            screen = SCREENS[name]["viewport"]["width"]
            if report["pageWidth"] > screen:
                failures.append(where + f"page is {report['pageWidth']} px wide "
                                f"in a {screen} px window")
            if name == "laptop":
                failures += [where + "code scrolls sideways: " + c for c in report["code"]]
    assert figures_seen > 0, "no figure found on any page"
    assert not failures, "\n".join(failures[:80])


# At most this many display equations on one page may scroll sideways at 390 px.
MAX_SCROLLING_EQUATIONS = 3

PHONE_REPORT = """() => {
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const side = (a, b) => Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const name = m => m.id || m.textContent.trim().slice(0, 40);
  const numbers = [];
  for (const m of document.querySelectorAll('article div.math')) {
    const number = m.querySelector('span.eqno');
    const shown = m.querySelector('mjx-container[display="true"]');
    if (!number || !shown) continue;
    const n = number.getBoundingClientRect(), s = shown.getBoundingClientRect();
    const cut = shown.scrollWidth > shown.clientWidth + 1;
    // The number may not cover the formula, nor stand beside one that is cut.
    if (overlap(n, s) || (cut && side(n, s))) numbers.push(name(m));
  }
  return {
    numbers,
    // Equations wider than their box, which scrolls sideways.
    scrolling: [...document.querySelectorAll('mjx-container[display="true"]')]
      .filter(m => m.scrollWidth > m.clientWidth + 1)
      .map(m => name(m.closest('div.math') || m)),
    screen: window.innerWidth,
  };
}"""


@pytest.mark.timeout(1800)
def test_figures_and_equations_fit_a_phone(site_pages):
    """At 390 px no figure image is wider than the screen: each is shown
    whole, inside the screen, at no less than MIN_FIGURE_SCALE of its drawn
    size (figures wider than a phone come as a <picture> with a drawing for
    it); no equation number covers its equation or stands beside one cut
    off at the screen edge, and at most MAX_SCROLLING_EQUATIONS display
    equations per page scroll sideways."""
    failures, stacked, numbered, figures = [], 0, 0, 0
    for docname in toc_files():
        found = site_pages["phone"][docname]
        report, images = found["equations"], found["figures"]
        numbered += found["counts"]["equationNumbers"]
        stacked += found["counts"]["phoneFigures"]
        figures += len(images)
        for img in images:
            where = f"{docname}: figure {img['figure']}"
            if img["natural"] == 0:
                failures.append(f"{where} shows no image")
                continue
            if img["right"] > PHONE["width"] + 0.5 or img["left"] < -0.5:
                failures.append(f"{where} reaches past the screen "
                                f"({img['left']:.0f} to {img['right']:.0f} px)")
            if img["cut"]:
                failures.append(f"{where} is wider than its box, which scrolls")
            if img["shown"] < MIN_FIGURE_SCALE * img["natural"]:
                failures.append(f"{where} is shown at {img['shown']:.0f} px of "
                                f"its {img['natural']} px")
        failures += [f"{docname}: the number of equation {m} covers it or stands "
                     "beside its cut" for m in report["numbers"]]
        if len(report["scrolling"]) > MAX_SCROLLING_EQUATIONS:
            failures.append(f"{docname}: {len(report['scrolling'])} display equations "
                            "scroll sideways: " + "; ".join(report["scrolling"]))
    assert figures > 0, "no figure found on any page"
    assert stacked >= 3, "the figures are not drawn for a phone"
    assert numbered > 0, "no numbered equation found"
    assert not failures, "\n".join(failures)


TABLE_REPORT = """() => [...document.querySelectorAll('article table')].map(table => {
  // The box that scrolls: the table itself (book.css makes it a block) or a
  // wrapper the theme puts round it.
  let box = table;
  while (box.parentElement && box.parentElement.tagName !== 'ARTICLE'
         && getComputedStyle(box).overflowX === 'visible') {
    box = box.parentElement;
  }
  const rect = box.getBoundingClientRect();
  // The signs that it scrolls (book/_static/a11y.js and book.css): a line
  // saying so above it and a shadow on the side where more columns wait.
  const frame = table.closest('.scroll-frame');
  const hint = frame && frame.querySelector(':scope > .scroll-hint');
  const shadow = side => frame
    && getComputedStyle(frame, side).content !== 'none'
    && getComputedStyle(frame, side).backgroundImage.includes('gradient');
  return {
    text: table.textContent.trim().slice(0, 50),
    wide: table.scrollWidth > rect.width + 1,
    scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
    right: rect.right,
    hint: !!hint && hint.getBoundingClientRect().height > 0
      && /scroll/.test(hint.textContent) ? hint.textContent : '',
    right_shadow: shadow('::after'),
    left_shadow: shadow('::before'),
  };
})"""

# Scroll every table of the page to its right end.
SCROLL_TABLES_RIGHT = """() => document.querySelectorAll('article table').forEach(
  t => { t.scrollLeft = t.scrollWidth; t.dispatchEvent(new Event('scroll')); })"""


@pytest.mark.timeout(1800)
def test_wide_tables_scroll_inside_their_box_on_a_phone(site_pages):
    """At 390 px a table wider than the column scrolls sideways in its own
    box, which stays inside the screen, instead of widening the page; a line
    above it says that it scrolls, and a shadow marks the side where more
    columns wait (at the right, then, once scrolled to the end, at the left
    only).  On the Assignments page every download link is on the screen
    without scrolling the table."""
    failures, wide = [], 0
    for docname in toc_files():
        found = site_pages["phone"][docname]
        for table, end in zip(found["tables"], found["tables_scrolled"]):
            where = f"{docname}: table {table['text']!r}"
            if table["right"] > PHONE["width"] + 1:
                failures.append(f"{where} reaches {table['right']:.0f} px")
            if table["wide"]:
                wide += 1
                if not table["scrolls"]:
                    failures.append(f"{where} is wider than its box and does not scroll")
                if not table["hint"]:
                    failures.append(f"{where} scrolls and no line says so")
                if not table["right_shadow"] or table["left_shadow"]:
                    failures.append(f"{where}: no shadow at the right edge only")
                if end["right_shadow"] or not end["left_shadow"]:
                    failures.append(f"{where}: scrolled to its end, no shadow at "
                                    "the left edge only")
            elif table["hint"] or table["right_shadow"]:
                failures.append(f"{where} fits and yet says it scrolls")
        if found["page_width"] > PHONE["width"]:
            failures.append(f"{docname}: page is {found['page_width']} px wide")
    downloads = site_pages["phone"]["book/assignments"]["downloads"]
    for k, link in enumerate(downloads):
        box = link["box"]
        if not link["visible"] or box["x"] < 0 or box["x"] + box["width"] > PHONE["width"]:
            failures.append(f"book/assignments: download link {k + 1} is off the "
                            f"screen ({box})")
    # The book has tables wider than a phone (the notation table, the list
    # of assignments), so the scrolling is exercised.
    assert wide > 0, "no table is wider than the phone's column"
    assert len(downloads) == 5, f"{len(downloads)} notebook links on the Assignments page"
    assert not failures, "\n".join(failures)


@pytest.mark.timeout(1800)
def test_no_display_equation_overflows_on_a_laptop(site_pages):
    """At 1366 px every display equation fits its box (on a phone a wide one
    may scroll inside its box; the layout test checks the page stays put)."""
    wide, displays = [], 0
    for docname in toc_files():
        found = site_pages["laptop"][docname]
        displays += found["counts"]["displays"]
        wide += [f"{docname}: {m}" for m in found["layout"]["maths"]]
    assert displays > 0, "no display equation found"
    assert not wide, "display equations wider than the column at 1366 px:\n" + "\n".join(wide)


# Boxes (results, proofs, exercises, admonitions) narrower than the column, and
# formulas (display or inline, outside tables, which scroll whole) that are
# cut off: wider than a box that hides the rest, wider than the screen with no
# box that scrolls, or in a box that scrolls without the sign that it does
# (a11y.js's class scrolls-sideways, with its edge shadow, and a tab stop).
BOX_REPORT = """() => {
  const boxes = 'div.proof, div.admonition, div.exercise, div.solution';
  const narrow = [];
  const notes = [...document.querySelectorAll('article aside')]
    .map(n => n.getBoundingClientRect());
  for (const box of document.querySelectorAll(
      `article :is(${boxes})`)) {
    if (box.parentElement.closest(`:is(${boxes}), aside, table`)) continue;
    const parent = box.parentElement, ps = getComputedStyle(parent);
    const column = parent.clientWidth - parseFloat(ps.paddingLeft)
      - parseFloat(ps.paddingRight);
    // (its computed margins are no guide: beside a float Chromium reports
    // the room the float takes as margin)
    const used = box.getBoundingClientRect().width;
    // ... or with a margin note floating over part of it
    const b = box.getBoundingClientRect();
    const beside = notes.some(n => Math.min(n.right, b.right) - Math.max(n.left, b.left) > 1
      && Math.min(n.bottom, b.bottom) - Math.max(n.top, b.top) > 1);
    if (used < column - 2 || beside) {
      const title = box.querySelector('.admonition-title');
      narrow.push(`${(title || box).textContent.trim().slice(0, 50)} `
        + (beside ? '(beside a margin note)'
           : `(${Math.round(used)} of ${Math.round(column)} px)`));
    }
  }
  const cut = [], scrolling = [];
  let formulas = 0;
  for (const m of document.querySelectorAll('article mjx-container')) {
    if (m.closest('table, mjx-assistive-mml')) continue;
    const math = m.querySelector('mjx-math');
    if (!math) continue;
    formulas += 1;
    const r = math.getBoundingClientRect();
    const name = (m.closest('div.math') || {}).id
      || (m.querySelector('mjx-assistive-mml') || m).textContent.trim().slice(0, 50);
    let verdict = r.right > window.innerWidth + 1 || r.left < -1 ? 'past the screen' : null;
    for (let el = m; el && el.tagName !== 'ARTICLE'; el = el.parentElement) {
      const e = el.getBoundingClientRect();
      if (r.right <= e.right + 1 && r.left >= e.left - 1) continue;
      const overflow = getComputedStyle(el).overflowX;
      if (overflow === 'visible') continue;
      if (['auto', 'scroll'].includes(overflow) && el.classList.contains('scrolls-sideways')
          && el.getAttribute('tabindex') === '0') {
        verdict = 'scrolls';
      } else {
        verdict = `cut by ${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`;
      }
      break;
    }
    if (verdict === 'scrolls') scrolling.push(name);
    else if (verdict) cut.push(`${name}: ${verdict}`);
  }
  // TeX that MathJax could not typeset: an error, or an unknown command,
  // which it prints in red.
  const errors = [...document.querySelectorAll(
      'article mjx-merror, article mjx-assistive-mml mtext[mathcolor="red"]')]
    .map(e => (e.getAttribute('data-mjx-error') || e.textContent).slice(0, 60));
  return {narrow, cut, scrolling, formulas, errors};
}"""

# A margin note as the theme draws one, planted before every box and display
# equation of a page: below 992 px it floats right, 40 % wide.
PLANT_MARGIN_NOTES = """() => {
  const targets = document.querySelectorAll(
    'article :is(div.proof, div.admonition, div.exercise, div.math)');
  let planted = 0;
  for (const target of targets) {
    if (target.parentElement.closest('div.proof, div.admonition, div.exercise, aside')) continue;
    const aside = document.createElement('aside');
    aside.className = 'margin sidebar';
    aside.innerHTML = '<p class="sidebar-title">A note</p><p>Planted beside the box '
      + 'below, as a margin note of the chapter would stand.</p>';
    target.parentElement.insertBefore(aside, target);
    planted += 1;
  }
  window.dispatchEvent(new Event('resize'));
  return planted;
}"""


@pytest.mark.timeout(1800)
def test_boxes_and_formulas_are_whole_on_a_phone_and_a_laptop(site, site_pages):
    """At 390 px and at 1366 px every result, proof, exercise and admonition
    box takes the full width of its column, and every formula, displayed or
    inline, is typeset and shown whole or scrolls in a box that shows it does
    (an edge shadow and a tab stop); none is cut off.  At 390 px the same holds with
    a margin note planted before every box and display equation (the theme
    floats it beside the text there).  The check sees the boxes squeezed
    beside the notes when the book's rule that clears them is switched off,
    and formulas cut off when the wide inline ones are not made boxes of
    their own or when the scrolling boxes lose the shadow that shows it."""
    failures, boxes_planted, formulas = [], 0, 0
    for name in ("laptop", "phone"):
        for docname in toc_files():
            found = site_pages[name][docname]
            reports = [("", found["boxes"])]
            if name == "phone" and docname.startswith("book/chapters/"):
                boxes_planted += found["planted"]
                reports.append((" beside a margin note", found["boxes_beside_notes"]))
            formulas += found["boxes"]["formulas"]
            for beside, report in reports:
                where = f"{name} {docname}{beside}: "
                failures += [where + "box narrower than its column: " + b
                             for b in report["narrow"]]
                failures += [where + "formula cut off: " + c for c in report["cut"]]
                failures += [where + "formula not typeset: " + e for e in report["errors"]]
    # The check can fail: without the rule that clears margin notes, the
    # boxes beside the planted notes are squeezed.  (Each sabotage breaks the
    # page, so it gets a page of its own.)
    from playwright.sync_api import sync_playwright

    base, _ = site
    with sync_playwright() as p:
        browser = _chromium(p)
        context = browser.new_context(viewport=PHONE, is_mobile=True)
        page = _open(context, urllib.parse.urljoin(base, "book/chapters/rkhs.html"))
        page.add_style_tag(content="article :is(div.proof, div.admonition, div.exercise, "
                                   "div.math) { clear: none !important; }")
        page.evaluate(PLANT_MARGIN_NOTES)
        page.wait_for_timeout(100)
        squeezed = page.evaluate(BOX_REPORT)
        page.close()
        # ... and it sees formulas cut off when an inline one too wide for
        # its line is not made a box of its own, or when a box that scrolls
        # does not show it (book/_static/a11y.js).
        cut = []
        for sabotage in ("() => { const s = document.createElement('style'); s.textContent ="
                         " 'article mjx-container.wide-inline { display: inline !important;"
                         " overflow: visible !important; }'; document.head.appendChild(s); }",
                         "() => document.querySelectorAll('.scrolls-sideways')"
                         ".forEach(e => e.classList.remove('scrolls-sideways'))"):
            page = _open(context, urllib.parse.urljoin(base, "book/chapters/rkhs.html"))
            page.evaluate(sabotage)
            cut.append(len(page.evaluate(BOX_REPORT)["cut"]))
            page.close()
        context.close()
        browser.close()
    assert formulas > 500 and boxes_planted > 50, (formulas, boxes_planted)
    assert len(squeezed["narrow"]) > 10, squeezed
    assert min(cut) > 3, cut
    assert not failures, "\n".join(failures[:80])


@pytest.mark.timeout(300)
def test_menu_and_contents_buttons_work_on_a_phone(site):
    """At 390 px the menu button opens the book's navigation, the contents
    button the page's table of contents, and each closes again."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    base, _ = site
    with sync_playwright() as p:
        browser = _chromium(p)
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        page = _open(context, urllib.parse.urljoin(base, "book/chapters/svm.html"))
        for button, dialog, content in (
            (".primary-toggle", "#pst-primary-sidebar-modal", "a[href$='kernel_trick.html']"),
            (".secondary-toggle", "#pst-secondary-sidebar-modal", "#pst-page-toc-nav a[href^='#']"),
        ):
            visible = page.locator(f"{button}:visible")
            assert visible.count() == 1, f"{button}: {visible.count()} visible buttons"
            assert not page.locator(dialog).evaluate("d => d.open")
            visible.tap()
            page.wait_for_function(f"() => document.querySelector('{dialog}').open",
                                   timeout=5000)
            links = page.locator(f"{dialog} {content}")
            assert links.count() > 0 and links.first.is_visible(), f"{dialog} is empty"
            box = page.locator(dialog).bounding_box()
            assert box and box["width"] > 200 and box["height"] > 300, box
            page.keyboard.press("Escape")
            page.wait_for_function(f"() => !document.querySelector('{dialog}').open",
                                   timeout=5000)
        page.close()
        browser.close()




@pytest.mark.timeout(1800)
def test_every_page_meets_wcag_21_aa_on_a_laptop_and_a_phone(site_pages):
    """axe-core finds no serious or critical WCAG 2.1 AA violation on any page
    at 1366 px and at 390 px, and every equation carries MathML for screen
    readers (MathJax's assistive MathML, read instead of the drawn glyphs)."""
    pages = toc_files() + ["genindex", "search"]
    failures, equations = [], 0
    for name in ("laptop", "phone"):
        for docname in pages:
            found = site_pages[name][docname]
            path = f"{docname}.html"
            failures += [f"{name} {path}: {v}" for v in found["axe"]]
            drawn = found["counts"]["equations"]
            spoken = found["counts"]["spokenEquations"]
            if drawn != spoken:
                failures.append(f"{name} {path}: {drawn - spoken} of {drawn} equations "
                                "have no assistive MathML")
            equations += drawn
    assert equations > 0, "no equation found on any page"
    assert not failures, "\n".join(failures)


@pytest.mark.timeout(300)
def test_menus_and_scrolling_boxes_work_from_the_keyboard_on_a_phone(site):
    """At 390 px, Tab reaches the menu button and Enter opens the navigation;
    a figure wider than the screen takes the focus and the arrow keys scroll it."""
    if not Path(CHROMIUM).exists():
        _require(False, f"Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    base, _ = site
    with sync_playwright() as p:
        browser = _chromium(p)
        context = browser.new_context(viewport=PHONE)
        page = _open(context, urllib.parse.urljoin(base, "book/chapters/kernel_trick.html"))
        for _ in range(40):
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.matches('.primary-toggle')"):
                break
        else:
            pytest.fail("Tab never reached the menu button")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => document.querySelector('#pst-primary-sidebar-modal').open", timeout=5000)
        page.keyboard.press("Escape")
        page.wait_for_function(
            "() => !document.querySelector('#pst-primary-sidebar-modal').open", timeout=5000)
        boxes = page.locator(".scrolls-sideways[tabindex='0']")
        assert boxes.count() > 0, "no box scrolls sideways at 390 px"
        box = boxes.first
        box.focus()
        assert box.evaluate("b => b === document.activeElement")
        before = box.evaluate("b => b.scrollLeft")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("b => b.scrollLeft > 0", arg=box.element_handle(),
                               timeout=5000)
        assert box.evaluate("b => b.scrollLeft") > before
        browser.close()


def test_the_pdf_holds_the_whole_book_and_the_site_links_to_it(built_book):
    """The PDF built with the LaTeX builder has every chapter, in order, and
    every page of the site links to it."""
    _require(tex_available(), "TeX Live (latexmk, xelatex)")
    _require(shutil.which("pdftotext") and shutil.which("pdfinfo"), "poppler-utils")
    html, log, returncode = built_book
    assert returncode == 0, f"the book or its PDF did not build:\n{log[-4000:]}"
    pdf = html / PDF_NAME
    assert pdf.is_file() and pdf.read_bytes()[:5] == b"%PDF-"
    # Every cross-reference resolved in the last LaTeX run (an unresolved one
    # prints as "??" or links nowhere).  TeX wraps its log at 79 columns.
    latex_log = (html.parent / "latex" / PDF_NAME).with_suffix(".log")
    joined = latex_log.read_text(encoding="utf-8", errors="replace").replace("\n", "")
    unresolved = re.findall(r"(?:[Rr]eference|Citation) `([^']+)' on page \d+ undefined", joined)
    assert not unresolved, f"unresolved references in the PDF: {sorted(set(unresolved))}"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    pages = int(re.search(r"^Pages:\s+(\d+)", info.stdout, flags=re.M).group(1))
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    # Sphinx sets a straight apostrophe as a typographic one ("Instructor’s").
    text = text.replace("\u2019", "'")
    titles = []
    for docname in toc_files():
        first_heading = re.search(r"^# (.+)$", (ROOT / f"{docname}.md").read_text(),
                                  flags=re.M)
        titles.append(first_heading.group(1).strip())
    # The title page carries the root page's title; the contents list every
    # other page as a chapter, in the order of the table of contents, numbered
    # as on the website: the pages of the numbered part 1, 2, ..., the others
    # without a number; and each chapter's title is also in the body.
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbered = [re.sub(r"\.md$", "", c["file"]) for part in toc["parts"]
                if part.get("numbered") for c in part["chapters"]]
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    assert lines[0] == titles[0], lines[:3]
    flat = " ".join(text.split())
    contents = iter(lines)
    for docname, title in zip(toc_files()[1:], titles[1:]):
        if docname in numbered:
            entry = f"{numbered.index(docname) + 1} {title}"
        else:
            entry = title
        # the next contents line with this entry, after the previous one
        assert any(line.startswith(entry) for line in contents), f"contents lack {entry!r}"
        assert flat.count(title) >= 2, f"chapter {title!r} only in the contents"
    # and the last page is listed once (LaTeX's bibliography adds an entry of its own)
    assert not next(contents, "").startswith(titles[-1]), f"{titles[-1]!r} twice in the contents"
    # Theorems, definitions and the like carry the numbers they have on the
    # website (Theorem 3.1 is the same theorem in both).
    result = r"\b(?:Theorem|Proposition|Lemma|Corollary|Definition) \d+(?:\.\d+)+\b"
    on_site = set()
    for docname in toc_files():
        page = re.sub(r"<[^>]+>", " ", (html / f"{docname}.html").read_text(encoding="utf-8"))
        on_site |= set(re.findall(result, " ".join(page.split())))
    in_pdf = set(re.findall(result, flat))
    assert on_site and in_pdf == on_site, (sorted(in_pdf - on_site), sorted(on_site - in_pdf))
    # Much more than a title page: about a page per 60 lines of source.
    source_lines = sum(len((ROOT / f"{d}.md").read_text().splitlines()) for d in toc_files())
    assert pages >= source_lines / 120, (pages, source_lines)
    for docname in toc_files():
        page = (html / f"{docname}.html").read_text(encoding="utf-8")
        depth = docname.count("/")
        assert f'href="{"../" * depth}{PDF_NAME}"' in page, f"{docname} does not link the PDF"


def test_the_site_holds_no_solution_hidden_case_or_answer_key(built_book):
    """Everything under _build/html, archives unpacked and the PDF read, is
    free of the text of every solution region of the problem sets' sources
    and of the hidden-case generators (which hold ps1's rule for its verdicts:
    no answer key of verdicts exists to publish)."""
    _require(shutil.which("pdftotext"), "poppler-utils")
    from coursegrader.tools.leaks import course_secrets, find_leaks

    html, log, returncode = built_book
    assert returncode == 0, f"the book did not build:\n{log[-4000:]}"
    # what is scanned: the student wheel and every problem set, as notebook and zip
    assert len(list(html.rglob("kernel_methods_course-*.whl"))) == 1
    for ps in ("ps1", "ps2", "ps3", "ps4", "ps5"):
        assert list(html.rglob(f"{ps}.zip")) and list(html.rglob(f"{ps}.ipynb")), ps
    # what is looked for: every set's solutions, every generator
    secrets = course_secrets(ROOT / "assignments")
    origins = {s.origin for s in secrets}
    for ps in ("ps1", "ps2", "ps3", "ps4", "ps5"):
        assert {f"{ps} solution", f"hidden cases {ps}.py"} <= origins, ps
    leaks = find_leaks(html, secrets)
    assert not leaks, "\n".join(f"{x.place}: {x.secret.origin}: {x.secret.text[:80]}"
                                for x in leaks[:20])


def built_section_anchors(html: Path) -> list[str]:
    """What is wrong with the links feedback writes to the sections the problem
    sets' parts name, on the site built into ``html`` (empty: nothing)."""
    from coursecheck.parts import get_parts
    from coursegrader import book_sections

    site = html.resolve().as_uri() + "/"
    wrong = []
    for ps in sorted(p.stem for p in (ROOT / "assignments" / "problems").glob("ps*.py")):
        for label in sorted({x for part in get_parts(ps).values() for x in part.sections}):
            sec = book_sections.section(label)
            url = urllib.parse.urlsplit(book_sections.link(sec, site))
            page = Path(urllib.parse.unquote(url.path))
            if not page.is_file():
                wrong.append(f"{ps} {label}: no page {page}")
                continue
            # Sphinx writes the label as the id of an empty span just before the heading
            found = re.search(r'<span id="%s"></span>(?:<span id="[\w-]+"></span>)*<h[1-6]>'
                              r'<span class="section-number">([\d.]+) </span>(.*?)'
                              r'<a class="headerlink"' % re.escape(url.fragment),
                              page.read_text(encoding="utf-8"))
            if not found:
                wrong.append(f"{ps} {label}: no heading with the anchor #{url.fragment}")
                continue
            # the page types quotes and shows maths as \( \)
            title = re.sub(r"\$(.+?)\$", r"\\(\1\\)", sec.title)
            shown = re.sub(r"<[^>]+>", "", found.group(2))
            shown = shown.replace("\N{RIGHT SINGLE QUOTATION MARK}", "'")
            if found.group(1).split(".")[0] != str(sec.chapter) or shown != title:
                wrong.append(f"{ps} {label}: the page heads it {found.groups()}, the "
                             f"feedback says chapter {sec.chapter}, {sec.title!r}")
    return wrong


def test_every_section_a_part_names_is_an_anchor_of_its_built_page(built_book):
    """Feedback on a failed part links to ``<book_url>/<page>.html#<label>``: on
    the built site that page has a heading with that anchor, in the chapter and
    under the title the feedback names without an address."""
    html, log, returncode = built_book
    assert returncode == 0, f"the book did not build:\n{log[-4000:]}"
    assert built_section_anchors(html) == []


# ---------------------------------------------------------------------------
# The chapters as notebooks, as the site offers them for download
# ---------------------------------------------------------------------------

# The number a page gives each labelled result, exercise, equation and figure.
SITE_NUMBERS = (
    (re.compile(r'<div class="proof (\w+) admonition" id="([\w-]+)">\s*'
                r'(?:<span id="[\w-]+"></span>\s*)*<p class="admonition-title">'
                r'<span class="caption-number">\w+ ([\d.]+) </span>'), (2, 3)),
    (re.compile(r'<div class="exercise admonition" id="([\w-]+)">\s*'
                r'<p class="admonition-title"><span class="caption-number">'
                r'Exercise ([\d.]+) </span>'), (1, 2)),
    (re.compile(r'id="equation-([\w-]+)">\s*<span class="eqno">\(([\d.]+)\)'), (1, 2)),
)
# A numbered result or exercise, in a page and in a notebook.
SITE_NUMBERED = re.compile(r'<p class="admonition-title"><span class="caption-number">(?!Fig)')
ENUMERATOR = re.compile(r"^[ \t]*:enumerator:[ \t]*([\d.]+)[ \t]*$", re.M)


def site_numbers(page: str) -> dict[str, str]:
    """label -> number as the built page shows it."""
    found = {}
    for pattern, (label, number) in SITE_NUMBERS:
        found.update({m.group(label): m.group(number) for m in pattern.finditer(page)})
    return found


def notebook_numbers(notebook) -> dict[str, str]:
    """label -> :enumerator: of the directives of a downloaded chapter."""
    found = {}
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        for i, line in enumerate(lines):
            if not re.match(r"^[ \t]*(`{3,}|:{3,})\{", line):
                continue
            options = {}
            for option in lines[i + 1:]:
                match = re.match(r"^[ \t]*:([\w-]+):[ \t]*(.*)$", option)
                if not match:
                    break
                options[match.group(1)] = match.group(2).strip()
            if "label" in options and "enumerator" in options:
                found[options["label"]] = options["enumerator"]
    return found


def test_a_downloaded_chapter_numbers_as_the_site_does(built_book):
    """The notebook the site offers for each chapter gives every result,
    exercise and equation the number the page gives it (Proposition 1.1,
    (1.7)), numbers nothing the page does not (no proof, no unlabelled
    equation), writes a reference to another chapter as the page does, and
    has no margin note (JupyterLab draws one over the paragraph beside it)
    and no anchor of the instructors' pages."""
    html, log, returncode = built_book
    assert returncode == 0, f"the book did not build:\n{log[-4000:]}"
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import chapter_numbers
    finally:
        sys.path.remove(str(ROOT / "book" / "_ext"))
    failures, compared = [], 0
    for docname in chapter_numbers.toc_chapters(ROOT):
        page = (html / f"{docname}.html").read_text(encoding="utf-8")
        notebook = nbformat.read(html / "_sources" / f"{docname}.ipynb", as_version=4)
        markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        shown, given = site_numbers(page), notebook_numbers(notebook)
        compared += len(shown)
        failures += [f"{docname}: {label} is {number} on the site and "
                     f"{given.get(label)} in the notebook"
                     for label, number in shown.items() if given.get(label) != number]
        failures += [f"{docname}: {label} is numbered {number} in the notebook only"
                     for label, number in given.items() if label not in shown]
        # unlabelled results count too: as many numbers in one as in the other
        on_site = len(SITE_NUMBERED.findall(page)) + page.count('<span class="eqno">')
        in_notebook = len(ENUMERATOR.findall(markdown))
        if on_site != in_notebook:
            failures.append(f"{docname}: {on_site} numbers on the site, "
                            f"{in_notebook} in the notebook")
        if not markdown.startswith("---\nnumbering:\n  equation: false\n---"):
            failures.append(f"{docname}: the notebook numbers its unlabelled equations")
        proofs = len(re.findall(r"^[ \t]*(?:`{3,}|:{3,})\{prf:proof\}", markdown, re.M))
        unnumbered = len(re.findall(r"\{prf:proof\}[^\n]*\n(?:[ \t]*:[\w-]+:[^\n]*\n)*?"
                                    r"[ \t]*:nonumber:", markdown))
        if proofs != unnumbered:
            failures.append(f"{docname}: {proofs - unnumbered} proofs are numbered")
        for left in ("{margin}", "{sidebar}", "(errata-", "{numref}`", "{doc}`"):
            if left in markdown:
                failures.append(f"{docname}: the notebook has {left}")
        # a reference left as a role points into the notebook itself
        own = set(re.findall(r"^[ \t]*:label:[ \t]*([\w-]+)|^[ \t]*\(([\w-]+)\)=", markdown,
                             re.M))
        own = {x for pair in own for x in pair if x}
        failures += [f"{docname}: the notebook refers to {label}, which is not in it"
                     for label in re.findall(r"\{(?:prf:ref|eq|ref)\}`(?:[^`<]*<)?([\w-]+)>?`",
                                             markdown) if label not in own]
    assert compared > 100, f"only {compared} numbers found on the chapters' pages"
    assert not failures, "\n".join(failures[:60])


def _downloads_module():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import chapter_numbers
        import notebook_downloads
    finally:
        sys.path.remove(str(ROOT / "book" / "_ext"))
    return notebook_downloads, chapter_numbers


def _book_copy(tmp_path):
    """A copy of the book's sources that a test may change."""
    root = tmp_path / "book-copy"
    shutil.copytree(ROOT / "book", root / "book",
                    ignore=shutil.ignore_patterns("_generated", "_build", "__pycache__"))
    for name in ("_toc.yml", "_config.yml"):
        shutil.copy(ROOT / name, root / name)
    return root


def test_a_notebook_turns_margin_notes_into_notes_and_numbers_like_the_site(tmp_path):
    """Planted in a copy of a chapter, a margin note and a sidebar become
    notes in the downloaded notebook; a new definition before the first
    result shifts every later number by one, in the notebook as in the
    numbering the site's is checked against; a reference to it from another
    chapter is written out with its number."""
    downloads, chapter_numbers = _downloads_module()
    root = _book_copy(tmp_path)
    chapter = root / "book" / "chapters" / "kernel_trick.md"
    text = chapter.read_text(encoding="utf-8")
    before, _ = chapter_numbers.book_numbering(root)
    # the chapter's results (on the shared counter), numbered 1.1, 1.2, ...
    moved = [label for label, t in before.items() if t.doc == "book/chapters/kernel_trick"
             and t.kind not in ("section", "figure", "equation", "exercise")]
    assert "1.1" in {before[label].number for label in moved}
    opening = re.search(r"^```\{prf:", text, re.M).start()
    planted = ("```{margin} A planted note\nBeside the text on the website.\n```\n\n"
               "```{prf:definition} Planted\n:label: planted-def\nA planted definition.\n```\n\n")
    chapter.write_text(text[:opening] + planted + text[opening:], encoding="utf-8")
    svm = root / "book" / "chapters" / "svm.md"
    svm.write_text(svm.read_text(encoding="utf-8").replace(
        "\n## ", "\nAs in {prf:ref}`planted-def`, so here.\n\n## ", 1), encoding="utf-8")
    targets, _ = chapter_numbers.book_numbering(root)
    assert targets["planted-def"].number == "1.1"
    assert all(targets[label].number == f"1.{int(before[label].number[2:]) + 1}"
               for label in moved)
    numbering = chapter_numbers.book_numbering(root)
    downloads.write_notebook(chapter, tmp_path / "kt.ipynb", None, numbering, root)
    downloads.write_notebook(svm, tmp_path / "svm.ipynb", None, numbering, root)
    notebook = nbformat.read(tmp_path / "kt.ipynb", as_version=4)
    markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "```{margin}" not in markdown and "```{note} A planted note" in markdown
    assert notebook_numbers(notebook)["planted-def"] == "1.1"
    assert {label: number for label, number in notebook_numbers(notebook).items()
            if label in moved} == {label: targets[label].number for label in moved}
    other = nbformat.read(tmp_path / "svm.ipynb", as_version=4)
    assert "As in Definition 1.1, so here." in "\n".join(c.source for c in other.cells)


# ---------------------------------------------------------------------------
# The helpers the chapters draw and load data with
# ---------------------------------------------------------------------------

def test_decision_boundary_draws_the_zero_and_margin_levels():
    """decision_boundary puts f = 0 and f = +-1 where the score takes those values."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from kernlab import plotting

    X = np.array([[-1.0, 0.0], [2.0, 1.0], [0.0, -1.0], [1.0, 0.5]])
    y = np.array([-1, 1, -1, 1])
    score = lambda P: P[:, 0] - 0.5  # noqa: E731  boundary x1 = 0.5, margins at -0.5, 1.5
    fig, ax = plt.subplots()
    art = plotting.decision_boundary(ax, score, X, y, support=[1, 2], grid=101,
                                     extent=(-2, 3, -2, 2))
    lines = art["levels"]
    assert list(lines.levels) == [-1.0, 0.0, 1.0]
    for index, x1 in enumerate((-0.5, 0.5, 1.5)):
        vertices = np.concatenate(lines.allsegs[index])
        assert len(vertices) > 10 and np.allclose(vertices[:, 0], x1, atol=1e-9)
    assert len(art["support"].get_offsets()) == 2
    assert ax.get_xlabel() and ax.get_ylabel()
    plt.close(fig)


def test_plotting_rejects_bad_input():
    """Wrong shapes and scores of the wrong length are refused with a ValueError."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from kernlab import plotting

    fig, ax = plt.subplots()
    X, y = np.zeros((3, 2)), np.array([-1, 1, 1])
    with pytest.raises(ValueError, match="X must have shape"):
        plotting.decision_boundary(ax, lambda P: P[:, 0], np.zeros((3, 3)), y)
    with pytest.raises(ValueError, match="one score per point"):
        plotting.decision_boundary(ax, lambda P: P[:1, 0], X + [[0, 0], [1, 1], [2, 0]], y)
    with pytest.raises(ValueError, match="extent"):
        plotting.contour(ax, lambda P: P[:, 0], (1, 0, 0, 1))
    with pytest.raises(TypeError, match="3-D axes"):
        plotting.surface(ax, lambda P: P[:, 0], (0, 1, 0, 1))
    plt.close(fig)


def test_the_chapters_import_only_what_the_student_package_installs():
    """A chapter downloaded from the site runs with the student package alone: its
    cells import the standard library, kernlab and the libraries the package
    requires, never a module of the book's build (book/_ext), which lays the
    figures out for phones by itself."""
    import ast
    import importlib.util
    import tomllib

    import jupytext

    student = tomllib.loads((ROOT / "student" / "pyproject.toml").read_text())
    required = {re.split(r"[<>=!\[ ]", r)[0] for r in student["project"]["dependencies"]}
    installed = set(student["tool"]["student-package"]["packages"]) | {
        {"scikit-learn": "sklearn", "ipykernel": "IPython"}.get(r, r) for r in required}
    book_only = {p.stem for p in (ROOT / "book" / "_ext").glob("*.py")}
    imported = set()
    for chapter in sorted((ROOT / "book").rglob("*.md")):
        if "_generated" in chapter.parts or "_build" in chapter.parts:
            continue
        text = chapter.read_text(encoding="utf-8")
        if "```{code-cell}" not in text:
            continue
        for cell in jupytext.reads(text, fmt="md:myst").cells:
            if cell.cell_type != "code":
                continue
            source = "\n".join(line for line in cell.source.splitlines()
                                if not line.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(source)):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) and node.module
                         and not node.level else [])
                imported |= {(chapter.name, name) for name in names}
    assert any(name.startswith("kernlab") for _, name in imported)
    for chapter, name in sorted(imported):
        top = name.split(".")[0]
        assert top not in book_only, (chapter, name)
        assert top in sys.stdlib_module_names or top in installed, (chapter, name)
        assert importlib.util.find_spec(name) is not None, (chapter, name)
        if top == "kernlab":    # the student package's kernlab is this folder
            assert (ROOT.joinpath(*name.split(".")).with_suffix(".py").is_file()
                    or ROOT.joinpath(*name.split(".")).is_dir()), (chapter, name)


def test_a_figure_legend_too_wide_for_a_phone_gets_fewer_columns():
    """A row of panels with one legend for the figure, in as many columns as
    entries: its phone drawing keeps the phone's width, the legend in fewer
    columns under the panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    layouts = _figure_layouts()
    fig, axes = plt.subplots(1, 3, figsize=(7.2, 3.2), dpi=100)
    for k, ax in enumerate(axes):
        for j in range(5):
            ax.plot([0, 1], [j, j + k], label=f"a line numbered {j}")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncols=5)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    phone = layouts.phone_copy(fig)
    phone.draw_without_rendering()
    renderer = phone.canvas.get_renderer()
    (legend,) = phone.legends
    width = legend.get_window_extent(renderer).width
    assert width <= layouts.PHONE_WIDTH * phone.dpi < fig.legends[0].get_window_extent(
        fig.canvas.get_renderer()).width
    assert [t.get_text() for t in legend.get_texts()] == [f"a line numbered {j}"
                                                           for j in range(5)]
    assert legend.get_window_extent(renderer).y1 <= min(
        ax.get_tightbbox(renderer).y0 for ax in phone.axes) + 1
    assert phone.get_tightbbox(renderer).width <= layouts.PHONE_WIDTH + 0.3
    plt.close(phone)
    plt.close(fig)


def _figure_layouts():
    """The book's figure layouts (book/_ext/figure_layouts.py), which no package installs."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "figure_layouts", ROOT / "book" / "_ext" / "figure_layouts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wide_or_stacked_shows_a_column_on_narrow_screens():
    """The row of panels is the PNG (for the PDF) and the default of the
    <picture>; the column, narrower than the breakpoint, is its <source> for
    screens narrower than the breakpoint.  Bad input is refused by name."""
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    from PIL import Image

    wide_or_stacked = _figure_layouts().wide_or_stacked

    def draw(fig, axes, stacked):
        for ax in axes:
            ax.plot([0, 1], [1, 0])
            ax.set_xlabel("x")
            ax.set_ylabel("y")
        fig.tight_layout()

    both = wide_or_stacked(draw, 3, wide_size=(7.2, 3), stacked_size=(3.4, 8),
                           alt='three lines "falling" to the right', breakpoint=600)
    bundle = both._repr_mimebundle_()
    page = bundle["text/html"]
    sources = re.findall(r'srcset="data:image/png;base64,([^"]+)"', page)
    imgs = re.findall(r'<img src="data:image/png;base64,([^"]+)" alt="([^"]+)"', page)
    assert '<source media="(max-width: 599px)"' in page and len(sources) == 1
    assert len(imgs) == 1 and imgs[0][1] == "three lines &quot;falling&quot; to the right"
    assert imgs[0][0] == bundle["image/png"]

    def size(data):
        return Image.open(io.BytesIO(base64.b64decode(data))).size

    (wide_w, wide_h), (col_w, col_h) = size(imgs[0][0]), size(sources[0])
    assert col_w < 600 < wide_w and col_h > wide_h
    with pytest.raises(ValueError, match="alt must describe"):
        wide_or_stacked(draw, 3, wide_size=(7, 3), stacked_size=(3, 8), alt="plot")
    with pytest.raises(ValueError, match="n must be"):
        wide_or_stacked(draw, 0, wide_size=(7, 3), stacked_size=(3, 8), alt="a" * 30)
    with pytest.raises(ValueError, match="breakpoint must be"):
        wide_or_stacked(draw, 1, wide_size=(7, 3), stacked_size=(3, 8), alt="a" * 30,
                        breakpoint=0)


def test_a_figure_wider_than_a_phone_comes_with_a_drawing_for_it():
    """phone_copy lays a row of panels out as a column at phone width, with
    the same font sizes, the legend under its panel and the shared axis
    labelled on every panel, and leaves the figure itself as it was; loaded
    into IPython, every figure shows as a <picture> holding both drawings,
    even after the inline backend has reset the figure formatters."""
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core.pylabtools import select_figure_formats
    from PIL import Image

    layouts = _figure_layouts()
    PHONE_WIDTH, load_ipython_extension, phone_copy = (
        layouts.PHONE_WIDTH, layouts.load_ipython_extension, layouts.phone_copy)

    fig, (left, right) = plt.subplots(1, 2, figsize=(7.2, 3.4), dpi=100, sharey=True)
    for ax in (left, right):
        ax.plot([0, 1], [0, 1], label="a rising line")
        ax.plot([0, 1], [1, 0], label="a falling line")
        ax.set_xlabel("input $x$")
    left.set_ylabel("output $y$")
    left.set_title("a title rather longer than a panel on a phone is wide")
    left.legend()
    fig.tight_layout()
    positions = [ax.get_position().bounds for ax in fig.axes]
    figures_open = plt.get_fignums()

    phone = phone_copy(fig)
    phone.draw_without_rendering()
    renderer = phone.canvas.get_renderer()
    top, bottom = phone.axes
    assert [ax.get_position().bounds for ax in fig.axes] == positions
    assert fig.get_size_inches().tolist() == [7.2, 3.4]
    assert plt.get_fignums() == figures_open, "the copy opened a pyplot figure"
    assert phone.get_size_inches()[0] <= PHONE_WIDTH
    assert top.get_position().y0 > bottom.get_position().y1, "panels not stacked"
    assert "\n" in top.get_title(), "a title wider than its panel is not wrapped"
    # The legend hangs under the top panel's x-label, above the bottom panel.
    legend = top.get_legend().get_window_extent(renderer)
    assert legend.y1 <= top.xaxis.label.get_window_extent(renderer).y0
    assert legend.y0 >= bottom.get_tightbbox(renderer).y1
    # Same font sizes; the panel that hid the shared axis's ticks shows them.
    assert top.xaxis.label.get_fontsize() == left.xaxis.label.get_fontsize()
    assert bottom.get_ylabel() == "output $y$"
    assert any(t.get_visible() and t.get_text() for t in bottom.get_yticklabels())
    plt.close(phone)

    shell = InteractiveShell.instance()
    try:
        load_ipython_extension(shell)
        select_figure_formats(shell, {"png"})
        bundle, _ = shell.display_formatter.format(fig)
    finally:
        InteractiveShell.clear_instance()
    page = bundle["text/html"]
    (narrow,) = re.findall(r'srcset="data:image/png;base64,([^"]+)"', page)
    (wide,) = re.findall(r'<img src="data:image/png;base64,([^"]+)" alt=""', page)

    def size(data):
        return Image.open(io.BytesIO(base64.b64decode(data))).size

    assert size(wide) == size(bundle["image/png"])
    (wide_w, wide_h), (narrow_w, narrow_h) = size(wide), size(narrow)
    assert narrow_w <= PHONE_WIDTH * 100 < wide_w and narrow_h > wide_h
    breakpoint_ = int(re.search(r'max-width: (\d+)px', page).group(1)) + 1
    assert breakpoint_ > wide_w, "a screen narrower than the wide drawing shows it"
    plt.close(fig)

    with pytest.raises(TypeError, match="fig must be a matplotlib Figure"):
        phone_copy("figure")
    small, _ = plt.subplots()
    with pytest.raises(ValueError, match="width must be a positive"):
        phone_copy(small, width=0)
    plt.close(small)


def test_datasets_have_the_documented_labels():
    """The example data sets are labelled -1/+1 as documented, reproducibly."""
    import numpy as np

    from kernlab import datasets

    X, y = datasets.toy_2d()
    assert X.shape == (16, 2) and list(y) == [-1] * 8 + [1] * 8
    X, y = datasets.xor(40, noise=0.0)
    assert np.array_equal(np.sign(X[:, 0] * X[:, 1]), y)
    X1, y1 = datasets.two_moons(30, seed=3)
    X2, y2 = datasets.two_moons(30, seed=3)
    assert np.array_equal(X1, X2) and set(y1.tolist()) == {-1, 1}
    with pytest.raises(ValueError, match="noise"):
        datasets.xor(10, noise=-1.0)
    with pytest.raises(TypeError, match="n must be an integer"):
        datasets.two_moons(10.5)


def test_toy_2d_is_separable_with_a_thin_margin_as_the_book_says():
    """What the docstring and the chapters say about the sixteen points holds,
    checked with CVXPY (hard margin) and LIBSVM (soft margin)."""
    import cvxpy as cp
    import numpy as np
    from sklearn.svm import SVC as LibSVC

    from kernlab import datasets

    X, y = datasets.toy_2d()
    w, b = cp.Variable(2), cp.Variable()
    problem = cp.Problem(cp.Minimize(cp.sum_squares(w) / 2),
                         [cp.multiply(y, X @ w + b) >= 1])
    problem.solve()
    assert problem.status == cp.OPTIMAL
    np.testing.assert_allclose(w.value, [14.23, -3.85], atol=0.02)
    assert b.value == pytest.approx(-9.38, abs=0.02)
    assert 1 / np.linalg.norm(w.value) == pytest.approx(0.068, abs=0.001)
    for C in (1.0, 10.0):
        wrong = X[LibSVC(kernel="linear", C=C).fit(X, y).predict(X) != y]
        np.testing.assert_array_equal(wrong, [[0.4, -0.7]])


def test_every_chapter_carries_its_self_checks_on_the_site_in_the_notebook_and_the_pdf(
        built_book):
    """Each self-check of a chapter's source is a form on its page, text in its
    notebook download (the answers in the last cell) and, in the PDF, a
    question in the chapter with its answer after the chapter's last section."""
    from coursegrader.selfcheck import find_blocks

    html, log, returncode = built_book
    assert returncode == 0, "the book did not build"
    chapters = [d for d in toc_files() if is_notebook(d)]
    counts = {}
    for docname in chapters:
        n = len(find_blocks((ROOT / f"{docname}.md").read_text(encoding="utf-8")))
        counts[docname] = n
        page = (html / f"{docname}.html").read_text(encoding="utf-8")
        assert page.count('<div class="selfcheck"') == n, docname
        assert n == 0 or "_static/selfcheck.js" in page, docname
        nb = nbformat.read(html / "_sources" / f"{docname}.ipynb", as_version=4)
        prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert "{selfcheck}" not in prose and "- [x]" not in prose, docname
        if n:
            assert nb.cells[-1].source.startswith("## Answers to the self-checks"), docname
            assert nb.cells[-1].source.count("**Self-check ") == n, docname
    assert sum(counts.values()) > 0
    if not (tex_available() and shutil.which("pdftotext")):
        return
    text = " ".join(subprocess.run(["pdftotext", str(html / PDF_NAME), "-"], capture_output=True,
                                   text=True, check=True).stdout.split())
    with_checks = [d for d in chapters if counts[d]]
    assert text.count("Answers to the self-checks Self-check 1.") == len(with_checks)
    assert "Show the answer" not in text
