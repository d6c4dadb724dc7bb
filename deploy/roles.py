"""What each role's server gets: its environment folder and its variables.

One home for this logic: the hub's spawner (jupyterhub_config.py) and the
course set-up (hub.py), which runs nbgrader as the instructor, both use it.
"""

import os


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
    """Variables of ``name``'s server (read by user_nbgrader_config.py)."""
    role = role_of(settings, name)
    env = {"KERNEL_COURSE_ID": settings["course_id"], "KERNEL_COURSE_ROLE": role,
           "KERNEL_COURSE_EXCHANGE": settings["exchange"],
           "PATH": f"{environment_bin(settings, name)}:/usr/local/bin:/usr/bin:/bin",
           # the book service, from which "Open in the course hub" copies a chapter
           "KERNEL_COURSE_BOOK_URL": f"http://127.0.0.1:{settings['book_port']}/services/book/"}
    if settings["exchange"] == "ngshare":
        env["KERNEL_COURSE_NGSHARE_URL"] = f"http://127.0.0.1:{settings['port']}/services/ngshare"
    else:
        env["NBGRADER_EXCHANGE"] = settings["exchange_root"]
    if role == "instructor":
        env["KERNEL_COURSE_ROOT"] = settings["course_dirs"][name]
        if settings.get("gradebook_url"):   # read by the course's nbgrader_config.py
            env["NBGRADER_DB_URL"] = settings["gradebook_url"]
    return env
