"""Logins to the hub as a browser makes them (its login page, then the form with
its ``_xsrf`` token), on connections of their own from a chosen address of the
machine's loopback, in plain HTTP or, given a TLS context (``tls``), over HTTPS
(through a front proxy, tests/fronts.py). Standard library only: a test runs this
file's text in a student's kernel too, to play the same logins from her server."""

import http.client
import re
import threading
import time
from urllib.parse import urlencode


def _connect(port, source, forged, tls=None):
    where = dict(timeout=300, source_address=(source, 0) if source else None)
    conn = (http.client.HTTPSConnection("127.0.0.1", port, context=tls, **where) if tls
            else http.client.HTTPConnection("127.0.0.1", port, **where))
    headers = {"User-Agent": "login-test"}
    if forged:
        headers["X-Forwarded-For"] = forged
    conn.request("GET", "/hub/login", headers=headers)
    page = conn.getresponse()
    text = page.read().decode("utf-8", "replace")
    cookies = [c.split(";")[0] for c in page.headers.get_all("Set-Cookie") or []]
    found = re.search(r'name="_xsrf" value="([^"]+)"', text)
    xsrf = found.group(1) if found else dict(c.split("=", 1) for c in cookies)["_xsrf"]
    headers.update({"Cookie": "; ".join(cookies),
                    "Content-Type": "application/x-www-form-urlencoded"})
    return conn, headers, xsrf


def _post(conn, headers, xsrf, name, password, sent=None, cookies=None):
    conn.request("POST", "/hub/login", headers=headers,
                 body=urlencode({"username": name, "password": password, "_xsrf": xsrf}))
    if sent is not None:
        sent.append(time.monotonic())
    answer = conn.getresponse()
    page = answer.read().decode("utf-8", "replace")
    if cookies is not None:
        cookies.extend(answer.headers.get_all("Set-Cookie") or [])
    return answer.status, page


def log_in(port, source, name, password, tls=None, cookies=None):
    """One login of ``name`` from ``source`` to ``port``: (its status, the seconds
    its POST took, the page answered). Appends the cookies its answer sets to
    ``cookies``."""
    conn, headers, xsrf = _connect(port, source, None, tls)
    try:
        start = time.monotonic()
        status, page = _post(conn, headers, xsrf, name, password, cookies=cookies)
        return status, time.monotonic() - start, page
    finally:
        conn.close()


def flood(port, source, name, connections, seconds, forge=False, sent=None, tls=None):
    """Wrong passwords for ``name`` posted on ``connections`` connections for
    ``seconds``, each connection posting again once answered (0.2 s after a
    refusal, as a script retrying would); with ``forge``, each connection writes an
    ``X-Forwarded-For`` of its own. Appends the time of each POST to ``sent``.
    Answers {"answers": [(time.monotonic() of the answer, status)], "refusal": the
    first 429's page, "end": when posting stopped}."""
    answers, refusals, lock = [], [], threading.Lock()
    end = time.monotonic() + seconds

    def one(i):
        conn, headers, xsrf = _connect(port, source, f"198.51.100.{i + 1}" if forge else None,
                                       tls)
        try:
            while time.monotonic() < end:
                status, page = _post(conn, headers, xsrf, name, "not-her-password", sent)
                with lock:
                    answers.append((time.monotonic(), status))
                    if status == 429 and not refusals:
                        refusals.append(page)
                if status == 429:
                    time.sleep(0.2)
        finally:
            conn.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"answers": answers, "refusal": refusals[0] if refusals else "", "end": end}


def during_a_flood(port, source, name, seconds, then, forge=False, tls=None):
    """Calls ``then()`` once a flood of wrong passwords for ``name`` from ``source``
    (:func:`flood`, on 20 connections for ``seconds``) is in the hub's hands (its
    first 20 posted, and half a second more). The flood's result, with ``then``'s
    answer as "then" and when it was called and returned as "waited" (start, end)."""
    sent, result = [], {}
    flooder = threading.Thread(target=lambda: result.update(
        flood(port, source, name, 20, seconds, forge=forge, sent=sent, tls=tls)))
    flooder.start()
    try:
        deadline = time.monotonic() + 120
        while len(sent) < 20:
            assert time.monotonic() < deadline and flooder.is_alive(), "the flood did not start"
            time.sleep(0.05)
        time.sleep(0.5)
        start = time.monotonic()
        answer = then()
        done = time.monotonic()
    finally:
        flooder.join()
    result["then"], result["waited"] = answer, (start, done)
    return result
