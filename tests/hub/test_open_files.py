"""The hub and its proxy get as many open files as the machine allows
(deploy/open_files.py, called by ``hub.py start`` before the hub starts): the
proxy's limit (Node raises its soft limit to the hard one it inherits) was 20,000
here, which one address's flood of connections filled; ``fs.nr_open`` (1,048,576
by default) takes hundreds of addresses at the proxy's cap per address. Played in
a process of its own, with ``fs.nr_open`` read from a folder standing for
/proc/sys: the limit is raised, soft and hard, and a process it starts (the hub,
and the proxy the hub starts) has it; where it cannot be, the reason is given."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"

PLAY = """
import resource, subprocess, sys
sys.path.insert(0, sys.argv[1])
import open_files
resource.setrlimit(resource.RLIMIT_NOFILE, (1024, int(sys.argv[3])))
print(open_files.raise_open_files(sys.argv[2]))
print(subprocess.run(["sh", "-c", "ulimit -Sn; ulimit -Hn"], capture_output=True,
                     text=True).stdout.split())
"""


def play(proc_sys, hard, **kwargs):
    done = subprocess.run([sys.executable, "-c", PLAY, str(DEPLOY), str(proc_sys), str(hard)],
                          capture_output=True, text=True, timeout=60, **kwargs)
    assert done.returncode == 0, done.stderr
    said, child = done.stdout.splitlines()
    return eval(said), eval(child)


@pytest.fixture
def proc_sys(tmp_path):
    (tmp_path / "fs").mkdir()
    (tmp_path / "fs" / "nr_open").write_text("30000\n")
    os.chmod(tmp_path, 0o755)
    return tmp_path


def may_raise_hard_limits():
    """Whether this process holds CAP_SYS_RESOURCE (root in a container may not)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> 24 & 1)
    return False


def test_the_hubs_open_files_are_raised_to_the_machines_most_or_why_not_said(proc_sys):
    (soft, hard, why), child = play(proc_sys, 20000)
    if may_raise_hard_limits():
        assert ((soft, hard, why), child) == ((30000, 30000, None), ["30000", "30000"])
    else:   # a container's root without CAP_SYS_RESOURCE (this machine): soft up to hard
        assert (soft, hard, child) == (20000, 20000, ["20000", "20000"])
        assert "the hard limit 20000 cannot be raised" in why, why


def test_where_nr_open_cannot_be_read_the_hard_limit_is_kept_and_why_said(tmp_path):
    (soft, hard, why), child = play(tmp_path / "missing", 20000)
    assert (soft, hard, child) == (20000, 20000, ["20000", "20000"])
    assert "nr_open cannot be read" in why, why
