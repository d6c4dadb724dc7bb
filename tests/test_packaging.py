"""The course's packages install quietly, as deploy/install.sh installs them
into the instructor's environment: the newest pip, setuptools at the version
install.sh pins, the package built from a clean copy of the tree, no build
isolation."""

import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTALL = (ROOT / "deploy" / "install.sh").read_text()
SETUPTOOLS = re.search(r"^SETUPTOOLS_VERSION=(\S+)$", INSTALL, flags=re.M).group(1)
# what refresh_instructor_course copies (its tar command)
COPIED = re.search(r"-cf - \\\n\s+(.+?)\) \|", INSTALL, flags=re.S).group(1).split()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_instructors_install_prints_no_setuptools_warning(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    # as install.sh's build(): the newest pip, then its pinned setuptools
    subprocess.run(pip + ["install", "--quiet", "--upgrade", "pip"], check=True,
                   capture_output=True)
    subprocess.run(pip + ["install", "--quiet", f"setuptools=={SETUPTOOLS}"], check=True,
                   capture_output=True)
    tree = tmp_path / "tree"
    tree.mkdir()
    with tarfile.open(tmp_path / "tree.tar", "w") as tar:
        for name in COPIED:
            tar.add(ROOT / name, arcname=name,
                    filter=lambda t: None if "__pycache__" in t.name or t.name.endswith(
                        ".egg-info") else t)
    with tarfile.open(tmp_path / "tree.tar") as tar:
        tar.extractall(tree)
    done = subprocess.run(pip + ["install", "--no-deps", "--force-reinstall",
                                 "--no-build-isolation", str(tree)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    said = done.stdout + done.stderr
    assert not re.search(r"Warning|would be ignored|deprecated", said), said[-4000:]
    site = next((venv / "lib").glob("python3*/site-packages"))
    for folder in ("feedback", "formgrade", "report", "similarity"):
        assert list((site / "coursegrader" / "templates" / folder).glob("*.j2")), folder
    shutil.rmtree(tree)
