"""Look for answers in what students are given: the built website and its archives.

``python -m coursegrader.tools.leaks --course assignments SITE`` reads every
file under ``SITE`` (the built website, e.g. ``_build/html``), unpacking archives (the problem sets' zips, the student
wheel, archives inside those), and reports every place that holds

* a line of a solution region or a hidden-test region of a problem set's
  source (``assignments/source/psN/psN.md``);
* a line of the hidden halves of the problem sets (the course's ``hidden/``),
  which hold the references withheld from students (ps1's verdicts, as a rule
  on each variant's candidates).

Only distinctive lines count: a line shorter than :data:`MIN_CHARS`, or one
that also occurs in what students are meant to have (the book's sources,
``kernlab``, ``coursecheck``, the problem sets' text outside the regions),
says nothing about a leak. Pages are compared as the text a reader gets (HTML
tags removed), notebooks by their cells, the PDF by ``pdftotext``'s text, all
with runs of white space made one space. It exits with status 1 when it finds
anything.
"""

from __future__ import annotations

import argparse
import html
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from ..judging.problem_sets import HIDDEN_FOLDER
from .author import build_notebook, source_path
from .validation import hidden_test_lines, lines_outside_regions, solution_lines

__all__ = ["Secret", "Leak", "course_secrets", "site_texts", "find_leaks", "MIN_CHARS"]

#: Shorter lines (after white space is made one space) are too common to tell a leak.
MIN_CHARS = 20

#: Files whose bytes hold no text worth reading.
BINARY = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".woff", ".woff2", ".ttf", ".otf", ".eot",
          ".mo", ".pyc"}

#: What students are meant to have, in the repository holding the course folder:
#: a line found here is no secret.
PUBLIC = [("book", "*.md"), ("book", "*.py"), ("kernlab", "*.py"),
          ("coursecheck", "*.py")]

_SPACE = re.compile(r"\s+")
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Secret:
    """A text that must not reach students, and where it comes from."""

    origin: str
    text: str


@dataclass(frozen=True)
class Leak:
    """A secret found in a published file (``place`` names archive members with ``!``)."""

    place: str
    secret: Secret


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _public_text(course: Path) -> str:
    """Everything students are meant to have, one normalised line per line: the
    repository's parts of :data:`PUBLIC` and the course's public problem sets."""
    lines = []
    places = [(course.parent / folder, pattern) for folder, pattern in PUBLIC]
    for folder, pattern in places + [(course / "problems", "*.py")]:
        for path in sorted(folder.rglob(pattern)):
            if "_generated" in path.parts or "__pycache__" in path.parts:
                continue
            lines.extend(_norm(line) for line in path.read_text(encoding="utf-8").splitlines())
    return "\n".join(lines)


def course_secrets(course: Path) -> list[Secret]:
    """Every text of the course folder ``course`` that no published file may hold.

    What students are meant to have is read from the repository that holds
    the course folder (its book, ``kernlab`` and ``coursecheck``).
    """
    course = Path(course)
    sources = {folder.name: build_notebook(source_path(course, folder.name))
               for folder in sorted(p for p in (course / "source").iterdir() if p.is_dir())}
    # what any handout shows outside the regions is public, whichever set it is in
    public = "\n".join([_public_text(course)]
                       + [_norm(line) for nb in sources.values()
                          for line in lines_outside_regions(nb)])

    found: dict[str, Secret] = {}

    def add(origin, line):
        # a line that is part of a public line says nothing either
        text = _norm(line)
        if len(text) >= MIN_CHARS and text not in found and text not in public:
            found[text] = Secret(origin, text)

    for ps, nb in sources.items():
        for kind, lines in (("solution", solution_lines(nb)),
                            ("hidden test", hidden_test_lines(nb))):
            for line in lines:
                add(f"{ps} {kind}", line)
    for path in sorted((course / HIDDEN_FOLDER).glob("ps*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            add(f"hidden cases {path.name}", line)
    return list(found.values())


def _pdf_text(data: bytes) -> str:
    if not shutil.which("pdftotext"):
        raise RuntimeError("pdftotext (Debian's poppler-utils) is needed to read the PDF")
    run = subprocess.run(["pdftotext", "-layout", "-", "-"], input=data, capture_output=True,
                         timeout=300, check=True)
    return run.stdout.decode("utf-8", "replace")


def _notebook_text(data: bytes) -> str:
    nb = json.loads(data)
    parts = []
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        parts.append("".join(source) if isinstance(source, list) else source)
        for output in cell.get("outputs", []):
            parts.append(json.dumps(output))
    parts.append(json.dumps(nb.get("metadata", {})))
    return "\n".join(parts)


def _texts(name: str, data: bytes):
    """(place, text) for a file and, when it is an archive, for every member."""
    lower = name.lower()
    suffix = Path(lower).suffix
    if zipfile.is_zipfile(io.BytesIO(data)):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.infolist():
                if not member.is_dir():
                    yield from _texts(f"{name}!{member.filename}", archive.read(member))
        return
    if lower.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for member in archive.getmembers():
                if member.isfile():
                    yield from _texts(f"{name}!{member.name}",
                                      archive.extractfile(member).read())
        return
    if suffix in BINARY:
        return
    if suffix == ".pdf":
        yield name, _pdf_text(data)
        return
    if Path(lower).name == "objects.inv":  # four header lines, then zlib
        head = data.split(b"\n", 4)
        data = b"\n".join(head[:4]) + b"\n" + zlib.decompress(head[4])
    text = data.decode("utf-8", "replace")
    if suffix == ".ipynb":
        try:
            text = _notebook_text(data)
        except ValueError:
            pass
    if suffix in (".html", ".htm", ".xml", ".svg"):
        text = html.unescape(_TAG.sub("", text))
    yield name, text


def site_texts(site: Path):
    """(place, text) for every file under ``site``, archives unpacked."""
    site = Path(site)
    for path in sorted(site.rglob("*")):
        if path.is_file():
            yield from _texts(str(path.relative_to(site)), path.read_bytes())


def find_leaks(site: Path, secret_list: list[Secret]) -> list[Leak]:
    """Every (place, secret) where a published file under ``site`` holds a secret."""
    leaks = []
    for place, text in site_texts(site):
        flat = _norm(text)
        leaks.extend(Leak(place, s) for s in secret_list if s.text in flat)
    return leaks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.leaks",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path, help="the built website, e.g. _build/html")
    parser.add_argument("--course", type=Path, required=True,
                        help="the course folder whose answers must not be published")
    args = parser.parse_args(argv)
    site = args.site
    if not site.is_dir():
        print(f"no such folder: {site} (build the website first)", file=sys.stderr)
        return 2
    leaks = find_leaks(site, course_secrets(args.course))
    for leak in leaks:
        print(f"{leak.place}: {leak.secret.origin}: {leak.secret.text[:100]}")
    if leaks:
        print(f"{len(leaks)} leak(s) in {site}", file=sys.stderr)
        return 1
    print(f"no solution, hidden case or answer key in {site}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
