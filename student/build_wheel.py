"""Build the student package (a wheel) from this repository.

    python student/build_wheel.py OUTDIR

The wheel holds the packages listed in ``[tool.student-package.packages]`` of
``student/pyproject.toml`` (name -> folder in the repository) and the
settings in ``student/share/`` and ``student/etc/`` (installed into the
virtual environment, not the user's home). The packages are copied, without caches,
into a temporary folder together with that ``pyproject.toml``, and
``pip wheel`` builds the wheel there with setuptools.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent

#: Folders of student/ whose files the wheel installs into the environment
#: (see [tool.setuptools.data-files] in pyproject.toml).
DATA_FOLDERS = ("share", "etc")

#: What never goes into the wheel, whatever the package folders hold.
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "*.egg-info")


def project() -> dict:
    """The parsed ``student/pyproject.toml``."""
    return tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))


def package_sources(repository: Path = REPOSITORY) -> dict[str, Path]:
    """The packages of the wheel: import name -> source folder in ``repository``."""
    listed = project()["tool"]["student-package"]["packages"]
    sources = {}
    for name, folder in listed.items():
        path = repository / folder
        if not (path / "__init__.py").is_file():
            raise FileNotFoundError(
                f"student/pyproject.toml lists package {name!r} in {folder!r}, "
                f"but {path} has no __init__.py")
        sources[name] = path
    return sources


def wheel_name() -> str:
    """File name of the wheel this project builds (pure Python, any platform)."""
    meta = project()["project"]
    return f"{meta['name'].replace('-', '_')}-{meta['version']}-py3-none-any.whl"


def stage(into: Path, repository: Path = REPOSITORY) -> Path:
    """Copy the project definition and its packages into ``into``; return it."""
    into.mkdir(parents=True, exist_ok=True)
    shutil.copy2(HERE / "pyproject.toml", into / "pyproject.toml")
    for folder in DATA_FOLDERS:
        shutil.copytree(HERE / folder, into / folder, ignore=IGNORED)
    for name, source in package_sources(repository).items():   # a package before its subpackages
        shutil.copytree(source, into.joinpath(*name.split(".")), ignore=IGNORED)
    return into


def build_wheel(outdir: Path, repository: Path = REPOSITORY) -> Path:
    """Build the wheel into ``outdir`` (created if needed); return its path."""
    outdir = Path(outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    target = outdir / wheel_name()
    target.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="student-wheel-") as tmp:
        staged = stage(Path(tmp) / "project", repository)
        # No build isolation: setuptools from this environment, no download.
        run = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
             "--disable-pip-version-check", "--quiet", "--wheel-dir", str(outdir), str(staged)],
            cwd=tmp, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"pip wheel failed on the student package:\n{run.stdout}{run.stderr}")
    if not target.is_file():
        raise RuntimeError(f"pip wheel did not write {target.name} into {outdir}")
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python student/build_wheel.py OUTDIR", file=sys.stderr)
        return 2
    print(build_wheel(Path(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
