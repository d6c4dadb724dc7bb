"""What each role's server gets: its environment folder and its variables.

One home for this logic: the hub's spawner (jupyterhub_config.py) and the
course set-up (hub.py), which runs nbgrader as the instructor, both use it.
The variables' names are those of server_settings.py, which reads them on the
server.
"""

import csv
import io
import os
import re
import stat

import clients
import server_settings

#: The file ``make variant_codes`` writes in the course folder.
VARIANT_CODES = "variant_codes.csv"
_CODE = re.compile(r"^[0-9a-f]{4}(-[0-9a-f]{4}){3}$")


def role_of(settings, name):
    if name in settings["instructors"]:
        return "instructor"
    if name in settings["students"]:
        return "student"
    raise ValueError(f"user {name!r} is neither an instructor nor a student of "
                     f"{settings['course_id']}")


def environment_bin(settings, name):
    return os.path.join(settings["prefix"], role_of(settings, name), "bin")


def user_environment(settings, name):
    """Variables of ``name``'s server (read by server_settings.ServerSettings)."""
    role = role_of(settings, name)
    ngshare = settings["exchange"] == "ngshare"
    env = server_settings.variables(
        role=role, course_id=settings["course_id"], exchange=settings["exchange"],
        ngshare_url=ngshare and f"http://127.0.0.1:{settings['port']}/services/ngshare",
        exchange_root=not ngshare and settings["exchange_root"],
        course_root=role == "instructor" and settings["course_dirs"][name],
        # read by the course's own nbgrader_config.py (its CourseSettings)
        gradebook_url=role == "instructor" and settings.get("gradebook_url"),
        # the book service, from which "Open in the course hub" copies a chapter
        book_url=f"http://127.0.0.1:{settings['book_port']}/services/book/")
    env["PATH"] = f"{environment_bin(settings, name)}:/usr/local/bin:/usr/bin:/bin"
    # the trusted front proxies, for the server's limits per client (clients.py)
    env.update(clients.front_variables(settings.get("front_proxies")))
    if role == "student":
        env.update(variant_environment(settings, name))
    return env


def _read_instructors_file(path, owner, limit=1 << 20):
    """The text of ``path`` if it is a regular file of ``owner``'s (never through a
    link), of at most ``limit`` bytes; else None.  The hub runs as root."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != owner or info.st_size > limit:
            return None
        return f.read(limit).decode("utf-8", errors="replace")


def variant_environment(settings, name):
    """The variables that make ``name``'s notebooks show their own variants.

    The code is read from ``variant_codes.csv``, which ``make variant_codes``
    writes in an instructor's course folder (the hub holds no course secret);
    without it the student's notebooks show the example variant and say so.
    """
    import pwd
    for instructor in sorted(settings.get("course_dirs", {})):
        try:
            owner = pwd.getpwnam(instructor).pw_uid
        except KeyError:
            continue
        text = _read_instructors_file(
            os.path.join(settings["course_dirs"][instructor], VARIANT_CODES), owner)
        for row in csv.DictReader(io.StringIO(text or "")):
            if row.get("student_id") == name and _CODE.match(row.get("code") or ""):
                return {"COURSECHECK_STUDENT": name, "COURSECHECK_VARIANT_CODE": row["code"]}
    return {}
