"""The sandbox's own seams: descriptors, the grader's pipe, memory per run, /tmp.

Each attack is written as a student would write it in an answer cell; the
test asserts the score it gets and that an honest classmate's grade is the
same as without it.
"""

import json
import os
import subprocess
import venv
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from attacks import forged_part
from coursegrader import sandbox
from coursegrader.judging.judge import PartSession, grade_part, run_part
from grading import ps1_variant

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(sandbox.probe() != "", reason="no bubblewrap sandbox here")]

REPO = Path(__file__).resolve().parents[2]
#: the reference answer to ps1's part 3, which reads the variant ``V``
RIGHT = "import numpy as np\n\n" + ps1_variant.solution("kernel_verdicts") + "\n"

DESCRIPTORS = """
import os

def f(x):
    here = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    held = {}
    for name in os.listdir(here):
        try:
            if int(name) != here:
                held[int(name)] = os.readlink(name, dir_fd=here).split(":")[0]
        except FileNotFoundError:   # the listing's own descriptor, closed since
            pass
    # the runner's descriptors, through a folder descriptor the audit hook cannot follow
    me = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY)
    reached = []
    for target in (f"../{os.getppid()}/fd/0", f"../{os.getppid()}/fd/2",
                   f"../{os.getppid()}/environ"):
        try:
            os.close(os.open(target, os.O_RDONLY, dir_fd=me))
            reached.append(target)
        except OSError:
            pass
    return [sorted(held.items()), reached]
"""

# An answer that, on its last case, answers it on the channel itself, writes a
# forged part into the runner's input and leaves: the forged "part" would read
# the next part's header and cases and answer them.
INJECT = RIGHT + forged_part(["import sys\nsys.stdin.buffer.readline()\n"
                              "def is_kernel(name):\n    return True"], "is_kernel")


def test_a_part_holds_only_its_own_descriptors_and_none_of_the_runners():
    (ok, (held, reached)), = run_part([DESCRIPTORS], "f", [(1,)], timeout=30).values
    assert ok, held
    # stdin (the grader's pipe), /dev/null twice and its own answer channel
    kinds = [kind for _, kind in held]
    assert kinds == ["pipe", "/dev/null", "/dev/null", "pipe"], held
    assert [fd for fd, _ in held][:3] == [0, 1, 2]
    assert reached == []


def test_a_part_that_writes_into_the_graders_pipe_gets_nothing():
    # each student's part 3 on their own variant, V defined above the answer
    part = {s: ps1_variant.part("k", s, "kernel_verdicts") for s in ("s1", "s2")}
    above = {s: ps1_variant.above_answers("k", s) for s in ("s1", "s2")}
    honest_alone = grade_part("ps1", "kernel_verdicts", part["s2"], above["s2"] + [RIGHT],
                              student="s2", secret="k")
    assert honest_alone.score == 2
    with PartSession() as session:
        attack = grade_part("ps1", "kernel_verdicts", part["s1"], above["s1"] + [INJECT],
                            student="s1", secret="k", session=session)
        after = grade_part("ps1", "kernel_verdicts", part["s1"], above["s1"] + [RIGHT],
                           student="s1", secret="k", session=session)
    # every answer was right, but the part wrote into the grader's input
    assert attack.score == 0 and "grader's input channel" in attack.report
    # the next part of the same submission runs its own cells, not the forged ones
    assert after.score == 2
    honest_again = grade_part("ps1", "kernel_verdicts", part["s2"], above["s2"] + [RIGHT],
                              student="s2", secret="k")
    assert (honest_again.score, honest_again.report) == (honest_alone.score,
                                                         honest_alone.report)


# A notebook cell that starts processes, each well under the per-process
# address-space limit, that together hold more than the run may.
HOARD = """
import os, time
pids = []
for _ in range({n}):
    pid = os.fork()
    if pid == 0:
        block = bytearray({mb} * 2**20)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(3)
        os._exit(0)
    pids.append(pid)
codes = [os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids]
print("EXIT", codes)
"""


def _kernel_run(policy, cell):
    run = sandbox.start(policy, sandbox.KERNEL_RUNNER)
    try:
        request = {"cells": [cell], "cell_timeout": 60, "budget": 90,
                   "output_bytes": 10**5}
        run.proc.stdin.write(json.dumps(request).encode())
        run.proc.stdin.close()
        answer = json.loads(run.proc.stdout.read(10**6) or b"{}")
    finally:
        sandbox.stop(run)
    text = "".join(o.get("text", "") for c in answer.get("cells", [])
                   for o in c["outputs"])
    return text, answer.get("stopped")


@pytest.mark.skipif("memory cgroup" not in sandbox.run_caps(),
                    reason="no memory cgroup can be made here")
def test_memory_is_capped_per_run_not_only_per_process():
    policy = replace(sandbox.KERNEL, run_memory_bytes=600 * 2**20)
    assert "memory capped by a memory cgroup per run" in sandbox.describe("bubblewrap")
    # an honest notebook: two helpers of 100 MB each finish
    text, stopped = _kernel_run(policy, HOARD.format(n=2, mb=100))
    assert stopped is None and "EXIT [0, 0]" in text, (text, stopped)
    # eight helpers of 200 MB: 1.6 GB in all, under 8 GB each, over 600 MB per run
    text, stopped = _kernel_run(policy, HOARD.format(n=8, mb=200))
    assert "EXIT [0, 0, 0, 0, 0, 0, 0, 0]" not in text, text
    assert stopped is not None or "-9" in text, (text, stopped)


def test_the_log_says_how_processes_and_memory_are_capped():
    line = sandbox.describe("bubblewrap")
    assert "process count capped by" in line and "memory capped by" in line
    caps = sandbox.run_caps()
    assert ("a memory cgroup per run" in caps) or ("RLIMIT_AS per process only" in caps)


def test_a_grader_environment_under_tmp_grades(tmp_path):
    """A virtual environment made under /tmp: the sandbox's /tmp must not hide it."""
    assert str(tmp_path).startswith("/tmp/")
    env = tmp_path / "grader-env"
    venv.create(env, system_site_packages=True, with_pip=False, symlinks=True)
    site = next(env.glob("lib/python3*/site-packages"))
    numpy_dir = Path(np.__file__).parent
    for entry in numpy_dir.parent.iterdir():   # numpy, its libraries and its metadata
        if entry.name.split("-")[0].split(".")[0] == "numpy":
            (site / entry.name).symlink_to(entry)
    script = ("from coursegrader.judging.judge import run_part\n"
              "from coursegrader import sandbox\n"
              "print(repr(sandbox.probe()))\n"
              "res = run_part(['import numpy as np, sys\\ndef f(x):\\n"
              "    return [float(np.sum(x)), sys.prefix]'], 'f', [([1.0, 2.0],)],\n"
              "                  timeout=60)\n"
              "print(res.values)\n")
    pythonpath = str(REPO)
    out = subprocess.run([str(env / "bin" / "python"), "-c", script],
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": pythonpath})
    assert out.returncode == 0, out.stderr[-2000:]
    probe, values = out.stdout.splitlines()[-2:]
    assert probe == "''", probe
    assert values == repr([(True, [3.0, str(env)])]), values


DIR_FD = """
import os

def f(kind):
    usr = os.open("/usr", os.O_RDONLY | os.O_DIRECTORY)
    try:
        if kind == "mkdir":
            os.mkdir("planted", dir_fd=usr)
        elif kind == "rename":
            open("mine.txt", "w").close()
            os.rename("mine.txt", "planted", dst_dir_fd=usr)
        elif kind == "here":
            os.mkdir("mine", dir_fd=os.open(".", os.O_RDONLY | os.O_DIRECTORY))
        return "done"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
"""


def test_the_audit_hook_judges_a_path_by_the_folder_its_dir_fd_names():
    kinds = ["mkdir", "rename", "here"]
    res = run_part([DIR_FD], "f", [(k,) for k in kinds], timeout=30).values
    got = dict(zip(kinds, (value for _, value in res)))
    # outside the part's folder: the hook's own message, not a later OS error
    refused = "Forbidden: {} on planted is not allowed in graded code"
    assert got["mkdir"] == refused.format("os.mkdir")
    assert got["rename"] == refused.format("os.rename")
    # its own folder, named by a descriptor, is still its own
    assert got["here"] == "done"


def test_no_distribution_of_a_forbidden_module_is_mounted_whatever_its_name():
    """The sandbox leaves out every installed distribution that installs a module
    graded code may not import -- scikit-learn, nbgrader and the course's own,
    found by what they install, not by a name written down."""
    import importlib.metadata
    import re
    import sysconfig

    from coursecheck.policy import FORBIDDEN_IMPORTS
    from coursegrader.sandbox import mounts

    site = sysconfig.get_paths()["purelib"]
    left_out = mounts.forbidden_distributions(site)
    installers = importlib.metadata.packages_distributions()
    for module in ("kernlab", "coursecheck", "coursegrader", "sklearn", "nbgrader"):
        assert module in FORBIDDEN_IMPORTS
        for name in installers[module]:
            assert re.sub(r"[-_.]+", "-", name).lower() in left_out, (module, name)
    assert not left_out & {"numpy", "scipy", "cvxpy"}
