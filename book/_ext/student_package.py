"""Build the student package (a wheel) and put it on the site.

At ``builder-inited`` this extension runs ``student/build_wheel.py`` (the
packages listed in ``student/pyproject.toml``: ``kernlab`` and the student-side
checker with the public cases only) into ``book/_generated/student/``;
``book/assignments.md`` and ``book/intro.md`` link the wheel with the
``{download}`` role, so it ends up under ``_build/html/_downloads/``. The wheel
is rebuilt only when its sources change (a hash of them is stored alongside).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: Output folder, relative to the book folder (book/).
GENERATED = Path("_generated") / "student"


def load_builder(root: Path):
    """The module ``student/build_wheel.py`` of the repository at ``root``."""
    path = root / "student" / "build_wheel.py"
    spec = importlib.util.spec_from_file_location("student_build_wheel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _digest(root: Path, builder) -> str:
    digest = hashlib.sha256()
    folders = [root / "student"] + list(builder.package_sources(root).values())
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and ".ipynb_checkpoints" not in path.parts:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def build_student_wheel(root: Path, out: Path) -> Path:
    """Build the wheel of the repository at ``root`` into ``out`` unless it is up to date."""
    builder = load_builder(root)
    wheel = out / builder.wheel_name()
    digest = _digest(root, builder)
    stamp = out / ".sources.sha256"
    if wheel.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return wheel
    for old in out.glob("*.whl"):
        old.unlink()
    wheel = builder.build_wheel(out, root)
    stamp.write_text(digest)
    return wheel


def _on_builder_inited(app: Sphinx) -> None:
    root = Path(app.srcdir)
    try:
        wheel = build_student_wheel(root, root / "book" / GENERATED)
    except Exception as exc:
        raise ExtensionError(f"could not build the student package: {exc}") from exc
    logger.info("student package: %s", wheel.name)


def setup(app: Sphinx):
    app.connect("builder-inited", _on_builder_inited)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
