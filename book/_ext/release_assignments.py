"""Put the students' version of every problem set next to the assignments page.

At ``builder-inited`` this extension copies the nbgrader course
(``assignments/nbgrader_config.py`` and ``assignments/source/``) to a
temporary folder, runs ``nbgrader generate_assignment`` there for every
problem set, checks that the released notebooks hold no solution or hidden
test (``coursegrader.tools.validation.release_leaks``), and copies them to
``book/_generated/assignments/``:

* ``psN.ipynb`` -- the notebook a student works in;
* ``psN.zip`` -- the notebook together with any data files of the set.

``book/assignments.md`` links them with the ``{download}`` role. The result is
reused while the sources are unchanged (a hash of them is stored alongside).
A leak or a failing generation stops the build.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import zipfile
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: Output folder, relative to the book folder (book/).
GENERATED = Path("_generated") / "assignments"


def _sources_digest(course: Path) -> str:
    digest = hashlib.sha256()
    files = [course / "nbgrader_config.py"] + sorted(
        p for p in (course / "source").rglob("*")
        if p.is_file() and ".ipynb_checkpoints" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(course)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def release_notebooks(course: Path, out: Path) -> list[str]:
    """Generate the release of every problem set of ``course`` into ``out``; return their names."""
    from coursegrader.tools.course import Course
    from coursegrader.tools.validation import release_leaks

    names = sorted(p.name for p in (course / "source").iterdir() if p.is_dir())
    digest = _sources_digest(course)
    stamp = out / ".sources.sha256"
    if stamp.exists() and stamp.read_text() == digest and all(
            (out / f"{ps}.ipynb").exists() for ps in names):
        return names
    with tempfile.TemporaryDirectory(prefix="release-") as tmp:
        copy = Course.copy_of(course, Path(tmp) / "course", exchange=Path(tmp) / "exchange",
                              assignments=names)
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for ps in names:
            copy.nbgrader("db assignment add", ps)
            copy.nbgrader("generate_assignment", ps)
            leaks = release_leaks(copy.source(ps), copy.released(ps))
            if leaks:
                raise ExtensionError(f"released {ps} is not safe to publish: {'; '.join(leaks)}")
            folder = copy.root / "release" / ps
            shutil.copy2(folder / f"{ps}.ipynb", out / f"{ps}.ipynb")
            with zipfile.ZipFile(out / f"{ps}.zip", "w", zipfile.ZIP_DEFLATED) as zf:
                for path in sorted(folder.rglob("*")):
                    if path.is_file():
                        zf.write(path, Path(ps) / path.relative_to(folder))
    stamp.write_text(digest)
    return names


def _on_builder_inited(app: Sphinx) -> None:
    root = Path(app.srcdir)
    course = root / "assignments"
    out = root / "book" / GENERATED
    try:
        names = release_notebooks(course, out)
    except ExtensionError:
        raise
    except Exception as exc:
        raise ExtensionError(f"could not generate the released assignments: {exc}") from exc
    logger.info("released assignments: %s", ", ".join(names))


def setup(app: Sphinx):
    app.connect("builder-inited", _on_builder_inited)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
