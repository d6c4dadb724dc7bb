"""A user's server serves on the socket the hub bound for it, on a port below 1024
(deploy/spawner.py, deploy/server_guard.py), and keeps that socket from what it
starts; once the server is gone, no process of its user's can bind the port.
No hub runs here: the test binds the socket as the hub does and starts a
Jupyter server with the extension; on a real hub, played as a student would:
tests/hub/test_hub_user_servers.py."""

import errno
import os
import pwd
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
sys.path.insert(0, str(DEPLOY))

import server_guard  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="binding a port below 1024 needs root")

#: Python of the system, which a user such as ``nobody`` may run (a virtual
#: environment under root's home is not theirs to run).
SYSTEM_PYTHON = "/usr/bin/python3"
SERVER = """
import sys
sys.path.insert(0, sys.argv[1])
from jupyter_server.serverapp import ServerApp
ServerApp.launch_instance(argv=[
    "--ServerApp.jpserver_extensions={'server_guard': True}", "--ip=127.0.0.1",
    f"--port={sys.argv[2]}", "--port-retries=0", "--no-browser", "--allow-root",
    f"--IdentityProvider.token={sys.argv[3]}", f"--ServerApp.root_dir={sys.argv[4]}"])
"""


def low_port_listener():
    """A socket listening on a free port below 1024 that /etc/services does not name."""
    for port in range(990, 100, -1):
        try:
            socket.getservbyport(port, "tcp")
            continue
        except OSError:
            pass
        listener = socket.socket()
        try:
            listener.bind(("127.0.0.1", port))
        except OSError:
            listener.close()
            continue
        listener.listen(128)
        return listener
    pytest.skip("no free port below 1024")


def bind_as_nobody(port):
    """What a user's own process gets when it binds ``port``."""
    nobody = pwd.getpwnam("nobody")
    done = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import socket, sys; socket.socket().bind(('127.0.0.1', int(sys.argv[1])))",
         str(port)], preexec_fn=lambda: (os.setgroups([]), os.setgid(nobody.pw_gid),
                                         os.setuid(nobody.pw_uid)),
        capture_output=True, text=True, cwd="/", timeout=60)
    return "bound" if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def holds(pid, inode):
    """Whether process ``pid`` has the socket ``inode`` among its descriptors (one it
    closes while they are read is not among them)."""
    def target(fd):
        try:
            return os.readlink(fd)
        except FileNotFoundError:
            return None
    return any(target(fd) == f"socket:[{inode}]" for fd in Path(f"/proc/{pid}/fd").iterdir())


@pytest.mark.slow
def test_the_server_serves_on_the_hubs_socket_and_keeps_it_from_what_it_starts(tmp_path):
    listener = low_port_listener()
    port, inode = listener.getsockname()[1], os.fstat(listener.fileno()).st_ino
    token = secrets.token_hex(8)
    env = {**os.environ, server_guard.SOCKET_VARIABLE: str(listener.fileno()),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(DEPLOY), str(port), token,
                               str(tmp_path)], env=env, pass_fds=(listener.fileno(),),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              start_new_session=True)
    listener.close()   # the hub's copy
    api, auth = f"http://127.0.0.1:{port}/api", {"Authorization": f"token {token}"}
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, server.stderr.read().decode()[-3000:]
            try:
                if requests.get(api + "/status", headers=auth, timeout=10).ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "the server did not answer"
            time.sleep(0.3)
        # it serves on the very socket it was handed, which nothing else holds
        assert holds(server.pid, inode)
        terminal = requests.post(api + "/terminals", headers=auth, timeout=60)
        kernel = requests.post(api + "/kernels", headers=auth, json={"name": "python3"}, timeout=60)
        assert terminal.ok and kernel.ok, (terminal.text, kernel.text)
        time.sleep(3)
        children = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True,
                                  text=True).stdout.split()
        assert len(children) >= 2, children
        for child in children:
            assert not holds(child, inode), child
            assert server_guard.SOCKET_VARIABLE.encode() not in Path(f"/proc/{child}/environ").read_bytes()
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    # the server is gone: its port is free, and a user's process cannot bind it
    assert bind_as_nobody(port).endswith("Permission denied"), port


def test_without_the_capability_the_user_cannot_bind_a_low_port():
    """What a student's own process meets: the port of her server, once free."""
    listener = low_port_listener()
    port = listener.getsockname()[1]
    listener.close()
    outcome = bind_as_nobody(port)
    assert outcome == f"PermissionError: [Errno {errno.EACCES}] Permission denied", outcome
