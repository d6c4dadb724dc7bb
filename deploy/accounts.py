"""Unix accounts of the course: create and remove (run as root).

    python3 deploy/accounts.py create --instructor NAME --students A,B,C --passwords FILE
    python3 deploy/accounts.py remove NAME [NAME ...]

``create`` makes one account per person (useradd, home folder readable by its
owner only), sets a random password for each, and writes the passwords to FILE
(JSON, readable by root only). Students are in the group ``<course>-students``,
instructors in ``<course>-instructors``. Only root and the instructors' group
may read the instructor's environment and the checkout (install.sh); the groups
also choose each role's PATH in a login shell (/etc/profile.d/kernel-course-<course>.sh).
"""

import argparse
import json
import os
import pwd
import re
import secrets
import subprocess
import time
import sys

NAME = re.compile(r"^[a-z][a-z0-9-]{0,30}$")


def check_name(name):
    if not NAME.match(name):
        raise ValueError(f"user name {name!r}: use lower-case letters, digits and '-', "
                         "starting with a letter, at most 31 characters")
    return name


def exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def ensure_group(group):
    if subprocess.run(["getent", "group", group], capture_output=True).returncode:
        subprocess.run(["groupadd", group], check=True)


def create(name, group, password):
    check_name(name)
    if exists(name):
        raise ValueError(f"user {name!r} exists already: remove it first or choose another name")
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", "--groups", group, name],
                   check=True)
    home = pwd.getpwnam(name).pw_dir
    os.chmod(home, 0o700)
    subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True)


def remove(name, timeout=30):
    """Kill the user's processes, wait until they are gone (userdel refuses a user
    still running one), and remove the user and their home."""
    check_name(name)
    deadline, refused = time.monotonic() + timeout, ""
    while exists(name):
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
        if subprocess.run(["pgrep", "-u", name], capture_output=True).returncode != 0:
            refused = subprocess.run(["userdel", "--remove", name], capture_output=True,
                                     text=True).stderr.strip()
            if not exists(name):
                break
        if time.monotonic() > deadline:
            running = subprocess.run(["pgrep", "-l", "-u", name], capture_output=True,
                                     text=True).stdout.split()
            raise RuntimeError(f"could not remove user {name!r}"
                               + (f": still running {' '.join(running)}" if running else
                                  f": {refused}"))
        time.sleep(0.2)


def remove_groups(course):
    """Remove the students' group once no account is left in it. The instructors'
    group stays: it owns the instructor's environment (install.sh), and a group
    made later could otherwise be given its number and with it read access."""
    for group in (f"{course}-students",):
        entry = subprocess.run(["getent", "group", group], capture_output=True, text=True)
        if entry.returncode == 0 and not entry.stdout.strip().split(":")[-1]:
            subprocess.run(["groupdel", group], capture_output=True)


def create_all(instructors, students, passwords_file, course):
    for name in instructors + students:
        check_name(name)
    ensure_group(f"{course}-instructors")
    ensure_group(f"{course}-students")
    passwords = {}
    for name in instructors:
        passwords[name] = secrets.token_urlsafe(12)
        create(name, f"{course}-instructors", passwords[name])
    for name in students:
        passwords[name] = secrets.token_urlsafe(12)
        create(name, f"{course}-students", passwords[name])
    fd = os.open(passwords_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(passwords, f, indent=1)
    return passwords


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    mk = sub.add_parser("create")
    mk.add_argument("--instructor", action="append", required=True)
    mk.add_argument("--students", required=True, help="comma-separated user names")
    mk.add_argument("--passwords", required=True, help="JSON file to write the passwords to")
    rm = sub.add_parser("remove")
    rm.add_argument("names", nargs="+")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        sys.exit("accounts.py must run as root (it calls useradd/userdel)")
    if args.command == "create":
        create_all(args.instructor, args.students.split(","), args.passwords)
    else:
        for name in args.names:
            remove(name)


if __name__ == "__main__":
    main()
