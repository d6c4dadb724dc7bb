"""The policy the instructor's server sends with Formgrader's pages
(deploy/formgrader_csp.py): a page's own inline scripts by their hashes, no
other inline code.  In Chromium, on a Formgrader server with a student's
formula that links to a script: tests/grading/test_student_html.py."""

import sys
from pathlib import Path

from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy"))

import formgrader_csp  # noqa: E402

from coursegrader.csp import inline_script_hashes  # noqa: E402


def _sent(path, content_type, body, status=200):
    transform = formgrader_csp.policy_transform("/user/t/formgrader")(
        HTTPServerRequest(start_line=RequestStartLine("GET", path, "HTTP/1.1"),
                          headers=HTTPHeaders({"Host": "127.0.0.1"})))
    headers = HTTPHeaders({"Content-Type": content_type})
    transform.transform_first_chunk(status, headers, body, True)
    return headers.get("Content-Security-Policy")


def _script_src(policy):
    return next(d.strip() for d in policy.split(";") if d.strip().startswith("script-src "))


def test_a_page_runs_its_own_inline_scripts_by_their_hashes_and_nothing_else_inline():
    page = "<script>var base_url = '/user/t';</script><script src='x.js'></script>"
    policy = _sent("/user/t/formgrader/submissions/1/", "text/html; charset=UTF-8",
                   page.encode())
    assert _script_src(policy) == f"script-src 'self' {inline_script_hashes(page)[0]}"
    assert "script-src-attr 'none'" in policy


def test_other_answers_allow_no_inline_script_and_other_paths_get_no_policy():
    policy = _sent("/user/t/formgrader/api/submission/1", "application/json",
                   b'{"a": "<script>x()</script>"}')
    assert _script_src(policy) == "script-src 'self'"
    assert _sent("/user/t/lab", "text/html", b"<script>x()</script>") is None


def test_a_page_from_the_browsers_cache_keeps_the_policy_it_came_with():
    # a 304 has no body: a policy from it would allow none of the cached page's scripts
    assert _sent("/user/t/formgrader/manage_assignments", "text/html", b"", status=304) is None
