"""What each role's server gets: its environment folder and its variables.

One home for this logic: the hub's spawner (jupyterhub_config.py) and the
course set-up (hub.py), which runs nbgrader as the instructor, both use it.
The variables' names are those of server_settings.py, which reads them on the
server.
"""

import os

import server_settings


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
    return env
