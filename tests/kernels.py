"""A kernel in a course user's server, driven from the tests as JupyterLab drives
it (the server's REST API, the kernel's websocket): what a student can run there,
she runs from a cell of her own notebook."""

from __future__ import annotations

import json
import re
import secrets
import time
import uuid

import requests
import websocket

from hubs import hubpy


class Kernel:
    """A kernel in a user's server, driven as JupyterLab drives it: started with the
    server's REST API, its cells sent on its websocket."""

    def __init__(self, hub, who):
        self.name = hub["names"][who]
        self.token = hubpy("token", hub["state"], self.name).stdout.strip()
        self.auth = {"Authorization": f"token {self.token}"}
        self.hub_url = hub["url"]
        self.server = f"{hub['url']}/user/{self.name}"
        self._start_server()
        started = requests.post(f"{self.server}/api/kernels", json={"name": "python3"},
                                headers=self.auth, timeout=120)
        assert started.status_code == 201, (started.status_code, started.text)
        self.id = started.json()["id"]
        self.session = uuid.uuid4().hex

    def _start_server(self):
        api = f"{self.hub_url}/hub/api/users/{self.name}"
        requests.post(api + "/server", headers=self.auth, timeout=60)
        deadline = time.monotonic() + 300
        while True:
            model = requests.get(api, headers=self.auth, timeout=60).json()
            if model.get("server") and not model.get("pending"):
                return
            assert time.monotonic() < deadline, f"{self.name}'s server did not start: {model}"
            time.sleep(0.5)

    def run(self, code, timeout=180):
        """Run a cell: ("ok" or "error" or "died", what it printed, the error's name)."""
        url = self.server.replace("http://", "ws://") + f"/api/kernels/{self.id}/channels"
        ws = websocket.create_connection(url, header=[f"Authorization: token {self.token}"],
                                         timeout=timeout)
        msg_id = secrets.token_hex(8)
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": self.name, "session": self.session,
                       "msg_type": "execute_request", "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True,
                        "user_expressions": {}, "allow_stdin": False,
                        "stop_on_error": True}}))
        printed, ename, deadline = [], None, time.monotonic() + timeout
        reply = idle = None   # the shell's reply may come before the outputs on iopub
        try:
            while time.monotonic() < deadline:
                ws.settimeout(max(0.1, min(10.0, deadline - time.monotonic())))
                try:
                    msg = json.loads(ws.recv())
                except websocket.WebSocketTimeoutException:
                    continue    # nothing yet: the deadline bounds the wait
                except websocket.WebSocketConnectionClosedException:
                    return "died", "".join(printed), ename
                kind, content = msg["msg_type"], msg["content"]
                if kind == "status" and content.get("execution_state") in ("restarting", "dead"):
                    return "died", "".join(printed), ename
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                if kind == "stream":
                    printed.append(content["text"])
                elif kind == "error":
                    ename = content["ename"]
                elif kind == "execute_reply":
                    reply = content["status"]
                elif kind == "status" and content.get("execution_state") == "idle":
                    idle = True
                if reply and idle:
                    return reply, "".join(printed), ename
        finally:
            ws.close()
        raise AssertionError(f"no answer from {self.name}'s kernel in {timeout} s: {printed}")

    def value(self, code):
        """What the cell ``code`` prints, which must run."""
        status, printed, ename = self.run(code)
        assert status == "ok", (status, printed, ename)
        return printed.strip()

    def settle(self, timeout=180):
        """Wait until the kernel answers a kernel_info request, as JupyterLab asks
        when it connects: after it died, the server restarts it on its own, and a
        restart asked for meanwhile would interrupt that one."""
        url = self.server.replace("http://", "ws://") + f"/api/kernels/{self.id}/channels"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg_id = secrets.token_hex(8)
            try:
                ws = websocket.create_connection(
                    url, header=[f"Authorization: token {self.token}"], timeout=10)
            except (OSError, websocket.WebSocketException):
                time.sleep(1)
                continue
            try:
                ws.send(json.dumps({
                    "header": {"msg_id": msg_id, "username": self.name,
                               "session": self.session, "msg_type": "kernel_info_request",
                               "version": "5.3", "date": ""},
                    "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                    "content": {}}))
                until = min(deadline, time.monotonic() + 10)
                while time.monotonic() < until:
                    msg = json.loads(ws.recv())
                    if (msg["msg_type"] == "kernel_info_reply"
                            and msg["parent_header"].get("msg_id") == msg_id):
                        return
            except (OSError, websocket.WebSocketException):
                time.sleep(1)
            finally:
                ws.close()
        raise AssertionError(f"{self.name}'s kernel did not answer in {timeout} s")

    def restart(self):
        """Kernel > Restart Kernel, once the kernel is idle; back when it is idle again."""
        self.settle()
        done = requests.post(f"{self.server}/api/kernels/{self.id}/restart", headers=self.auth,
                             timeout=120)
        assert done.status_code == 200, (done.status_code, done.text)
        self.settle()

    def stop_server(self):
        api = f"{self.hub_url}/hub/api/users/{self.name}"
        requests.delete(api + "/server", headers=self.auth, timeout=60)
        deadline = time.monotonic() + 180
        while requests.get(api, headers=self.auth, timeout=60).json().get("server"):
            assert time.monotonic() < deadline, f"{self.name}'s server did not stop"
            time.sleep(0.5)

    def server_up(self):
        return requests.get(f"{self.server}/api/status", headers=self.auth,
                            timeout=60).status_code == 200

    def terminal(self, command, timeout=120):
        """Open a terminal of her server as JupyterLab does (its REST API, then its
        websocket), type ``command`` and return (its exit status, the screen's text)."""
        made = requests.post(f"{self.server}/api/terminals", headers=self.auth, timeout=60)
        assert made.status_code == 200, (made.status_code, made.text)
        name = made.json()["name"]
        url = self.server.replace("http://", "ws://") + f"/terminals/websocket/{name}"
        ws = websocket.create_connection(url, header=[f"Authorization: token {self.token}"],
                                         timeout=timeout)
        mark = secrets.token_hex(3)
        # the typed line shows "@mark$?@"; only the finished command prints a number
        ws.send(json.dumps(["stdin", f"{command}; echo @{mark}$?@\r"]))
        shown, deadline = "", time.monotonic() + timeout
        try:
            while not (found := re.search(rf"@{mark}(\d+)@", shown)):
                assert time.monotonic() < deadline, f"{command!r} did not finish: {shown}"
                ws.settimeout(max(0.1, min(10.0, deadline - time.monotonic())))
                try:
                    kind, *content = json.loads(ws.recv())
                except websocket.WebSocketTimeoutException:
                    continue    # nothing yet: the deadline bounds the wait
                if kind == "stdout":
                    shown += content[0]
        finally:
            ws.close()
            requests.delete(f"{self.server}/api/terminals/{name}", headers=self.auth,
                            timeout=60)
        return int(found.group(1)), shown
