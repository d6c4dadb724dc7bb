"""What every instructor's command does with its input: read the course's configuration
once, and report bad input as a list of problems, each naming the file, line and field."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from traitlets.config import Config

from ..settings import course_config, find_course

__all__ = ["InputError", "load_config", "read_csv"]


class InputError(ValueError):
    """Bad input: every message names the file, line and field."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))

    def report(self) -> None:
        """Print every problem on standard error, one ``error:`` line each."""
        for problem in self.problems:
            print(f"error: {problem}", file=sys.stderr)


def load_config(folder: Path | str | None = None) -> Config:
    """The configuration of the course folder that holds ``folder`` (default: the current
    folder), read once per process."""
    try:
        return course_config(find_course(folder))
    except ValueError as exc:
        raise InputError([str(exc)]) from None


def read_csv(path: Path, columns: tuple[str, ...]) -> list[tuple[int, dict]]:
    """(line number, row) of each non-blank row of the CSV file ``path``, whose
    header must name ``columns``; each value stripped of surrounding spaces."""
    if not path.is_file():
        raise InputError([f"{path}: no such file"])
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        header = [h.strip() for h in reader.fieldnames or []]
        missing = [c for c in columns if c not in header]
        if missing:
            raise InputError([f"{path}, line 1: missing column(s) {', '.join(missing)} "
                              f"(the header must name {', '.join(columns)})"])
        reader.fieldnames = header
        return [(reader.line_num, {k: (v or "").strip() for k, v in row.items() if k})
                for row in reader if any((v or "").strip() for v in row.values())]
