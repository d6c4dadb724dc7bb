"""The class list an LMS exports as CSV, and who each Canvas account is in the course.

Canvas's gradebook CSV has a row per student: ``Student`` (the name), ``ID``
(Canvas's own number for the account, the one in the names of the files of a
submissions zip), ``SIS User ID`` and ``SIS Login ID`` (the institution's
ids, one of which is the student's id in the gradebook) and ``Section``. The
first row after the header may be Canvas's "Points Possible" row, which has no
``ID``.

:func:`canvas_accounts` reads it into ``{Canvas user id: student id}`` for the
students registered in the gradebook, so that a file in the LMS's zip is
matched to its student by the account that handed it in, not by the name
Canvas built from the student's display name.
"""

from __future__ import annotations

import csv
from pathlib import Path

from .command_input import InputError

__all__ = ["CANVAS_REQUIRED", "CANVAS_KEYS", "read", "canvas_accounts"]

CANVAS_REQUIRED = ["Student", "ID", "Section"]
CANVAS_KEYS = ["SIS Login ID", "SIS User ID"]


def read(path: Path) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of an LMS's CSV ``path``."""
    path = Path(path)
    if not path.is_file():
        raise InputError([f"{path}: no such file (ROSTER must name the LMS's CSV)"])
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.reader(f))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InputError([f"{path}: not a CSV file in UTF-8 ({exc})"]) from None
    if not rows:
        raise InputError([f"{path}: the file is empty"])
    return rows[0], rows[1:]


def canvas_accounts(path: Path, students: set[str]) -> tuple[dict[str, str], list[str]]:
    """``({Canvas user id: student id}, problems)`` from Canvas's gradebook CSV.

    A row's student is the one of its SIS Login ID and SIS User ID that is
    registered in the gradebook (``students``). A row whose SIS ids name no
    registered student, or two different ones, is left out, and so is every
    row of a Canvas id listed twice and of a student listed under two Canvas
    ids; each is described in ``problems``. Raises :class:`InputError` when
    the file is not Canvas's gradebook CSV.
    """
    header, rows = read(path)
    names = [h.strip() for h in header]
    keys = [names.index(k) for k in CANVAS_KEYS if k in names]
    if "ID" not in names or not keys:
        raise InputError([f"{path}, line 1: no column ID, or no {' or '.join(CANVAS_KEYS)}"
                          f"; this is not a gradebook CSV exported from Canvas (columns: "
                          f"{', '.join(names)})"])
    id_col = names.index("ID")
    found: dict[str, list[tuple[int, str | None]]] = {}
    problems = []
    for n, row in enumerate(rows, start=2):
        row = row + [""] * (len(names) - len(row))
        user = row[id_col].strip()
        if not user:          # the points row, or a blank line
            continue
        sis = {row[k].strip() for k in keys if row[k].strip()}
        registered = sorted(sis & students)
        if len(registered) != 1:
            what = ("no student of the gradebook" if not registered else
                    f"two students of the gradebook ({', '.join(registered)})")
            problems.append(f"{path}, line {n}: Canvas user {user} has SIS ids "
                            f"{', '.join(sorted(sis)) or '(none)'}: {what}")
        found.setdefault(user, []).append((n, registered[0] if len(registered) == 1
                                           else None))
    accounts, users_of = {}, {}
    for user, rows_of in found.items():
        if len(rows_of) > 1:
            problems.append(f"{path}: Canvas user {user} is on lines "
                            f"{', '.join(str(n) for n, _ in rows_of)}: none of them is used")
        elif rows_of[0][1] is not None:
            accounts[user] = rows_of[0][1]
            users_of.setdefault(rows_of[0][1], []).append(user)
    for student, users in users_of.items():
        if len(users) > 1:
            problems.append(f"{path}: student {student} is Canvas users "
                            f"{', '.join(users)}: none of them is used")
            for user in users:
                del accounts[user]
    return accounts, problems
