"""A class submitting at once through ngshare while the instructor collects.

Used by the hub test (correctness) and by benchmarks/bench_hub_load.py
(timings); run as root with the hub's Python, against a hub made by hub.py
with ngshare as its exchange. The students are threads of one process of the
students' environment; each submits with ngshare_exchange's own submit class
(what ``nbgrader submit`` runs on the hub, without the notebook's validation)
and their own hub token; the notebook carries a marker naming the student,
the round and the version, so the collected copy shows whose it is and which
one. A submission that fails (the hub restarting) is tried again until it goes
in or the round's deadline passes. Meanwhile the instructor runs
``nbgrader collect --update`` in a loop, and once more after the round.
"""

import base64
import json
import math
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import hub  # noqa: E402

MARKER = "kernel_course_load"
ASSIGNMENT = "ps1"

# The class, run with the students' environment's Python: one thread per student,
# whose requests carry that student's hub token (ngshare_exchange takes the token
# from the process's environment, the same for every thread, so the requests are
# given it here) and give up after 30 seconds, as a student would, to try again.
CLASS = r"""
import json, os, sys, threading, time
import requests
from traitlets.config import Config
from nbgrader.coursedir import CourseDirectory
from nbgrader.auth import Authenticator
import nbformat
import ngshare_exchange
from ngshare_exchange.submit import ExchangeSubmit

url, course, work, template, schedule, deadline = sys.argv[1:7]
schedule, deadline = json.loads(schedule), float(deadline)
me = threading.local()
plain_request = requests.request

def request(method, address, headers=None, **kwargs):
    kwargs.setdefault("timeout", 30)
    return plain_request(method, address, **kwargs,
                         headers={"Authorization": "token " + me.token})

requests.request = request
c = Config()
ngshare_exchange.configureExchange(c, url)
c.CourseDirectory.course_id = course
c.CourseDirectory.assignment_id = "ps1"
done = []

def student(name, token, jobs):
    me.token = token
    folder = os.path.join(work, name)
    os.makedirs(os.path.join(folder, "ps1"), exist_ok=True)
    for job in jobs:
        time.sleep(max(0.0, job["at"] - time.time()))
        nb = nbformat.read(template, as_version=4)
        nb.metadata["kernel_course_load"] = job["marker"]
        nbformat.write(nb, os.path.join(folder, "ps1", "ps1.ipynb"))
        attempts, failures, first = 0, [], time.monotonic()
        while True:
            attempts += 1
            started = time.monotonic()
            submit = ExchangeSubmit(coursedir=CourseDirectory(config=c),
                                    authenticator=Authenticator(config=c), config=c)
            submit.assignment_dir = folder
            submit.cache = os.path.join(folder, "cache")
            try:
                submit.start()
                stamp = getattr(submit, "timestamp", None)
            except Exception as e:   # nbgrader's ExchangeError, a refused connection
                stamp, failures = None, failures + [f"{type(e).__name__}: {e}"[:200]]
            seconds = time.monotonic() - started
            if stamp or time.time() > deadline:
                break
            time.sleep(1)
        done.append(dict(job, timestamp=stamp, seconds=seconds, attempts=attempts,
                         waited=time.monotonic() - first, failures=failures[-3:]))

threads = [threading.Thread(target=student, args=(name, token, jobs))
           for name, (token, jobs) in schedule.items()]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(done))
"""


def released_notebook(settings, token, dest):
    """ps1 as released in ngshare, written to ``dest``."""
    course = settings["course_id"]
    files = hub.ngshare_request(settings, token, "GET",
                                f"assignment/{course}/{ASSIGNMENT}")
    for f in files["files"]:
        if f["path"] == f"{ASSIGNMENT}.ipynb":
            Path(dest).write_bytes(base64.b64decode(f["content"]))
            return dest
    raise RuntimeError(f"ngshare holds no {ASSIGNMENT}.ipynb of {course}")


def collect(settings, teacher_token):
    """``nbgrader collect --update ps1`` as the instructor; (status, output)."""
    teacher = settings["instructors"][0]
    done = hub.run_as(settings, teacher,
                      ["nbgrader", "collect", "--update", ASSIGNMENT],
                      cwd=settings["course_dirs"][teacher],
                      extra_env={"JUPYTERHUB_API_TOKEN": teacher_token})
    return done.returncode, done.stdout + done.stderr


def collected(settings):
    """{student: (marker, timestamp)} of what the instructor's course folder holds."""
    root = Path(settings["course_dirs"][settings["instructors"][0]]) / "submitted"
    found = {}
    for folder in sorted(root.glob(f"*/{ASSIGNMENT}")):
        nb = json.loads((folder / f"{ASSIGNMENT}.ipynb").read_text())
        stamp = (folder / "timestamp.txt").read_text().strip()
        found[folder.parent.name] = (nb["metadata"].get(MARKER), stamp,
                                     sorted(p.name for p in folder.iterdir()))
    return found


def latest_in_ngshare(settings, teacher_token):
    """{student: (number of submissions, latest timestamp)} as ngshare lists them."""
    course = settings["course_id"]
    subs = hub.ngshare_request(settings, teacher_token, "GET",
                               f"submissions/{course}/{ASSIGNMENT}")["submissions"]
    out = {}
    for sub in subs:
        count, stamp = out.get(sub["student_id"], (0, ""))
        out[sub["student_id"]] = (count + 1, max(stamp, sub["timestamp"]))
    return out


def run_round(settings, state, work, *, round_no, twice=(), window=45.0, lead=25.0,
              restart_at=None, deadline=240.0, seed=0):
    """One round: every student submits once within ``window`` seconds (those in
    ``twice`` a second time a few seconds later), starting ``lead`` seconds from
    now (the students' process starts meanwhile); the instructor collects all
    along. With ``restart_at`` (seconds into the window) the hub is stopped and
    started again then. Returns the students' records, the collects' statuses and the
    final collect's output."""
    rng = random.Random(seed + round_no)
    students = settings["students"]
    teacher = settings["instructors"][0]
    tokens = {name: hub.api_token(settings, name, note="class load")
              for name in [teacher, *students]}
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    template = released_notebook(settings, tokens[students[0]], work / "released.ipynb")
    url = f"{hub.hub_url(settings)}/services/ngshare"
    python = os.path.join(settings["prefix"], "student", "bin", "python")
    start = time.time() + lead
    end = start + deadline

    schedule = {}
    for name in students:
        first = start + rng.uniform(0, window)
        schedule[name] = [{"student": name, "version": 1, "at": first,
                           "marker": f"{name} round {round_no} version 1"}]
        if name in twice:
            schedule[name].append({"student": name, "version": 2,
                                   "at": first + rng.uniform(2, 8),
                                   "marker": f"{name} round {round_no} version 2"})

    folder = work / f"round{round_no}"
    folder.mkdir(parents=True, exist_ok=True)
    # ngshare_exchange reads USER when imported (the name it gives the local cache)
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(folder),
           "USER": "class"}
    plan = {name: (tokens[name], jobs) for name, jobs in schedule.items()}
    students_run = subprocess.Popen(
        [python, "-c", CLASS, url, settings["course_id"], str(folder), str(template),
         json.dumps(plan), str(end)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=folder)

    collects, stop = [], threading.Event()

    def instructor():
        while not stop.is_set():
            collects.append(collect(settings, tokens[teacher])[0])
            stop.wait(2)

    grader = threading.Thread(target=instructor)
    try:
        time.sleep(max(0.0, start - time.time()))
        grader.start()
        if restart_at is not None:
            time.sleep(max(0.0, start + restart_at - time.time()))
            restart(settings, state)
        out, err = students_run.communicate(timeout=deadline + 300)
    finally:
        students_run.kill()
        stop.set()
        if grader.is_alive():
            grader.join()
    if students_run.returncode:
        raise RuntimeError(f"the students' process failed:\n{err[-3000:]}")
    records = json.loads(out.strip().splitlines()[-1])
    status, output = collect(settings, tokens[teacher])
    if status:
        raise RuntimeError(f"the final collect failed:\n{output}")
    return {"records": records, "collects": collects, "final_collect": output,
            "teacher_token": tokens[teacher]}


def hub_py(prefix, *args):
    """``deploy/hub.py ARGS`` with the hub's own Python, as an administrator runs it."""
    done = subprocess.run([os.path.join(prefix, "hub", "bin", "python"),
                           str(HERE / "hub.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=900,
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                               "LANG": "C.UTF-8"})
    if done.returncode:
        raise RuntimeError(f"hub.py {' '.join(map(str, args))}:\n"
                           f"{done.stdout}{done.stderr}")


def restart(settings, state):
    """Stop the hub (its proxy and services, ngshare with them) and start it again."""
    hub_py(settings["prefix"], "stop", state)
    hub_py(settings["prefix"], "start", state)


def percentile(values, q):
    """The ``q``-th percentile (0-100) of ``values``, by the nearest rank."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile: no values")
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]
