"""The cgroups and the IPC namespace the hub's spawner puts each user's server in
(deploy/server_limits.py): memory, processes and CPU capped for the server and
everything it starts, the CPU shared between servers rather than processes, groups its user cannot write, nothing left running once
the hub removes them, nothing left in shared memory however deep, socket buffers
charged to her group, and a machine's table of open files she cannot fill.  As
root, as the hub runs, with the machine's own cgroups (v1 or v2); no hub starts
here (tests/hub/test_hub_server_limits.py plays it on one)."""

import ctypes
import importlib.util
import os
import pwd
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attacks import SYSV_SEGMENT

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
_spec = importlib.util.spec_from_file_location("server_limits", DEPLOY / "server_limits.py")
server_limits = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(server_limits)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the hub runs as root")

USER = f"khlimits{os.getpid()}"
NOBODY = pwd.getpwnam("nobody")
#: A Python that ``nobody`` may run (the tests' own may be in a folder closed to it).
SYSTEM_PYTHON = "/usr/bin/python3"


@pytest.fixture
def groups():
    made, missing = server_limits.make(USER, 128 * 1024**2, 24)
    if not {"memory", "pids"} <= set(made):
        pytest.skip(f"no memory and pids cgroups here: {missing}")
    yield made
    server_limits.remove_all(USER)


#: Another server's user, for the groups a classmate's server gets.
CLASSMATE = f"khlimitsb{os.getpid()}"


@pytest.fixture
def cpu_groups():
    """{user: groups} of two servers: USER's capped at one CPU, CLASSMATE's with no
    cap (each with the weight of every server)."""
    if "cpu" not in server_limits.bases():
        pytest.skip("no cgroup hierarchy offers the cpu controller here")
    made = {}
    try:
        for user, cpus in ((USER, 1.0), (CLASSMATE, None)):
            made[user], missing = server_limits.make(user, 256 * 1024**2, 64, cpus=cpus)
            assert "cpu" in made[user], missing
        yield made
    finally:
        for user in made:
            server_limits.remove_all(user)


def run_in(groups, code, user=None):
    """Run Python ``code`` in ``groups`` and an IPC namespace of its own, as the hub's
    spawner starts a server (as ``user``, a passwd entry, if given)."""
    def preexec():
        server_limits.join(groups)
        server_limits.own_ipc_namespace()
        if user is not None:
            os.setgid(user.pw_gid)
            os.setgroups([])
            os.setuid(user.pw_uid)
    python = sys.executable if user is None else SYSTEM_PYTHON
    return subprocess.run([python, "-c", code], preexec_fn=preexec,
                          capture_output=True, text=True, timeout=60, cwd="/")


#: Starts a process that outlives the one that started it, and prints its id.
LEAVE_A_PROCESS = ("import subprocess; print(subprocess.Popen(['sleep', '600'], "
                   "start_new_session=True, stdout=subprocess.DEVNULL, "
                   "stderr=subprocess.DEVNULL).pid)")


def test_memory_over_the_limit_kills_the_process_that_took_it(groups):
    small = run_in(groups, "x = b'1' * (32 << 20); print('ok')")
    assert small.returncode == 0 and small.stdout == "ok\n", small.stderr
    big = run_in(groups, "x = [b'1' * (64 << 20) for _ in range(8)]; print('allocated')")
    assert big.returncode == -9 and "allocated" not in big.stdout, (big.returncode, big.stdout)


def test_a_fork_bomb_gets_the_processes_of_its_group(groups):
    bomb = run_in(groups, (
        "import os, time\n"
        "born = refused = 0\n"
        "for _ in range(200):\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        refused += 1\n"
        "        continue\n"
        "    if pid == 0:\n"
        "        time.sleep(3)\n"
        "        os._exit(0)\n"
        "    born += 1\n"
        "print(born, refused)\n"), user=NOBODY)
    born, refused = map(int, bomb.stdout.split())
    assert born < 24 and refused > 0, bomb.stdout


def test_its_user_cannot_raise_the_limits_nor_leave_the_groups(groups):
    targets = {os.path.join(folder, name) for folder in groups.values()
               for name in ("memory.limit_in_bytes", "memory.max", "pids.max")}
    targets = sorted(t for t in targets if os.path.exists(t))
    targets += [os.path.join(os.path.dirname(folder), "cgroup.procs")
                for folder in groups.values()]
    tried = run_in(groups, (
        "import os, sys\n"
        "for path in sys.argv[1:]:\n"
        "    try:\n"
        "        open(path, 'w').write('max' if 'max' in path else str(os.getpid()))\n"
        "        print(path, 'written')\n"
        "    except OSError as e:\n"
        "        print(path, e.errno)\n").replace("sys.argv[1:]", repr(targets)), user=NOBODY)
    outcomes = [line.rsplit(" ", 1)[1] for line in tried.stdout.splitlines()]
    assert len(outcomes) == len(targets) >= 3 and set(outcomes) <= {"1", "13"}, tried.stdout
    with open(os.path.join(groups["pids"], "pids.max")) as f:
        assert f.read().strip() == "24"


def test_removing_the_groups_kills_what_was_left_in_them(groups):
    left = run_in(groups, LEAVE_A_PROCESS, user=NOBODY)
    pid = int(left.stdout)
    assert Path(f"/proc/{pid}").exists()
    server_limits.remove_all(USER)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists()
    assert not any(os.path.exists(folder) for folder in groups.values())


def test_a_fresh_server_gets_a_fresh_group_and_what_was_left_is_killed(groups):
    left = run_in(groups, LEAVE_A_PROCESS, user=NOBODY)
    pid = int(left.stdout)
    again, _ = server_limits.make(USER, 64 * 1024**2, 10)
    assert again == groups
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists()
    with open(os.path.join(groups["pids"], "pids.max")) as f:
        assert f.read().strip() == "10"


def test_what_is_not_capped_is_said():
    said = server_limits.describe({}, {"memory": "no memory cgroup can be made here",
                                       "pids": "no pids cgroup can be made here"},
                                  2 * 1024**3, 512,
                                  "unshare(CLONE_NEWIPC) refused: Operation not permitted")
    assert "memory NOT capped: no memory cgroup can be made here" in said
    assert "512 processes of the user by RLIMIT_NPROC only" in said
    assert said.endswith("; IPC NOT private (System V and message queues outlive the "
                         "server): unshare(CLONE_NEWIPC) refused: Operation not permitted")


def test_where_no_ipc_namespace_can_be_made_the_hub_says_why():
    # a process without CAP_SYS_ADMIN, as a hub in a container may be
    probe = (DEPLOY / "server_limits.py").read_text() + "\nprint(ipc_namespace_refused())\n"
    def become_nobody():
        os.setgid(NOBODY.pw_gid)
        os.setgroups([])
        os.setuid(NOBODY.pw_uid)
    done = subprocess.run([SYSTEM_PYTHON, "-c", probe], preexec_fn=become_nobody,
                          capture_output=True, text=True, timeout=60, cwd="/")
    assert done.stdout == "unshare(CLONE_NEWIPC) refused: Operation not permitted\n", done


def test_the_hub_as_root_can_give_a_server_its_own_ipc_namespace_and_says_so(groups):
    own = os.readlink("/proc/self/ns/ipc")
    assert server_limits.ipc_namespace_refused() is None
    assert os.readlink("/proc/self/ns/ipc") == own   # tried in a child, not in the hub
    said = server_limits.describe(groups, {}, 128 * 1024**2, 24)
    assert said.endswith("; an IPC namespace of its own") and "NOT" not in said


#: Spins until the machine's monotonic clock reaches argv[1], then prints the CPU
#: seconds this process used, and the cpu group it is in (v1's or v2's line).
SPIN = """
import sys, time
end = float(sys.argv[1])
while time.monotonic() < end:
    pass
line = [l for l in open("/proc/self/cgroup") if ":cpu:" in l or ",cpu:" in l or l.startswith("0::")]
print(time.process_time(), line[0].rstrip().rsplit(":", 1)[1])
"""


def spin(groups, count, seconds):
    """``count`` processes of ``nobody``, each its own session (so each its own
    autogroup where no cpu group holds it), spinning in ``groups`` for ``seconds``
    of wall clock: (the CPU seconds they used per second of wall clock, counted from
    before the first started to when the last stopped spinning; the cpu groups they
    were in)."""
    def preexec():
        server_limits.join(groups)
        os.setgid(NOBODY.pw_gid)
        os.setgroups([])
        os.setuid(NOBODY.pw_uid)
    start = time.monotonic()
    end = start + 1 + seconds
    spinners = [subprocess.Popen([SYSTEM_PYTHON, "-c", SPIN, repr(end)], preexec_fn=preexec,
                                 start_new_session=True, stdout=subprocess.PIPE,
                                 text=True, cwd="/")
                for _ in range(count)]
    said = [p.communicate(timeout=seconds + 60)[0].split() for p in spinners]
    return sum(float(cpu) for cpu, _ in said) / (end - start), {where for _, where in said}


def spin_together(groups_and_counts, seconds):
    """Each of ``groups_and_counts`` ([(groups, count)]) spinning at once for the
    same ``seconds`` (:func:`spin`, in threads): [(CPU per second, cpu groups)]."""
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(len(groups_and_counts)) as pool:
        return list(pool.map(lambda pair: spin(*pair, seconds), groups_and_counts))


def test_a_servers_cpu_group_has_every_servers_weight_and_its_cap(cpu_groups):
    capped, uncapped = (cpu_groups[user]["cpu"] for user in (USER, CLASSMATE))
    files = {name: Path(capped, name).read_text().strip()
             for name in ("cpu.shares", "cpu.cfs_quota_us", "cpu.cfs_period_us",
                          "cpu.weight", "cpu.max") if Path(capped, name).exists()}
    assert files in ({"cpu.shares": "1024", "cpu.cfs_quota_us": "100000",
                      "cpu.cfs_period_us": "100000"},
                     {"cpu.weight": "100", "cpu.max": "100000 100000"}), files
    others = {name: Path(uncapped, name).read_text().strip()
              for name in ("cpu.shares", "cpu.cfs_quota_us", "cpu.weight", "cpu.max")
              if Path(uncapped, name).exists()}
    assert others in ({"cpu.shares": "1024", "cpu.cfs_quota_us": "-1"},
                      {"cpu.weight": "100", "cpu.max": "max 100000"}), others
    said = server_limits.describe(cpu_groups[USER], {}, 256 * 1024**2, 64, cpus=1.0)
    assert f"; 1 CPU, an equal share of the CPU with every server (cgroup {capped}); " in said


@pytest.mark.slow
def test_processes_spinning_in_a_capped_group_use_one_cpu_at_most(cpu_groups):
    """Four spinning processes of hers, each its own session: without the cap they
    take both cores (about 2 CPU-seconds a second); with it, at most about one.
    Her group's weight is raised to the kernel's largest here, so that the
    machine's other work (a test suite at once) takes next to nothing from her
    and the cap alone holds her: without it her four took 1.9 CPU-seconds a
    second with the machine's load average at 5."""
    groups = cpu_groups[USER]
    heaviest = {"cpu.shares": "262144", "cpu.weight": "10000"}
    for name, value in heaviest.items():
        if Path(groups["cpu"], name).exists():
            Path(groups["cpu"], name).write_text(value)
    used, where = spin(groups, 4, 4)
    assert where == {"/" + os.path.basename(groups["cpu"])}, where   # her group, as its children
    assert used <= 1.1, f"{used:.2f} CPU-seconds a second"


@pytest.mark.slow
def test_the_cpu_is_shared_between_servers_not_between_processes(cpu_groups):
    """Her four spinning processes (each its own session) and a classmate's one, each
    in the group of their own server: the groups' equal weight gives his about as
    much as hers, however many processes she runs. Without the groups each
    session is an autogroup of its own, of equal weight: his one got a quarter of
    what her four did. A ratio, so the machine's other load does not change it."""
    (hers, _), (his, _) = spin_together([(cpu_groups[USER], 4),
                                         (cpu_groups[CLASSMATE], 1)], 4)
    assert his >= 0.6 * hers, f"his {his:.2f}, hers {hers:.2f} CPU-seconds a second"


def test_where_no_cpu_cgroup_can_be_made_it_is_said(tmp_path):
    # a machine whose cgroup v2 delegates memory and pids but not cpu
    proc = fake_machine(tmp_path, "0::/\n", "cgroup2 @/cg cgroup2 rw 0 0\n",
                        {"cg": "memory pids\n"})
    made, missing = server_limits.make("ada", 2 * 1024**3, 512, found=server_limits.bases(str(proc)),
                                       cpus=1.0)
    assert set(made) == {"memory", "pids"}, made
    said = server_limits.describe(made, missing, 2 * 1024**3, 512, cpus=1.0)
    assert ("; CPU NOT capped nor shared by server: no cpu cgroup can be made here "
            "(no hierarchy offers it); ") in said, said


@pytest.mark.parametrize("name", ["../memory", "a/b", "", "Ada", "x" * 80])
def test_a_name_that_is_no_unix_user_makes_no_group(name):
    with pytest.raises(ValueError, match="not a Unix user name"):
        server_limits.make(name, 1 << 30, 10)


def fake_machine(tmp_path, cgroup, mounts, folders):
    """A /proc/self of ``cgroup`` and ``mounts`` lines, and cgroup ``folders``
    ({path under tmp_path: subtree_control or None}); the folder of proc."""
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "cgroup").write_text(cgroup.replace("@", str(tmp_path)))
    (proc / "mounts").write_text(mounts.replace("@", str(tmp_path)))
    for folder, control in folders.items():
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        if control is not None:
            (tmp_path / folder / "cgroup.subtree_control").write_text(control)
    return proc


def test_on_cgroup_v2_the_groups_go_where_the_controllers_are_delegated(tmp_path):
    # a systemd machine: the hub's own cgroup holds the hub, so enables nothing
    # for children; the root enables memory and pids
    proc = fake_machine(tmp_path, "0::/system.slice/hub.service\n",
                        "cgroup2 @/cg cgroup2 rw,nsdelegate 0 0\n",
                        {"cg": "cpu io memory pids\n", "cg/system.slice/hub.service": ""})
    found = server_limits.bases(str(proc))
    assert found == {"memory": (f"{tmp_path}/cg", 2), "pids": (f"{tmp_path}/cg", 2),
                     "cpu": (f"{tmp_path}/cg", 2)}
    made, missing = server_limits.make("ada", 2 * 1024**3, 512, found=found, cpus=1.5)
    group = tmp_path / "cg" / "kernel-course-ada"
    assert made == {"memory": str(group), "pids": str(group), "cpu": str(group)}
    assert missing == {}
    assert (group / "memory.max").read_text() == str(2 * 1024**3)
    assert (group / "pids.max").read_text() == "512"
    assert (group / "cpu.weight").read_text() == "100"
    assert (group / "cpu.max").read_text() == "150000 100000"
    assert not (group / "memory.limit_in_bytes").exists()
    # a hub whose own cgroup enables them gets them there
    (tmp_path / "cg/system.slice/hub.service/cgroup.subtree_control").write_text("memory pids")
    assert server_limits.bases(str(proc))["memory"] == (f"{tmp_path}/cg/system.slice/hub.service", 2)


def test_where_no_hierarchy_offers_a_controller_it_is_said(tmp_path):
    # a container: its cgroup v2 holds its processes and enables nothing
    proc = fake_machine(tmp_path, "0::/\n", "cgroup2 @/cg cgroup2 ro 0 0\n", {"cg": ""})
    found = server_limits.bases(str(proc))
    assert found == {}
    made, missing = server_limits.make("ada", 2 * 1024**3, 512, found=found)
    assert made == {} and "no memory cgroup can be made here" in missing["memory"]
    assert "no cpu cgroup can be made here" in missing["cpu"]


def test_on_cgroup_v1_each_controller_has_its_hierarchy(tmp_path):
    proc = fake_machine(tmp_path, "9:pids:/\n4:memory:/hub\n2:cpuacct:/\n1:cpu:/\n0::/\n",
                        "cgroup @/memory cgroup rw,memory 0 0\n"
                        "cgroup @/pids cgroup rw,pids 0 0\n"
                        "cgroup @/cpu cgroup rw,cpu 0 0\n"
                        "cgroup @/cpuacct cgroup rw,cpuacct 0 0\n"
                        "cgroup2 @/unified cgroup2 rw 0 0\n",
                        {"memory/hub": None, "pids": None, "cpu": None, "cpuacct": None,
                         "unified": ""})
    found = server_limits.bases(str(proc))
    assert found == {"memory": (f"{tmp_path}/memory/hub", 1), "pids": (f"{tmp_path}/pids", 1),
                     "cpu": (f"{tmp_path}/cpu", 1)}
    made, _ = server_limits.make("ada", 1024**3, 64, found=found, cpus=2)
    assert (Path(made["memory"]) / "memory.limit_in_bytes").read_text() == str(1024**3)
    assert (Path(made["pids"]) / "pids.max").read_text() == "64"
    assert (Path(made["cpu"]) / "cpu.shares").read_text() == "1024"
    assert (Path(made["cpu"]) / "cpu.cfs_period_us").read_text() == "100000"
    assert (Path(made["cpu"]) / "cpu.cfs_quota_us").read_text() == "200000"


def test_a_users_files_in_shared_memory_go_with_her_server_and_no_one_elses(tmp_path):
    """What a student leaves in a tmpfs (a file, a folder of them, a link to a
    file of someone else's) is removed when the hub removes her groups; a
    classmate's file there, and the file her link points to, stay."""
    shm = tmp_path / "shm"
    (shm / "hers" / "deep").mkdir(parents=True)
    theirs = shm / "theirs.bin"
    outside = tmp_path / "outside.txt"
    for path, data in [(shm / "a.bin", "x" * 1000), (shm / "hers" / "deep" / "b.bin", "y"),
                       (theirs, "z"), (outside, "keep")]:
        path.write_text(data)
    (shm / "link").symlink_to(outside)
    for path in [shm / "a.bin", shm / "hers", shm / "hers" / "deep",
                 shm / "hers" / "deep" / "b.bin"]:
        os.chown(path, NOBODY.pw_uid, NOBODY.pw_gid)
    os.chown(shm / "link", NOBODY.pw_uid, NOBODY.pw_gid, follow_symlinks=False)

    server_limits.remove_shared_memory("nobody", roots=(str(shm),))

    assert sorted(p.name for p in shm.iterdir()) == ["theirs.bin"]
    assert outside.read_text() == "keep" and theirs.read_text() == "z"



_libc = ctypes.CDLL(None, use_errno=True)
IPC_RMID = 0


def segments():
    """The System V shared memory segments this process's IPC namespace holds
    (``ipcs -m``): [{column of /proc/sysvipc/shm: value}]."""
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()
    names = lines[0].split()
    return [dict(zip(names, map(int, line.split()))) for line in lines[1:]]


def test_a_users_system_v_shared_memory_goes_with_her_last_process(groups):
    """The tester's escape: a segment a student made and left (kernel.shm_rmid_forced
    is 0) stayed in the kernel, hers, after her server and its groups were gone,
    24 MiB more after each stop.  In her server's own IPC namespace it goes with
    her last process."""
    left = run_in(groups, SYSV_SEGMENT, user=NOBODY)
    assert left.returncode == 0, left.stderr
    pid = int(left.stdout)
    try:
        deadline = time.monotonic() + 10   # a namespace is freed by a kernel worker
        while True:
            hers = [s for s in segments() if s["cpid"] == pid]
            if not hers or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert hers == [], hers
    finally:
        for segment in hers:
            _libc.shmctl(segment["shmid"], IPC_RMID, None)


#: Her tries at a segment made outside her namespace, by its key and by its id:
#: the errors (0 for none), and how many segments her ``ipcs -m`` lists.
LOOK_FOR = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
key, shmid = map(int, sys.argv[1:])
by_key = libc.shmget(key, 0, 0)
by_key = ctypes.get_errno() if by_key < 0 else 0
at = libc.shmat(shmid, None, 0)
at = ctypes.get_errno() if at == 2**64 - 1 else 0
listed = len(open("/proc/sysvipc/shm").read().splitlines()) - 1
print(by_key, at, listed)
"""


def test_a_user_sees_and_attaches_no_segment_of_anyone_elses(groups):
    """A segment anyone may attach (0666, a known key), made outside her namespace
    (by the hub, a classmate, a database), is not there for her."""
    key = 0x6B00_0000 | (os.getpid() & 0xFFFF)
    shmid = _libc.shmget(key, ctypes.c_size_t(1 << 20), 0o1000 | 0o2000 | 0o666)  # CREAT|EXCL
    assert shmid >= 0, os.strerror(ctypes.get_errno())
    try:
        code = LOOK_FOR.replace("sys.argv[1:]", repr([key, shmid]))
        tried = run_in(groups, code, user=NOBODY)
        assert tried.stdout.split() == ["2", "22", "0"], (tried.stdout, tried.stderr)  # ENOENT, EINVAL
        assert any(s["shmid"] == shmid for s in segments())   # still there, outside
    finally:
        _libc.shmctl(shmid, IPC_RMID, None)


def test_a_chain_of_folders_thousands_deep_is_removed_and_stops_no_one(tmp_path):
    """The tester's chain: 1,500 nested folders of a student's in shared memory made
    the walk raise RecursionError, for every user's start and stop, and the chain
    stayed.  Her clean-up removes it (her file 1,200 folders down with it), a
    classmate's file beside it stays, and a classmate's clean-up neither raises
    nor touches it."""
    shm = tmp_path / "shm"
    shm.mkdir()
    try:
        play_the_chain(shm)
    finally:
        # rm walks without recursion too: a chain left by a failed run would make
        # pytest's own clean-up of its temporary folders raise RecursionError
        subprocess.run(["rm", "-rf", str(shm)], check=True)


def play_the_chain(shm):
    """Her chain of 1,500 folders in ``shm``, then a classmate's clean-up and hers."""
    fd = os.open(shm, os.O_RDONLY)
    for level in range(1500):
        os.mkdir("d", dir_fd=fd)
        os.chown("d", NOBODY.pw_uid, NOBODY.pw_gid, dir_fd=fd)
        fd, old = os.open("d", os.O_RDONLY, dir_fd=fd), fd
        os.close(old)
        if level == 1200:
            os.close(os.open("hers.bin", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
            os.chown("hers.bin", NOBODY.pw_uid, NOBODY.pw_gid, dir_fd=fd)
    os.close(fd)
    (shm / "theirs.bin").write_text("z")

    assert server_limits.remove_shared_memory("daemon", roots=(str(shm),)) == []
    assert (shm / "d").is_dir()
    assert server_limits.remove_shared_memory("nobody", roots=(str(shm),)) == []
    assert sorted(p.name for p in shm.iterdir()) == ["theirs.bin"]


def test_what_her_clean_up_cannot_remove_is_named_not_raised(tmp_path):
    """A classmate's file deep in her folders keeps them: each one left is named."""
    shm = tmp_path / "shm"
    deep = shm / "x" / "y"
    deep.mkdir(parents=True)
    (deep / "theirs.bin").write_text("z")
    for path in (shm / "x", deep):
        os.chown(path, NOBODY.pw_uid, NOBODY.pw_gid)
    left = server_limits.remove_shared_memory("nobody", roots=(str(shm),))
    assert [line.split(":")[0] for line in left] == [repr(f"{shm}/x/y"), repr(f"{shm}/x")]
    assert (deep / "theirs.bin").read_text() == "z"


#: As an unprivileged user in her group: loopback TCP connections of hers that she
#: never reads, filled for up to 15 s towards 256 MiB; prints what they hold.
TCP_FILL = """
import socket, time
srv = socket.socket(); srv.bind(("127.0.0.1", 45000)); srv.listen(4096)
held, conns, chunk, end = 0, [], b"x" * (1 << 16), time.monotonic() + 15
while held < 256 << 20 and time.monotonic() < end:
    c = socket.socket(); c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    c.connect(("127.0.0.1", 45000)); a, _ = srv.accept()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    c.setblocking(False)
    t = time.monotonic()
    try:
        while held < 256 << 20 and time.monotonic() - t < 1: held += c.send(chunk)
    except BlockingIOError:
        pass
    conns.append((c, a))
print(held >> 20, flush=True)
"""

#: As an unprivileged user in her group: 256 MiB of datagrams sent to UDP sockets of
#: hers on loopback that she never reads; prints what was sent.
UDP_FILL = """
import socket
held, socks, chunk = 0, [], b"x" * 8192
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while held < 256 << 20:
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    r.bind(("127.0.0.1", 0))
    for _ in range(2000):
        tx.sendto(chunk, r.getsockname()); held += len(chunk)
    socks.append(r)
print(held >> 20, flush=True)
"""

#: As root in a fresh network namespace: her group as the hub makes it (64 MiB),
#: a fill run in it as nobody; prints the fill's exit code (None: alive) and what
#: it said, the namespace's buffers of the protocol in MiB (sockstat) while she
#: holds them, and why her socket buffers are not charged, if they are not.
SOCKET_PLAY = """
import os, pwd, subprocess, sys
sys.path.insert(0, sys.argv[1])
import server_limits
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
groups, missing = server_limits.make(sys.argv[2], 64 << 20, 64)
nobody = pwd.getpwnam("nobody")
def pre():
    server_limits.join(groups); os.setgid(nobody.pw_gid); os.setgroups([]); os.setuid(nobody.pw_uid)
try:
    fill = subprocess.Popen(["/usr/bin/python3", "-c", sys.argv[3]], preexec_fn=pre, cwd="/",
                            stdout=subprocess.PIPE, text=True)
    said = fill.stdout.readline().strip()
    held = next(int(l.split()[-1]) * 4 >> 10 for l in open("/proc/net/sockstat")
                if l.startswith(sys.argv[4] + ":"))
    code = fill.poll()
    fill.kill(); fill.wait()
    print(code, said or "-", held, missing.get("tcp", ""))
finally:
    server_limits.remove_all(sys.argv[2])
"""


def play_socket_fill(fill, protocol):
    """Play ``fill`` in her group in a fresh network namespace: (its exit code or
    None, what it said, MiB in the namespace's ``protocol`` buffers, why her socket
    buffers are not charged or '')."""
    if server_limits.bases().get("memory", (None, 0))[1] != 1:
        pytest.skip("cgroup v2 charges socket buffers to memory.max without a setting")
    played = subprocess.run(["unshare", "-n", sys.executable, "-c", SOCKET_PLAY,
                             str(DEPLOY), USER, fill, protocol],
                            capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    code, said, held, why = (played.stdout.split(maxsplit=3) + [""])[:4]
    return code, said, int(held), why.strip()


def test_loopback_tcp_buffers_she_never_reads_are_held_by_her_cap():
    """The tester's fill: on cgroup v1, 512 MiB of loopback TCP buffers past a
    64 MiB cap, her group at 4 MiB, out of the machine's TCP pool.  Charged to her
    group (memory.kmem.tcp.limit_in_bytes), the fill stops at about her cap."""
    code, said, held, why = play_socket_fill(TCP_FILL, "TCP")
    assert why == "", why
    assert held <= 72, (code, said, held)
    assert said == "-" or int(said) <= 72, (code, said, held)


def test_loopback_udp_buffers_she_never_reads_are_held_by_her_cap():
    """The same door by UDP: 136 MiB held past a 64 MiB cap.  On v1 the group's TCP
    limit holds her UDP sockets' buffers too: what she sends past it is dropped."""
    code, said, held, why = play_socket_fill(UDP_FILL, "UDP")
    assert why == "", why
    assert held <= 72, (code, said, held)


def test_the_machines_table_of_open_files_is_raised_to_its_largest(tmp_path):
    """fs.file-max sized at boot (2,466,170 here) is filled by one student's 2 GiB
    of open files; the hub raises it as systemd does, and says where it cannot."""
    (tmp_path / "fs").mkdir()
    (tmp_path / "fs" / "file-max").write_text("2466170\n")
    assert server_limits.raise_file_max(str(tmp_path)) == (2466170, 2**63 - 1, None)
    assert (tmp_path / "fs" / "file-max").read_text() == str(2**63 - 1)
    assert server_limits.raise_file_max(str(tmp_path)) == (2**63 - 1, 2**63 - 1, None)


def test_the_machines_process_ids_are_raised_to_their_largest(tmp_path):
    """kernel.pid_max at the kernel's default, 32,768, is used up by 64 students at
    their 512 processes each; the hub raises it to a 64-bit kernel's largest, as
    systemd does, and leaves a larger one."""
    (tmp_path / "kernel").mkdir()
    (tmp_path / "kernel" / "pid_max").write_text("32768\n")
    assert server_limits.raise_pid_max(str(tmp_path)) == (32768, 4194304, None)
    assert (tmp_path / "kernel" / "pid_max").read_text() == "4194304"
    assert server_limits.raise_pid_max(str(tmp_path)) == (4194304, 4194304, None)
    assert 64 * 512 >= 32768   # the default's arithmetic, above


READ_ONLY_PROC = """
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import server_limits
where = sys.argv[2]
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", where], check=True)
os.mkdir(where + "/fs"); open(where + "/fs/file-max", "w").write("1000\\n")
subprocess.run(["mount", "-o", "remount,ro", where], check=True)
print(server_limits.raise_file_max(where))
"""


def test_where_the_table_cannot_be_raised_the_hub_says_why(tmp_path):
    """A container's /proc/sys is read-only: the value stays, with the reason."""
    (tmp_path / "proc").mkdir()
    played = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable,
                             "-c", READ_ONLY_PROC, str(DEPLOY), str(tmp_path / "proc")],
                            capture_output=True, text=True, timeout=60)
    assert played.returncode == 0, played.stderr
    before, now, why = eval(played.stdout)
    assert (before, now) == (1000, 1000) and "Read-only file system" in why, played.stdout


def test_open_files_are_charged_to_her_memory_group(groups):
    """Why her memory cap bounds her files once the machine's table does not: each
    open file costs her group memory (260 to 330 bytes measured here)."""
    usage = Path(groups["memory"]) / ("memory.usage_in_bytes"
                                      if (Path(groups["memory"]) / "memory.usage_in_bytes").exists()
                                      else "memory.current")
    code = ("import os, sys, resource\n"
            "resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))\n"
            f"before = int(open({str(usage)!r}).read())\n"
            "fds = [os.open('/dev/null', os.O_RDONLY) for _ in range(19000)]\n"
            f"print(int(open({str(usage)!r}).read()) - before)\n")
    held = run_in(groups, code)
    assert held.returncode == 0, held.stderr
    assert int(held.stdout) > 19000 * 150, held.stdout


def test_a_classmate_who_keeps_moving_his_folders_never_stops_her_clean_up(tmp_path,
                                                                         monkeypatch):
    """He (daemon) moves a folder of his own to another of his whenever the walk is
    inside it, as a loop in his terminal moving it every millisecond would: the
    walk had started again from the top each time until it gave up, leaving her
    files; now it never enters his folders, removes all of hers, and leaves his."""
    daemon = pwd.getpwnam("daemon")
    shm = tmp_path / "shm"
    (shm / "his-a" / "c").mkdir(parents=True)
    (shm / "his-a" / "c" / "his.bin").write_text("z")
    (shm / "hers" / "deep").mkdir(parents=True)
    (shm / "hers" / "deep" / "b.bin").write_text("y" * 1000)
    for path in [shm / "his-a", shm / "his-a" / "c", shm / "his-a" / "c" / "his.bin"]:
        os.chown(path, daemon.pw_uid, daemon.pw_gid)
    for path in [shm / "hers", shm / "hers" / "deep", shm / "hers" / "deep" / "b.bin"]:
        os.chown(path, NOBODY.pw_uid, NOBODY.pw_gid)
    listdir, flips = os.listdir, []

    def listdir_while_he_flips(where):
        names = listdir(where)
        a, b = shm / "his-a", shm / "his-b"
        src, dst = (a / "c", b) if (a / "c").exists() else (b / "c", a)
        if isinstance(where, int) and os.fstat(where).st_ino == src.stat().st_ino:
            # the walk is inside his folder c: he moves it to his other folder
            dst.mkdir(exist_ok=True)
            os.chown(dst, daemon.pw_uid, daemon.pw_gid)
            os.rename(src, dst / "c")
            flips.append(True)
        return names
    monkeypatch.setattr(server_limits.os, "listdir", listdir_while_he_flips)
    assert server_limits.remove_shared_memory("nobody", roots=(str(shm),)) == []
    assert not (shm / "hers").exists()
    assert [p.name for p in shm.rglob("his.bin")] == ["his.bin"]


def test_a_folder_she_moves_during_the_walk_sends_it_nowhere_else(tmp_path, monkeypatch):
    """Folders she renames while the hub walks (here: her folder three deep moved to
    the top as the walk lists it) make the walk go back up to a folder it did not
    come from: it starts again from the top, removes all of hers, and keeps a
    classmate's file."""
    shm = tmp_path / "shm"
    (shm / "a" / "b" / "c").mkdir(parents=True)
    (shm / "a" / "b" / "c" / "hers.bin").write_text("x")
    (shm / "theirs.bin").write_text("z")
    for path in [shm / "a", shm / "a" / "b", shm / "a" / "b" / "c",
                 shm / "a" / "b" / "c" / "hers.bin"]:
        os.chown(path, NOBODY.pw_uid, NOBODY.pw_gid)
    listdir, moved = os.listdir, []

    def listdir_while_she_moves(where):
        names = listdir(where)
        if "hers.bin" in names and not moved:
            os.rename(shm / "a" / "b", shm / "b")
            moved.append(True)
        return names
    monkeypatch.setattr(server_limits.os, "listdir", listdir_while_she_moves)
    assert server_limits.remove_shared_memory("nobody", roots=(str(shm),)) == []
    assert moved and sorted(p.name for p in shm.iterdir()) == ["theirs.bin"]
