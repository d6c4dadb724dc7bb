"""What every instructor's command does with its input: read the course's configuration
once, and report bad input as a list of problems, each naming the file, line and field."""

from __future__ import annotations

import sys
from pathlib import Path

from traitlets.config import Config

from ..settings import course_config, find_course

__all__ = ["InputError", "load_config"]


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
