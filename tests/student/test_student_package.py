"""What a student installs: the student package, in a fresh virtual environment.

The wheel is built from this repository as the site build does
(``student/build_wheel.py``) and installed with pip, from the package index,
into a virtual environment created in a temporary folder outside the
repository.  Nothing of the instructor's environment is visible there: no
``PYTHONPATH``, no editable install, a home folder and Jupyter folders of its
own.  Creating that environment downloads and installs JupyterLab, nbgrader,
CVXPY and the rest (about a minute with a warm pip cache, several without),
so the tests that need it are marked ``slow`` and share one environment per
test session.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import types
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest

from coursegrader.tools.author import build_notebook
from coursegrader.tools.course import fill_answers
from coursegrader.judging.problem_sets import graded_parts
from conftest import CHROMIUM, CHROMIUM_ARGS, free_port, require_chromium

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "assignments"

#: What the wheel installs into the environment besides its packages.
DATA_FILES = {"share/jupyter/lab/settings/overrides.json", "etc/jupyter/nbgrader_config.py"}


def _load(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def student_wheel(slow, tmp_path_factory) -> Path:
    """The student wheel, built from this repository into a temporary folder."""
    builder = _load(ROOT / "student" / "build_wheel.py", "student_build_wheel")
    return builder.build_wheel(tmp_path_factory.mktemp("student-wheel"), ROOT)


@pytest.fixture(scope="session")
def student_env(slow, tmp_path_factory, student_wheel):
    """A virtual environment outside the repository with only the wheel installed.

    ``env`` is the environment a student's terminal would have there: the
    venv's ``bin`` first on ``PATH``, no ``PYTHONPATH``, and a home folder
    (with Jupyter's configuration, data and runtime folders) of its own, so no
    setting of this machine's user leaks in.
    """
    tmp = tmp_path_factory.mktemp("student-env")
    assert ROOT not in tmp.parents
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    bin_dir = venv / "bin"
    outside = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    install = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet",
         "--disable-pip-version-check", str(student_wheel)],
        cwd=tmp, env=outside, capture_output=True, text=True, timeout=1500)
    assert install.returncode == 0, f"pip install of the wheel failed:\n{install.stderr[-4000:]}"
    home = tmp / "home"
    home.mkdir()
    env = dict(outside, HOME=str(home), VIRTUAL_ENV=str(venv),
               PATH=f"{bin_dir}{os.pathsep}{outside.get('PATH', '')}",
               JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
               JUPYTER_DATA_DIR=str(home / ".local" / "share" / "jupyter"),
               JUPYTER_RUNTIME_DIR=str(home / ".local" / "share" / "jupyter" / "runtime"),
               IPYTHONDIR=str(home / ".ipython"), MPLBACKEND="Agg")
    work = tmp / "work"
    work.mkdir()
    return types.SimpleNamespace(venv=venv, bin=bin_dir, env=env, home=home, work=work)


def test_wheel_holds_kernlab_and_the_public_checks_only(student_wheel):
    with zipfile.ZipFile(student_wheel) as wheel:
        names = wheel.namelist()
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    tops = {n.split("/")[0] for n in names}
    dist = {t for t in tops if t.endswith((".dist-info", ".data"))}
    assert tops - dist == {"kernlab", "coursecheck"}
    # the public checks, with the public expected values, for every problem set
    for ps in ("ps1", "ps2", "ps3", "ps4", "ps5"):
        assert f"coursecheck/problems/{ps}.py" in names
    assert "coursecheck/problems/answers.json" in names
    # nothing of the grader, the sources or the solutions, nor the book's own figure layouts
    assert not [n for n in names if "coursegrader" in n or n.endswith((".md", ".ipynb"))]
    assert not [n for n in names if "figure_layouts" in n or "/hidden/" in n]
    data = {n.split(".data/data/", 1)[1] for n in names if ".data/data/" in n}
    assert data == DATA_FILES
    requires = [line.split(":", 1)[1].strip() for line in metadata.decode().splitlines()
                if line.startswith("Requires-Dist:")]
    needed = {"jupyterlab", "nbgrader", "jupytext", "jupyterlab-myst", "ipykernel", "numpy",
              "scipy", "cvxpy", "matplotlib"}
    named = {r.split(";")[0].split("<")[0].split(">")[0].split("=")[0].strip() for r in requires}
    assert needed <= named, needed - named
    assert "nbgrader==0.9.6" in requires  # the version the instructor grades with


# Run in the student's environment: import the packages, then run a notebook
# as JupyterLab's "Run all" does (stopping at an error unless the cell is
# tagged raises-exception) and write it back with its outputs.
RUN_NOTEBOOK = r"""
import json, sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient
import kernlab, coursecheck
found = {"kernlab": kernlab.__file__, "coursecheck": coursecheck.__file__}
try:
    import coursegrader
    found["coursegrader"] = coursegrader.__file__
except ModuleNotFoundError:
    found["coursegrader"] = None
path = Path(sys.argv[1])
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False,
               resources={"metadata": {"path": str(path.parent)}}).execute()
nbformat.write(nb, path)
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def released_ps1(tmp_path_factory):
    """ps1 as the site offers it (book/_ext/release_assignments.py), and its source."""
    ext = _load(ROOT / "book" / "_ext" / "release_assignments.py", "release_assignments")
    course = tmp_path_factory.mktemp("release") / "course"
    (course / "source").mkdir(parents=True)
    shutil.copy(COURSE / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copytree(COURSE / "source" / "ps1", course / "source" / "ps1")
    out = course.parent / "out"
    assert ext.release_notebooks(course, out) == ["ps1"]
    return (nbformat.read(out / "ps1.ipynb", as_version=4),
            build_notebook(course / "source" / "ps1" / "ps1.md"))


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_a_released_problem_set_runs_its_checks_in_the_student_environment(
        student_env, released_ps1):
    released, source = released_ps1
    # finished work, except part 1's map, worked out for c = 1
    nb = fill_answers(released, source)
    for cell in nb.cells:
        # the map of (1 + <x, z>)^2: wrong on a variant, whose c is not 1
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "quadratic_map_answer":
            cell.source = ("def quadratic_feature_map(X):\n"
                           "    X = np.asarray(X, dtype=float)\n"
                           "    return np.column_stack([np.ones(len(X)), np.sqrt(2) * X, X ** 2,\n"
                           "                            np.sqrt(2) * X[:, :1] * X[:, 1:]])\n")
    folder = student_env.work / "ps1"
    folder.mkdir()
    path = folder / "ps1.ipynb"
    nbformat.write(nb, path)

    run = subprocess.run([str(student_env.bin / "python"), "-c", RUN_NOTEBOOK, str(path)],
                         cwd=folder, env=student_env.env, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stderr[-4000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    site = student_env.venv / "lib"
    assert Path(found["kernlab"]).is_relative_to(site), found
    assert Path(found["coursecheck"]).is_relative_to(site), found
    assert found["coursegrader"] is None, "the grader must not be importable by students"

    ran = nbformat.read(path, as_version=4)
    checks = {c.metadata["nbgrader"]["grade_id"]: c for c in ran.cells
              if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}
    assert set(checks) == set(graded_parts(COURSE, "ps1"))
    for gid, cell in checks.items():
        errors = [o for o in cell.outputs if o.output_type == "error"]
        printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        assert printed.strip(), f"check {gid} printed nothing"
        if gid == "quadratic_map":
            # the wrong part is reported, naming a case it got wrong, and Run all went on
            assert [e.ename for e in errors] == ["CheckFailed"], cell.outputs
            assert "4 points in R^2" in "\n".join(errors[0].traceback)
        else:
            assert not errors, (gid, cell.outputs)

    # nbgrader validate, with the course settings the package installs, says the same
    validate = subprocess.run([str(student_env.bin / "nbgrader"), "validate", "ps1.ipynb"],
                              cwd=folder, env=student_env.env, capture_output=True,
                              text=True, timeout=900)
    said = validate.stdout + validate.stderr
    assert "4 points in R^2" in said and "but the kernel gives" in said, said[-3000:]
    assert "Success!" not in said


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_the_environment_has_the_assignments_tab_myst_and_its_own_settings(student_env):
    def run(*argv):
        done = subprocess.run([str(student_env.bin / argv[0]), *argv[1:]], cwd=student_env.work,
                              env=student_env.env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)

    assert "No broken requirements" in run("pip", "check")  # versions that go together
    labextensions = run("jupyter", "labextension", "list")
    for name in ("@jupyter/nbgrader", "jupyterlab-myst", "jupyterlab-jupytext"):
        line = next((x for x in labextensions.splitlines() if name in x), "")
        assert "enabled" in line, (name, labextensions)
    server = run("jupyter", "server", "extension", "list")
    for name in ("nbgrader.server_extensions.assignment_list",
                 "nbgrader.server_extensions.validate_assignment", "jupyterlab_myst",
                 "jupytext"):
        assert re.search(rf"{re.escape(name)}\S*\s+enabled", server), (name, server)
    # the settings live in the environment, not in the student's home
    overrides = json.loads((student_env.venv / "share" / "jupyter" / "lab" / "settings"
                            / "overrides.json").read_text())
    viewers = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == "Jupytext Notebook"
    # nbgrader there knows the course: its settings give the course's id
    shown = subprocess.run(
        [str(student_env.bin / "python"), "-c",
         "import sys; from traitlets.config.loader import PyFileConfigLoader as L; "
         "print(L('nbgrader_config.py', path=sys.argv[1]).load_config()"
         ".CourseDirectory.course_id)", str(student_env.venv / "etc" / "jupyter")],
        cwd=student_env.work, env=student_env.env, capture_output=True, text=True,
        timeout=120)
    assert shown.stdout.strip() == "kernel-methods", shown.stderr


@pytest.fixture()
def jupyterlab(slow, student_env):
    """JupyterLab from the student environment on a free loopback port; yield (url, token)."""
    port, token = free_port(), secrets.token_hex(16)
    # Render every cell at once (JupyterLab otherwise draws only the cells in view).
    settings = student_env.home / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / (
        "notebook-extension")
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    log = open(student_env.home / "jupyterlab.log", "w")
    server = subprocess.Popen(
        [str(student_env.bin / "jupyter"), "lab", "--no-browser", "--allow-root",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={student_env.work}"],
        env=student_env.env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5)
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail("JupyterLab did not start:\n"
                                + (student_env.home / "jupyterlab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield url, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_a_downloaded_chapter_shows_its_theorems_and_maths_in_jupyterlab(
        student_env, jupyterlab):
    require_chromium()
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    # the chapter's notebook as the site offers it for download, with a margin
    # note planted before its first result (the chapters have none just now)
    sys.path.insert(0, str(ROOT / "book" / "_ext"))   # as the book's build has it
    try:
        downloads = _load(ROOT / "book" / "_ext" / "notebook_downloads.py", "notebook_downloads")
        numbers = _load(ROOT / "book" / "_ext" / "chapter_numbers.py", "chapter_numbers")
    finally:
        sys.path.remove(str(ROOT / "book" / "_ext"))
    citations = downloads.load_citations([ROOT / "book" / "references.bib"])
    book = student_env.home / "book-copy"
    shutil.copytree(ROOT / "book", book / "book",
                    ignore=shutil.ignore_patterns("_generated", "_build", "__pycache__"))
    for name in ("_toc.yml", "_config.yml"):
        shutil.copy(ROOT / name, book / name)
    chapter = book / "book" / "chapters" / "kernel_trick.md"
    text = chapter.read_text(encoding="utf-8")
    first = text.index("```{prf:")
    chapter.write_text(text[:first] + "```{margin} Planted note\nA margin note of the "
                       "chapter, beside the text on the website.\n```\n\n" + text[first:],
                       encoding="utf-8")
    numbering = numbers.book_numbering(book)
    downloads.write_notebook(chapter, student_env.work / "kernel_trick.ipynb", citations,
                             numbering, book)
    equations = sorted((t.number for t in numbering[0].values()
                        if t.doc == "book/chapters/kernel_trick" and t.kind == "equation"),
                       key=lambda n: int(n.split(".")[1]))
    url, token = jupyterlab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/lab/tree/kernel_trick.ipynb?token={token}")
            page.wait_for_selector(".jp-Notebook .myst-proof-title", timeout=120_000)
            page.wait_for_selector(".jp-Notebook .katex", timeout=60_000)
            # JupyterLab renders a long notebook's cells as they come into view, and
            # each Markdown cell when its turn comes: scroll to the end (the chapter's
            # definition is far down) and wait for it and for every equation number
            # (if one never comes, the assertions below say which)
            try:
                page.wait_for_function("""(numbers) => {
                    const panel = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
                    if (panel) panel.scrollTop = panel.scrollHeight;
                    const text = [...document.querySelectorAll(
                        '.jp-MarkdownCell .jp-RenderedMarkdown, .jp-MarkdownCell .myst')]
                        .map(e => e.innerText).join('\\n');
                    return [...document.querySelectorAll('.jp-Notebook .myst-proof-title')]
                        .some(e => e.innerText.includes('Definition'))
                        && numbers.every(n => text.includes('(' + n + ')'));
                }""", arg=equations, polling=500, timeout=120_000)
            except PlaywrightTimeout:
                pass
            seen = page.evaluate("""() => {
                const nb = document.querySelector('.jp-Notebook');
                const rendered = [...nb.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown, '
                                                         + '.jp-MarkdownCell .myst')];
                // the planted note and the paragraphs it would cover
                const note = [...nb.querySelectorAll('aside, .admonition, [class*=admonition]')]
                    .find(e => e.innerText.includes('Planted note'));
                const r = note ? note.getBoundingClientRect() : null;
                const covered = !r ? [] : [...nb.querySelectorAll('.jp-MarkdownCell p')]
                    .filter(q => !note.contains(q)).filter(q => {
                        const b = q.getBoundingClientRect();
                        return Math.min(r.right, b.right) - Math.max(r.left, b.left) > 1
                            && Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top) > 1;
                    }).map(q => q.innerText.slice(0, 60));
                return {
                    titles: [...nb.querySelectorAll('.myst-proof-title')].map(e => e.innerText),
                    katex: nb.querySelectorAll('.katex').length,
                    text: rendered.map(e => e.innerText).join('\\n'),
                    markdown: nb.querySelectorAll('.jp-MarkdownCell').length,
                    note: !!note, covered,
                };
            }""")
        finally:
            browser.close()
    # the theorem-like blocks and proofs are drawn as such, not left as directives
    titles = " ".join(seen["titles"])
    assert "Proposition" in titles and "Homogeneous polynomial kernel" in titles, titles
    assert "Proof" in titles and "Definition" in titles, titles
    assert "{prf:" not in seen["text"] and "```" not in seen["text"]
    # numbered as on the website: results on one counter within chapter 1,
    # labelled equations with the site's numbers, proofs without a number
    assert "Proposition 1.1" in titles or "Definition 1.1" in titles, titles
    assert not re.search(r"Proposition [0-9]+\b(?!\.)", titles), titles
    assert not re.search(r"Proof [0-9]", titles), titles
    assert equations and all(f"({n})" in seen["text"] for n in equations), \
        (equations, re.findall(r"\([0-9]+(?:\.[0-9]+)?\)", seen["text"]))
    assert "{eq}" not in seen["text"]
    # the margin note is a note in the text, covering no paragraph
    assert seen["note"] and not seen["covered"], seen["covered"]
    # citations read as on the website, not as bare keys
    assert "{cite" not in seen["text"] and "cortes1995support" not in seen["text"]
    assert "(Cortes and Vapnik, 1995)" in seen["text"], seen["text"][:3000]
    # the maths is typeset, not shown as TeX
    assert seen["katex"] > 50
    assert "$$" not in seen["text"] and "\\frac" not in seen["text"]
    assert seen["markdown"] > 10 and len(seen["text"]) > 5000


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    following = text.find("\n## ", start + len(heading))
    return text[start:following if following >= 0 else len(text)]


def test_student_instructions_need_only_the_site():
    """README, introduction and Assignments page: a virtual environment, the
    wheel from the site, JupyterLab, check, validate, submit; never the repository."""
    pages = {
        "README.md": _section((ROOT / "README.md").read_text(), "## For students"),
        "book/intro.md": _section((ROOT / "book" / "intro.md").read_text(),
                                  "## Running a chapter yourself")
        + _section((ROOT / "book" / "intro.md").read_text(), "## How the assignments work"),
        "book/assignments.md": (ROOT / "book" / "assignments.md").read_text(),
    }
    for name, text in pages.items():
        flat = " ".join(text.split())
        for needed in ("python3 -m venv", "PEP 668", "pip install", "jupyter lab",
                       "nbgrader validate", "submit", "learning-management system"):
            assert needed in flat, (name, needed)
        assert "clone" not in flat.lower() and "requirements.txt" not in flat, name
    # the book links the wheel itself, as built from student/pyproject.toml
    builder = _load(ROOT / "student" / "build_wheel.py", "student_build_wheel")
    for page in ("intro.md", "assignments.md"):
        assert f"_generated/student/{builder.wheel_name()}>`" in (ROOT / "book" / page).read_text()
    # no user-wide JupyterLab setting is changed by the build
    assert "set-default-viewer" not in (ROOT / "scripts" / "build.sh").read_text()


@pytest.fixture(scope="module")
def released_all(tmp_path_factory):
    """Every problem set as the site offers it (book/_ext/release_assignments.py), with
    its source: {ps: (released, source)}."""
    ext = _load(ROOT / "book" / "_ext" / "release_assignments.py", "release_assignments")
    course = tmp_path_factory.mktemp("release-all") / "course"
    (course / "source").mkdir(parents=True)
    shutil.copy(COURSE / "nbgrader_config.py", course / "nbgrader_config.py")
    names = sorted(p.name for p in (COURSE / "source").iterdir() if p.is_dir())
    for ps in names:
        shutil.copytree(COURSE / "source" / ps, course / "source" / ps,
                        ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"))
    out = course.parent / "out"
    assert ext.release_notebooks(course, out) == names
    return {ps: (nbformat.read(out / f"{ps}.ipynb", as_version=4),
                 build_notebook(course / "source" / ps / f"{ps}.md")) for ps in names}


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_offline_the_id_is_set_once_and_every_problem_set_shows_the_students_variant(
        student_env, released_all, tmp_path):
    """A student of the LMS route, with the package alone: they set their id and the
    code their instructor sent once, in a terminal; then each problem set, run as far
    as the check of its first part that varies, says it is their variant, the one the
    grader draws for them from the course secret, and that check passes on it."""
    from coursecheck.problems import COURSE_ID
    from coursegrader.judging.variants import submission_variant, variant_code

    secret = "offline-route-secret"
    assert set(released_all) == {"ps1", "ps2", "ps3", "ps4", "ps5"}
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in student_env.env.items()
           if k not in ("XDG_CONFIG_HOME", "COURSECHECK_STUDENT", "COURSECHECK_VARIANT_CODE")}
    env.update(HOME=str(home), JUPYTER_RUNTIME_DIR=str(home / "runtime"))
    code = variant_code(secret, COURSE_ID, "alice")      # alice's row of `make variant_codes`
    done = subprocess.run([str(student_env.bin / "python"), "-m", "coursecheck.variants",
                           "alice", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "variants of alice" in done.stdout, done.stdout + done.stderr
    assert (home / ".config" / "coursecheck" / "student.json").is_file()

    for ps, (released, source) in sorted(released_all.items()):
        label = submission_variant(secret, ps, "alice").label
        first = next(pid for pid, p in graded_parts(COURSE, ps).items() if p.varies)
        nb = fill_answers(released, source)
        ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
        nb.cells = nb.cells[:ids.index(first) + 1]      # Run All as far as that check
        folder = student_env.work / f"offline-{ps}"
        folder.mkdir()
        path = folder / f"{ps}.ipynb"
        nbformat.write(nb, path)
        run = subprocess.run([str(student_env.bin / "python"), "-c", RUN_NOTEBOOK, str(path)],
                             cwd=folder, env=env, capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, (ps, run.stderr[-4000:])
        ran = {c.metadata.get("nbgrader", {}).get("grade_id"): "".join(
            o.get("text", "") for o in c.get("outputs", []) if o.output_type == "stream")
            for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"}
        assert f"Variant for alice ({label}), as set in " in ran["variant"], (ps, ran["variant"])
        assert "example variant" not in ran["variant"], ps
        assert f"On the variant of alice ({label})." in ran[first], (ps, ran[first])
        assert "All public checks passed" in ran[first], (ps, ran[first])
