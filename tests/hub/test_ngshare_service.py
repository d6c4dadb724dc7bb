"""What the course's ngshare keeps of submissions (deploy/ngshare_service.py).

ngshare keeps every submission as root's files on the hub's disk, where no
student's disk quota counts them: a student submitting 70 MB again and again
with her server's own token would fill the disk under the hub's database. Played
on the course's ngshare service as the hub runs it (the wrapper, from the hub's
ngshare environment), its hub answered by a small server standing for it: a
submission over 20 MB is refused, and so is one that would take ada's kept
submissions past 200 MB, each with a message saying what to do; bob's goes in
meanwhile, and ngshare's storage holds only what was accepted. Files are
counted too, each as the disk blocks it takes (20,000 empty or 1-byte files
at a time passed a count of bytes): cy's 201 files are refused, and after
2,000 kept so is one more; a body of 100,000 tiny entries is refused before
it is parsed (such a body took ngshare 13 times its size, and kept it), but
200 files named with commas and colons are not; an empty submission is
refused, and one person keeps 500 submissions at most.
"""

import base64
import json
import os
from pathlib import Path

import pytest
import requests

from test_hub_ngshare_collect import COURSE, call, serving, set_up_course

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
MB = 1000**2

pytestmark = pytest.mark.slow


@pytest.fixture
def service(installed, tmp_path):
    """The course's ngshare service, as the hub runs it: (its URL, its storage)."""
    with serving(tmp_path, [installed / "ngshare" / "bin" / "python",
                            DEPLOY / "ngshare_service.py"]) as served:
        yield served


def submit(url, token, size):
    """A submission of a notebook of ``size`` bytes: (status, ngshare's answer)."""
    files = [{"path": "ps1.ipynb", "content": base64.b64encode(os.urandom(size)).decode()}]
    r = requests.post(f"{url}/submission/{COURSE}/ps1", data={"files": json.dumps(files)},
                      headers={"Authorization": f"token {token}"}, timeout=300)
    return r.status_code, r.json()


def submit_status(url, token, size):
    """The status of a submission of ``size`` bytes (None: cut while it was sent)."""
    try:
        return requests.post(f"{url}/submission/{COURSE}/ps1",
                             data={"files": json.dumps([{"path": "ps1.ipynb", "content":
                                   base64.b64encode(os.urandom(size)).decode()}])},
                             headers={"Authorization": f"token {token}"},
                             timeout=300).status_code
    except requests.ConnectionError:
        return None


def submit_files(url, token, files):
    r = requests.post(f"{url}/submission/{COURSE}/ps1", data={"files": json.dumps(files)},
                      headers={"Authorization": f"token {token}"}, timeout=300)
    return r.status_code, r.json()


def stored(storage):
    return sum(f.stat().st_size for f in storage.iterdir()) if storage.exists() else 0


def test_a_submission_and_what_one_student_keeps_are_bounded(service):
    url, storage = service
    set_up_course(url)
    released = stored(storage)

    status, said = submit(url, "tok-ada", 21 * MB)
    assert status == 400 and not said["success"], said
    assert said["message"] == (
        "submission refused: its files take 21.0 MB, more than the 20.0 MB one submission "
        "may take; leave large data files out of your problem set's folder, then submit "
        "again"), said
    assert stored(storage) == released

    for _ in range(10):                      # 190 MB kept: each one under the cap
        assert submit(url, "tok-ada", 19 * MB)[0] == 200
    status, said = submit(url, "tok-ada", 19 * MB)
    assert status == 400, said
    assert said["message"] == (
        "submission refused: your submissions kept by the course's exchange take 190.0 MB, "
        "and this one 19.0 MB more would pass the 200.0 MB each person may keep; ask your "
        "instructor"), said
    assert submit(url, "tok-ada", 9 * MB)[0] == 200     # what still fits goes in
    # her classmate submits meanwhile, and only what was accepted is stored
    assert submit(url, "tok-bob", 1 * MB)[0] == 200
    assert stored(storage) == released + 190 * MB + 9 * MB + 1 * MB
    # files are counted, each as the disk blocks it takes: cy's empty and 1-byte files
    one_byte = base64.b64encode(b"x").decode()
    status, said = submit_files(url, "tok-cy", [{"path": f"f{n}", "content": ""}
                                                for n in range(201)])
    assert status == 400 and said["message"].startswith(
        "submission refused: it holds 201 files, more than the 200 one submission may "
        "hold"), said
    for _ in range(10):                      # 2,000 files of 1 byte: 8 MB of blocks
        assert submit_files(url, "tok-cy", [{"path": f"f{n}", "content": one_byte}
                                            for n in range(200)])[0] == 200
    status, said = submit_files(url, "tok-cy", [{"path": "f", "content": one_byte}])
    assert status == 400 and said["message"].startswith(
        "submission refused: your submissions kept by the course's exchange hold 2000 "
        "files, and this one 1 more would pass the 2000 each person may keep"), said
    # a body of many tiny entries is refused before it is parsed
    many = "[" + ",".join('{"path":"a","content":""}' for _ in range(100_000)) + "]"
    r = requests.post(f"{url}/submission/{COURSE}/ps1", data={"files": many},
                      headers={"Authorization": "token tok-bob"}, timeout=300)
    assert r.status_code == 400 and r.json()["message"] == (
        "submission refused: more than 200 files"), r.text
    # an empty submission is refused; 200 files named with commas and colons, as a
    # data logger names them, are not taken for JSON structure
    status, said = submit_files(url, "tok-bob", [])
    assert status == 400 and said["message"] == "submission refused: it holds no file", said
    logged = [{"path": f"2026-11-27 10:{n // 60:02d}:{n % 60:02d}, sensor 1, run 2.csv",
               "content": one_byte} for n in range(200)]
    assert submit_files(url, "tok-bob", logged)[0] == 200
    # the refused submissions above left nothing (an empty submission each, before):
    # bob keeps his two
    listed = call(url, "tok-teach", "GET", f"submissions/{COURSE}/ps1")["submissions"]
    assert [entry["student_id"] for entry in listed].count("bob") == 2, listed
    # and one person keeps 500 submissions at most
    kept = 2
    while (answer := submit_files(url, "tok-bob", [{"path": "n", "content": one_byte}]))[0] == 200:
        kept += 1
    assert kept == 500 and answer[1]["message"] == (
        "submission refused: the course's exchange keeps 500 submissions of yours, the most "
        "each person may keep; ask your instructor"), (kept, answer)


def test_a_submission_of_the_wrong_shape_is_refused_and_leaves_nothing(service):
    """Files that are not a list of {path, content} strings, or whose content is not
    base64, are answered 400 with what is wrong (they were a 500, or a submission
    kept empty), and nothing of them is kept."""
    url, storage = service
    set_up_course(url)
    one_byte = base64.b64encode(b"x").decode()
    assert submit_files(url, "tok-bob", [{"path": "n", "content": one_byte}])[0] == 200
    released = stored(storage)
    shaped = ("submission refused: its files must be a JSON list of objects, each with a "
              "path and a content")
    entry = ("submission refused: its file number {} is not an object with a path and a "
             "content, both strings")
    text = ("submission refused: its file number {} has a path or a content that is not "
            "valid text (an unpaired surrogate)")
    for files, message in [
            ({"path": "n", "content": one_byte}, shaped),
            ("not a list", shaped),
            (None, shaped),
            ([1], entry.format(1)),
            ([{"path": "n", "content": one_byte}, {"path": "m"}], entry.format(2)),
            ([{"path": "n", "content": 12}], entry.format(1)),
            ([{"path": ["n"], "content": one_byte}], entry.format(1)),
            ([{"path": "n", "content": None}], entry.format(1)),
            # an unpaired surrogate: ngshare kept the files, then answered 500
            ([{"path": "n", "content": one_byte}, {"path": "x\udcff", "content": "AA=="}],
             text.format(2)),
            ([{"path": "n", "content": "YQ\udcff=="}], text.format(1))]:
        status, said = submit_files(url, "tok-bob", files)
        assert (status, said.get("message")) == (400, message), (files, status, said)
    r = requests.post(f"{url}/submission/{COURSE}/ps1", data={"files": "[{\"path\": "},
                      headers={"Authorization": "token tok-bob"}, timeout=300)
    assert (r.status_code, r.json()["message"]) == (400, shaped), r.text
    # content that is not base64: ngshare's own refusal, and nothing kept either
    status, said = submit_files(url, "tok-bob", [{"path": "n", "content": "a"}])
    assert status == 400 and said["message"] == "Content cannot be base64 decoded", said
    listed = call(url, "tok-teach", "GET", f"submissions/{COURSE}/ps1")["submissions"]
    assert [entry["student_id"] for entry in listed].count("bob") == 1, listed
    assert stored(storage) == released


def test_the_largest_submission_fits_in_one_clients_share_of_ngshares_bodies(service):
    """ngshare holds at most 256 MiB of request bodies at once, and one client at most
    32 MiB of them (deploy/ngshare_service.py, deploy/request_bodies.py): the largest
    submission it takes (20 MB of files, as whole disk blocks, and its name: a body
    of 28.3 MB as base64 JSON in a form) is one body of one client, and must pass."""
    url, _ = service
    set_up_course(url)
    # whole blocks, and a multiple of 3 bytes: no base64 padding, which ngshare
    # counts as up to two bytes more
    largest = (20 * MB - len("ps1.ipynb")) // 4096 * 4096 // 3 * 3
    status, said = submit(url, "tok-bob", largest)
    assert status == 200, said
    status, said = submit(url, "tok-bob", largest + 3)     # one block more: ngshare's no
    assert status == 400 and said["message"].startswith(
        "submission refused: its files take 20.0 MB, more than the 20.0 MB"), said


def test_a_student_holding_bodies_from_both_her_addresses_stops_no_submission(service):
    """A student has two addresses, her server's and her laptop's, and each may hold
    a whole share of ngshare's bodies (32 MiB): ada holds both, each all but its
    last byte, and bob's submission goes in meanwhile (with a budget of two shares,
    it was refused 413, and the cut was logged naming bob alone)."""
    import socket
    import time
    from urllib.parse import urlparse

    url, storage = service
    set_up_course(url)
    address = urlparse(url)
    share = 32 * 1024**2
    held = []
    try:
        # through the proxy, which names each connection's client last in
        # X-Forwarded-For: her server's joined address, and her laptop's
        for her in ("127.128.3.235", "203.0.113.7"):
            s = socket.create_connection((address.hostname, address.port), timeout=60)
            held.append(s)
            s.sendall(f"POST {address.path}/submission/{COURSE}/ps1 HTTP/1.1\r\n"
                      f"Host: x\r\nAuthorization: token tok-ada\r\n"
                      f"X-Forwarded-For: {her}\r\n"
                      f"Content-Type: application/x-www-form-urlencoded\r\n"
                      f"Content-Length: {share - 16}\r\n\r\n".encode())
            s.sendall(b"f" * (share - 17))
        time.sleep(1)
        status, said = submit(url, "tok-bob", 1024)
        assert status == 200, said
        assert "cut POST" not in (storage.parent / "ngshare.log").read_text()
    finally:
        for s in held:
            s.close()


def test_a_body_cut_by_its_clients_share_is_in_ngshares_log(service):
    """What ngshare cuts is logged, naming the client, with its requests (ngshare
    sets up no logging of its own: such cuts left no line in the hub's log)."""
    import socket
    import time
    from urllib.parse import urlparse

    url, storage = service
    set_up_course(url)
    share = 32 * 1024**2
    address = urlparse(url)
    held = socket.create_connection((address.hostname, address.port), timeout=60)
    try:
        held.sendall(f"POST {address.path}/submission/{COURSE}/ps1 HTTP/1.1\r\n"
                     f"Host: x\r\nAuthorization: token tok-ada\r\n"
                     f"Content-Type: application/x-www-form-urlencoded\r\n"
                     f"Content-Length: {share - 16}\r\n\r\n".encode())
        held.sendall(b"f" * (share - 17))           # all but its last byte, held
        log = storage.parent / "ngshare.log"
        status = None
        for _ in range(100):                         # until ngshare has read what she sent
            try:
                status = requests.post(f"{url}/submission/{COURSE}/ps1",
                                       data={"files": "x" * 1024},
                                       headers={"Authorization": "token tok-bob"},
                                       timeout=60).status_code
            except requests.ConnectionError:         # cut while it sent
                status = None
            if status == 413 or "cut POST" in log.read_text():
                break
            time.sleep(0.2)
    finally:
        held.close()
    text = log.read_text()
    assert "ngshare: cut POST '/services/ngshare/submission/kernel-methods/ps1' from " \
           "127.0.0.1 after" in text, text
    assert f"would pass its share of {share} bytes" in text, text
    # and its requests are logged (the cut one's client by its address). The held
    # bytes count against 127.0.0.1 until ngshare has seen that connection close,
    # which a busy machine may take a while to get to
    deadline = time.monotonic() + 120
    while (status := submit_status(url, "tok-bob", 1024)) != 200 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert status == 200
    # ngshare logs a request once it has answered it
    while "200 POST /services/ngshare/submission/kernel-methods/ps1" not in log.read_text():
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)


def test_a_request_is_one_short_line_in_ngshares_log_without_its_query(service):
    """Tornado's own line for a request holds its whole URI, the query included:
    7 KB of the hub's log a request from anyone, through the front proxy. ngshare's
    line is the hub's short one (deploy/request_log.py): no query, at most 240
    characters after the logger's prefix."""
    import time

    url, storage = service
    log = storage.parent / "ngshare.log"
    for _ in range(5):
        r = requests.get(f"{url}/courses?filler={'q' * 7000}", timeout=60)
        assert r.status_code == 403, r.status_code
    deadline = time.monotonic() + 60
    while (text := log.read_text()).count("GET /services/ngshare/courses") < 5:
        assert time.monotonic() < deadline, text[-2000:]
        time.sleep(0.2)
    lines = [line for line in text.splitlines() if "/services/ngshare/courses" in line]
    assert len(lines) == 5, lines
    assert all(len(line) <= 240 + 40 for line in lines), max(map(len, lines))
    assert "qqq" not in text and "filler" not in text
