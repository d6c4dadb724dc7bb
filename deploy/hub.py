"""Set up, start and stop a course hub on this server (run as root, with the hub's Python).

    python deploy/hub.py init STATE --instructor NAME (--students A,B | --students-file CSV)
                             [--exchange ngshare|folder]
                             [--exchange-root DIR] [--prefix /opt/kernel-course] [--port 8000]
                             [--db-url URL] [--gradebook-url URL] [--book DIR]
                             [--lti LTI_SETTINGS.json] [--front-proxy ADDRESS ...]
    python deploy/hub.py start STATE     # start JupyterHub; the first time, set up the course
    python deploy/hub.py stop STATE      # stop JupyterHub, its proxy, services and user servers
    python deploy/hub.py destroy STATE   # stop, remove the accounts and the STATE folder
    python deploy/hub.py lti-bind STATE ROSTER [--deployment ID]
                                         # bind the LTI accounts to the LMS's users before term

STATE is a folder of the hub's own, readable by root only (settings.json with
the database URLs, logs, the hub's and ngshare's databases, ngshare's files).
The shared folder exchange, when chosen, lives outside it (--exchange-root,
default nbgrader's /srv/nbgrader/exchange). ``init`` creates the Unix accounts
(their passwords go to STATE/passwords.json) and the settings;
``start`` runs JupyterHub with deploy/jupyterhub_config.py and, once, sets up
the course in the instructor's home (~/kernel-methods: the problem sets'
sources, the configuration, the Makefile, students.csv, a grading secret),
registers the students with their names, writes their variant codes (which the
spawner hands to each student's server), and generates and releases the first
problem set through the chosen exchange, with the course's own `make` steps.
"""

import argparse
import csv
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import accounts  # noqa: E402
import clients  # noqa: E402
import low_ports  # noqa: E402
import lti_login  # noqa: E402
import open_files  # noqa: E402
import roles  # noqa: E402
import server_limits  # noqa: E402

RELEASED = ["ps1"]


def hub_ports(port=None, *, within=low_ports.HUB_PORTS):
    """The ports of the hub and its services: {setting (low_ports.SETTINGS): port}.

    ``port``, the public port, is kept when given; every other is chosen within
    [low, high) of ``within`` (below 1024, so that only root may bind it, and apart
    from the users' servers' ports), free now, named by no service in
    /etc/services, not one browsers refuse, and no two alike. While one of these
    processes is down (a service that crashed and that the hub restarts, the hub
    restarted, the machine booting), no user's process can take its port and
    answer in its place. RuntimeError when too few ports are free."""
    wanted = [name for name in low_ports.SETTINGS if not (name == "port" and port)]
    held = []
    try:
        for name in wanted:
            listener = low_ports.listen_on_free_port(
                "127.0.0.1", *within, skip={port} | low_ports.BROWSER_REFUSED)
            if listener is None:
                raise RuntimeError(
                    f"only {len(held)} free port(s) in [{within[0]}, {within[1]}) named by "
                    f"no service in /etc/services nor refused by browsers; the hub needs "
                    f"{len(wanted)}")
            held.append(listener)
        chosen = {name: listener.getsockname()[1] for name, listener in zip(wanted, held)}
    finally:
        for listener in held:
            listener.close()
    return {**({"port": port} if port else {}), **chosen}


def load(state):
    return json.loads((Path(state) / "settings.json").read_text())


def read_students(path):
    """The students of a CSV file with the columns id,first_name,last_name,email
    (the course's students.csv): {id: [first_name, last_name]}."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    names = {}
    for number, row in enumerate(rows, start=2):
        if not row.get("id"):
            raise ValueError(f"{path}, line {number}: no id (the columns are "
                             "id,first_name,last_name,email)")
        names[row["id"]] = [row.get("first_name") or "", row.get("last_name") or ""]
    if not names:
        raise ValueError(f"{path}: no students")
    return names


def init(state, *, instructors, students, exchange="ngshare", prefix="/opt/kernel-course",
         port=None, db_url=None, gradebook_url=None, book=None, course_id=None,
         exchange_root="/srv/nbgrader/exchange", student_names=None, lti=None,
         front_proxies=()):
    """Write the hub's settings and make its accounts; ``course_id`` defaults to the
    course's own (as the students' environment of ``prefix`` has it);
    ``front_proxies``, the addresses of the trusted front proxies (the TLS front,
    deploy/README.md), whose clients the hub's limits count rather than the front."""
    state = Path(state).resolve()
    try:
        front_proxies = clients.front_proxies(front_proxies)
    except ValueError as exc:
        raise ValueError(f"--front-proxy: {exc}") from None
    # "lti": log in from the LMS (LTI 1.3) with the platform's settings of that file
    lti_settings = lti_login.load_lti_settings(lti) if lti else None
    if exchange not in ("ngshare", "folder"):
        raise ValueError(f"exchange must be 'ngshare' or 'folder', not {exchange!r}")
    if (state / "settings.json").exists():
        raise ValueError(f"{state} holds a hub already: destroy it first")
    for name in ("hub", "ngshare", "student", "instructor"):
        if not (Path(prefix) / name / "bin" / "python").exists():
            raise ValueError(f"prefix {prefix}: no {name} environment, run deploy/install.sh first")
    course_id = course_id or subprocess.run(
        # -I: the installed package, never a folder of that name where this runs
        [str(Path(prefix) / "student" / "bin" / "python"), "-I", "-c",
         "from coursecheck.problems import COURSE_ID; print(COURSE_ID)"],
        capture_output=True, text=True, check=True).stdout.strip()
    state.mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o700)   # database URLs, tokens, ngshare's files: root's alone
    settings = {
        "state_dir": str(state), "prefix": str(Path(prefix).resolve()), "course_id": course_id,
        "instructors": list(instructors), "students": list(students), "exchange": exchange,
        "exchange_root": str(Path(exchange_root).resolve()), "db_url": db_url,
        "gradebook_url": gradebook_url,
        "book_dir": str(Path(book or REPO / "_build" / "html").resolve()),
        **hub_ports(port),
        "course_dirs": {},
        "student_names": {s: list((student_names or {}).get(s, ["", ""])) for s in students},
        "auth": "lti" if lti_settings else "pam", "lti": lti_settings,
        "front_proxies": front_proxies,
    }
    accounts.create_all(list(instructors), list(students), str(state / "passwords.json"),
                        course=course_id)
    for name in instructors:
        settings["course_dirs"][name] = os.path.join(pwd.getpwnam(name).pw_dir, course_id)
    fd = os.open(state / "setup_token", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
    fd = os.open(state / "settings.json", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(settings, f, indent=1)
    return settings


def hub_url(settings):
    return f"http://127.0.0.1:{settings['port']}"


#: hub.log is kept to LOG_FILES files (hub.log, hub.log.1, ...) of at most LOG_BYTES
#: bytes each (log_writer.py): 500 MB in all.
LOG_BYTES = 100 * 1000**2
LOG_FILES = 5


def start(state, timeout=120):
    settings = load(state)
    state = Path(settings["state_dir"])
    pid_file = state / "hub-process.pid"
    if pid_file.exists() and _alive(int(pid_file.read_text())):
        raise RuntimeError(f"the hub of {state} runs already (pid {pid_file.read_text().strip()})")
    env = {"PATH": f"{settings['prefix']}/hub/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "LANG": "C.UTF-8", "KERNEL_COURSE_SETTINGS": str(state / "settings.json")}
    # the hub, its proxy, its services and the users' servers print to hub.log,
    # through a writer that keeps it to LOG_FILES files of LOG_BYTES (log_writer.py)
    writer = subprocess.Popen([sys.executable, str(HERE / "log_writer.py"), str(state / "hub.log"),
                               "--max-bytes", str(LOG_BYTES), "--files", str(LOG_FILES)],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              # nothing of this command's own output: whoever waits
                              # for it to end (its caller reading it) is not kept
                              # waiting for the hub's
                              stderr=subprocess.DEVNULL,
                              env={"PATH": env["PATH"], "LANG": "C.UTF-8"},
                              start_new_session=True)
    log = writer.stdin
    # before the hub starts: it and the proxy it starts inherit the limit
    soft, hard, why = open_files.raise_open_files()
    log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} open files (RLIMIT_NOFILE) of the hub "
              f"and its proxy: {soft} (soft), {hard} (hard)".encode()
              + (f"; NOT the machine's most (fs.nr_open): {why}\n" if why else
                 ", the machine's most (fs.nr_open)\n").encode())
    log.flush()
    try:
        proc = subprocess.Popen([f"{settings['prefix']}/hub/bin/jupyterhub",
                                 "-f", str(HERE / "jupyterhub_config.py")],
                                cwd=state, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    finally:
        log.close()   # the writer ends once the hub and all it started have ended
    pid_file.write_text(str(proc.pid))
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterHub exited (status {proc.returncode}); see {state / 'hub.log'}")
        try:
            if requests.get(hub_url(settings) + "/hub/health", timeout=5).ok:
                break
        except requests.ConnectionError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"JupyterHub did not answer in {timeout} s; see {state / 'hub.log'}")
        time.sleep(1)
    if not (state / "course-ready").exists():
        set_up_course(settings)
        (state / "course-ready").write_text("yes\n")
    return settings


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def _ours(settings):
    """The processes of this hub: itself, its proxy and its services.

    Each runs with ``KERNEL_COURSE_SETTINGS`` naming this hub's settings (the
    proxy inherits the hub's environment, the services are given it in
    jupyterhub_config.py), in sessions of their own; nothing else here does.
    """
    marker = f"KERNEL_COURSE_SETTINGS={Path(settings['state_dir']) / 'settings.json'}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def stop(state, timeout=60):
    """Stop the hub; also what a hub killed without stopping left running."""
    settings = load(state)
    pid_file = Path(settings["state_dir"]) / "hub-process.pid"
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text())
    hub_alive = pid in _ours(settings)
    if hub_alive:
        os.kill(pid, signal.SIGTERM)   # the hub stops the proxy, services and user servers
        deadline = time.monotonic() + timeout
        while pid in _ours(settings) and time.monotonic() < deadline:
            time.sleep(0.5)
    # Whatever is left: the proxy and the services outlive a hub that was
    # killed (kill -9, the OOM killer) without a chance to stop them.
    for left in _ours(settings):
        try:
            os.kill(left, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if not hub_alive:   # nor could it stop the user servers, each in a session of its own
        for name in settings["instructors"] + settings["students"]:
            if accounts.exists(name):
                subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
    # each server's cgroups (spawner.py), which a killed hub leaves behind
    for name in settings["instructors"] + settings["students"]:
        server_limits.remove_all(name)
    pid_file.unlink(missing_ok=True)


def destroy(state):
    settings = load(state)
    stop(state)
    for name in settings["instructors"] + settings["students"]:
        accounts.remove(name)
    accounts.remove_groups(settings["course_id"])
    if settings["exchange"] == "folder":   # the course's folder in the exchange, not its root
        shutil.rmtree(Path(settings["exchange_root"]) / settings["course_id"], ignore_errors=True)
        try:   # and the root too, when the demo made it and nothing else is in it
            Path(settings["exchange_root"]).rmdir()
        except OSError:
            pass
    shutil.rmtree(settings["state_dir"])


# -- the course ---------------------------------------------------------------
def run_as(settings, name, argv, cwd=None, extra_env=None):
    """Run ``argv`` as Unix user ``name`` with the environment of their server."""
    user = pwd.getpwnam(name)
    env = dict(roles.user_environment(settings, name), HOME=user.pw_dir, USER=name,
               LOGNAME=name, LANG="C.UTF-8", JUPYTERHUB_USER=name, **(extra_env or {}))
    # with the user's groups, as the hub's spawner starts their server (the
    # instructors' group opens the instructor's environment)
    groups = os.getgrouplist(name, user.pw_gid)
    return subprocess.run(argv, cwd=cwd or user.pw_dir, env=env, user=user.pw_uid,
                          group=user.pw_gid, extra_groups=groups, capture_output=True,
                          text=True)


def api_token(settings, name, note="course set-up"):
    """A short-lived hub API token of ``name`` (made by the course-setup service)."""
    setup = (Path(settings["state_dir"]) / "setup_token").read_text().strip()
    r = requests.post(f"{hub_url(settings)}/hub/api/users/{name}/tokens",
                      headers={"Authorization": f"token {setup}"},
                      json={"note": note, "expires_in": 3600}, timeout=30)
    r.raise_for_status()
    return r.json()["token"]


def ngshare_request(settings, token, method, path, **data):
    url = f"{hub_url(settings)}/services/ngshare/{path}"
    r = requests.request(method, url, headers={"Authorization": f"token {token}"},
                         data=data, timeout=60)
    body = r.json()
    if not body.get("success"):
        raise RuntimeError(f"ngshare {method} {path}: {body.get('message', r.text)}")
    return body


def set_up_course(settings):
    course_id = settings["course_id"]
    instructor = settings["instructors"][0]
    user = pwd.getpwnam(instructor)
    root = Path(settings["course_dirs"][instructor])
    names = settings.get("student_names", {})
    # the course folder, the instructor's alone
    if not root.exists():
        (root / "source").mkdir(parents=True)
        shutil.copy(REPO / "assignments" / "nbgrader_config.py", root / "nbgrader_config.py")
        shutil.copy(REPO / "assignments" / "Makefile", root / "Makefile")
        with open(root / "students.csv", "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(["id", "first_name", "last_name", "email"])
            for student in settings["students"]:
                out.writerow([student, *names.get(student, ["", ""]), ""])
        for ps in sorted((REPO / "assignments" / "source").iterdir()):
            shutil.copytree(ps, root / "source" / ps.name,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        # the problem definitions: the public half (also installed with the
        # course's packages) and the hidden half, which only this folder holds
        for folder in ("problems", "hidden"):
            shutil.copytree(REPO / "assignments" / folder, root / folder,
                            ignore=shutil.ignore_patterns("__pycache__"))
        (root / ".grader_secret").write_text(secrets.token_hex(32) + "\n")
        for path in [root, *root.rglob("*")]:
            os.chown(path, user.pw_uid, user.pw_gid)
        os.chmod(root, 0o700)
        os.chmod(root / ".grader_secret", 0o600)
    extra = {}
    if settings["exchange"] == "folder":
        # nbgrader's exchange: a root everyone may enter, the course's folder made
        # here and owned by the instructor, so no student can take its name first
        exchange = Path(settings["exchange_root"])
        exchange.mkdir(parents=True, exist_ok=True)
        os.chmod(exchange, 0o1777)
        (exchange / course_id).mkdir(exist_ok=True)
        os.chown(exchange / course_id, user.pw_uid, user.pw_gid)
        os.chmod(exchange / course_id, 0o755)
    else:
        token = api_token(settings, instructor)
        extra["JUPYTERHUB_API_TOKEN"] = token
        if course_id not in ngshare_request(settings, token, "GET", "courses")["courses"]:
            ngshare_request(settings, token, "POST", f"course/{course_id}",
                            instructors=json.dumps([instructor]))
        for student in settings["students"]:
            first, last = names.get(student, ["", ""])
            ngshare_request(settings, token, "POST", f"student/{course_id}/{student}",
                            first_name=first, last_name=last, email="")
    # the course's own steps (its Makefile, with the instructor's environment on PATH):
    # problem sets and students (with their names) into the gradebook, each student's
    # variant code (which the spawner hands to their server, so that their notebooks
    # show their own variants from the first fetch), psN.ipynb from psN.md and the
    # student version, then the release
    ps = "PS=" + " ".join(RELEASED)
    steps = [["make", "db", ps], ["make", "variant_codes"], ["make", "generate", ps],
             ["make", "release", ps]]
    for step in steps:
        done = run_as(settings, instructor, step, cwd=root, extra_env=extra)
        if done.returncode:
            raise RuntimeError(f"{' '.join(step)} as {instructor} failed:\n"
                               f"{done.stdout}\n{done.stderr}")


def lti_bind(settings, roster, deployment=None):
    """``hub.py lti-bind``: the accounts bound to the LMS's users of ``roster``;
    the exit status (0: every row bound, 1: some listed, 2: nothing done)."""
    if settings.get("auth") != "lti":
        print("error: this hub logs in with the Unix password, not LTI", file=sys.stderr)
        return 2
    record = lti_login.LaunchRecord(Path(settings["state_dir"]) / lti_login.RECORD_FILE)
    try:
        bound, already, absent, problems = lti_login.prebind(settings, roster, record,
                                                             deployment)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        record.close()
    for line in problems:
        print(line, file=sys.stderr)
    print(f"bound {len(bound)} account(s) to their LMS users"
          + (f" ({', '.join(bound)})" if bound else "")
          + f"; {len(already)} were bound to them already"
          + (f"; {len(problems)} row(s) not bound, listed above" if problems else ""))
    if absent:
        print(f"in the LMS course, with no account here: {', '.join(absent)}")
    unbound = sorted((set(settings["students"]) | set(settings["instructors"]))
                     - set(bound) - set(already))
    if unbound:
        print(f"not bound yet (bound at their first launch): {', '.join(unbound)}")
    return 1 if problems else 0


def _front_proxy(text):
    """``--front-proxy``'s value, checked (clients.front_proxies)."""
    try:
        return clients.front_proxies([text])[0]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("init")
    p.add_argument("state")
    p.add_argument("--instructor", action="append", required=True)
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--students", help="comma-separated user names")
    who.add_argument("--students-file", help="CSV file with the columns "
                     "id,first_name,last_name,email (id: the user name)")
    p.add_argument("--exchange", default="ngshare", choices=["ngshare", "folder"])
    p.add_argument("--prefix", default=os.environ.get("KERNEL_COURSE_PREFIX", "/opt/kernel-course"))
    p.add_argument("--port", type=int, default=None,
                   help="public port (default: a free one below 100, which only root may "
                   "bind; a port of 1024 or above is one any user's process could take "
                   "while the proxy is down)")
    p.add_argument("--exchange-root", default="/srv/nbgrader/exchange",
                   help="the folder exchange's root (with --exchange folder)")
    p.add_argument("--db-url", default=None, help="the hub's database (default: SQLite in STATE)")
    p.add_argument("--gradebook-url", default=None,
                   help="the gradebook's database (default: SQLite in the course folder)")
    p.add_argument("--book", default=None, help="built book folder (default: _build/html)")
    p.add_argument("--lti", default=None, metavar="JSON",
                   help="log in from the LMS with LTI 1.3, the platform's settings in "
                   "this file (deploy/README.md); default: the Unix password")
    p.add_argument("--front-proxy", action="append", default=[], metavar="ADDRESS",
                   type=_front_proxy,
                   help="the address a trusted front proxy (nginx terminating TLS, "
                   "deploy/nginx-course.conf) connects to the public port from; the "
                   "hub's limits per client then count the client it names in "
                   "X-Forwarded-For, not the front (repeatable; deploy/README.md)")
    for name in ("start", "stop", "destroy"):
        sub.add_parser(name).add_argument("state")
    p = sub.add_parser("run-as", help="run a command as a course user, with their server's "
                       "environment (e.g. nbgrader as the instructor)")
    p.add_argument("state")
    p.add_argument("name")
    p.add_argument("argv", nargs=argparse.REMAINDER)
    p = sub.add_parser("token", help="print a new hub API token of a course user (1 hour)")
    p.add_argument("state")
    p.add_argument("name")
    p = sub.add_parser("lti-bind", help="bind each hub account to its LMS user (issuer, "
                       "deployment, sub) from the LMS's roster, before their first launch")
    p.add_argument("state")
    p.add_argument("roster", help="the LMS's members (make lti_roster's lti-roster.json, "
                   "or a CSV file with the columns user_id,sis_id)")
    p.add_argument("--deployment", default=None,
                   help="the deployment the roster is from (if the hub has several)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        sys.exit("hub.py must run as root (it creates accounts and starts servers as their users)")
    if args.command == "init":
        names = read_students(args.students_file) if args.students_file else {}
        students = list(names) if names else args.students.split(",")
        s = init(args.state, instructors=args.instructor, students=students,
                 student_names=names,
                 exchange=args.exchange, prefix=args.prefix, port=args.port,
                 db_url=args.db_url, gradebook_url=args.gradebook_url, book=args.book,
                 exchange_root=args.exchange_root, lti=args.lti,
                 front_proxies=args.front_proxy)
        print(f"hub settings in {s['state_dir']}/settings.json, passwords in "
              f"{s['state_dir']}/passwords.json")
        if s["port"] >= 1024:
            print(f"note: the public port {s['port']} is 1024 or above: while the proxy is "
                  "down, any user's process could listen on it and answer for the hub "
                  "(deploy/README.md)", file=sys.stderr)
    elif args.command == "start":
        lowest = low_ports.unprivileged_start()
        if lowest is not None and lowest < 1024:
            print(f"warning: net.ipv4.ip_unprivileged_port_start is {lowest}: any user's "
                  "process may bind the ports of the hub, its services and users' servers "
                  "from there on (deploy/README.md); set it to 1024", file=sys.stderr)
        for setting, raised, largest, what, bound in (
                ("fs.file-max", server_limits.raise_file_max, server_limits.FILE_MAX,
                 "table of open files", "open files are bounded by her memory cgroup"),
                ("kernel.pid_max", server_limits.raise_pid_max, server_limits.PID_MAX,
                 "process ids", "processes are bounded by her pids cgroup")):
            before, now, why = raised()
            if why is not None:
                print(f"warning: {setting} stays {before}: {why}. One student's processes "
                      f"may then use up the machine's {what}, after which no one else's "
                      "can (deploy/README.md); raise it with sysctl "
                      f"{setting}={largest}", file=sys.stderr)
            elif now != before:
                print(f"{setting} raised from {before} to {now}: each student's {bound}, "
                      "not by the machine's")
        s = start(args.state)
        print(f"JupyterHub at {hub_url(s)}/ (book at {hub_url(s)}/services/book/)")
    elif args.command == "run-as":
        s = load(args.state)
        argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
        done = run_as(s, args.name, argv)
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        sys.exit(done.returncode)
    elif args.command == "token":
        print(api_token(load(args.state), args.name))
    elif args.command == "lti-bind":
        sys.exit(lti_bind(load(args.state), args.roster, args.deployment))
    else:
        {"stop": stop, "destroy": destroy}[args.command](args.state)


if __name__ == "__main__":
    main()
