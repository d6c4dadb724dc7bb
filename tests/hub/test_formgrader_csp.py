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


def _request(path):
    return HTTPServerRequest(start_line=RequestStartLine("GET", path, "HTTP/1.1"),
                             headers=HTTPHeaders({"Host": "127.0.0.1"}))


def _sent(path, content_type, body, status=200, default=None):
    """The policy sent with a response; ``default``: the server's own header."""
    transform = formgrader_csp.policy_transform("/user/t/formgrader")(_request(path))
    headers = HTTPHeaders({"Content-Type": content_type})
    if default:
        headers["Content-Security-Policy"] = default
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
    # nor does the server's default one ("frame-ancestors 'none'" would block
    # Formgrader's frame in JupyterLab once the browser reloads the page)
    assert _sent("/user/t/formgrader/manage_assignments", "text/html", b"", status=304,
                 default="frame-ancestors 'none'") is None


def test_the_folder_links_script_runs_under_the_pages_policy():
    import formgrader_links

    page = b"<html><head><script>var base_url = '/user/t';</script></head><body></body></html>"
    headers = HTTPHeaders({"Content-Type": "text/html"})
    request = _request("/user/t/formgrader/manage_assignments")
    status, headers, chunk = formgrader_csp.policy_transform("/user/t/formgrader")(
        request).transform_first_chunk(200, headers, page, True)
    status, headers, chunk = formgrader_links.links_transform("/user/t/formgrader")(
        request).transform_first_chunk(status, headers, chunk, True)
    allowed = set(_script_src(headers["Content-Security-Policy"]).split()[1:])
    assert set(inline_script_hashes(chunk.decode())) <= allowed
    assert len(inline_script_hashes(chunk.decode())) == 2 and "'unsafe-inline'" not in allowed


def test_the_handlers_script_runs_under_the_pages_policy_with_the_links_script():
    import formgrader_handlers
    import formgrader_links

    page = (b"<html><head><script>var base_url = '/user/t';</script></head>"
            b'<body><button id="toggle_names" onclick="toggleAllNames()">Show All Names'
            b"</button></body></html>")
    headers = HTTPHeaders({"Content-Type": "text/html", "Content-Length": str(len(page))})
    request = _request("/user/t/formgrader/gradebook/ps1/ps1")
    status, chunk = 200, page
    for transform in (formgrader_csp.policy_transform, formgrader_links.links_transform,
                      formgrader_handlers.handlers_transform):
        status, headers, chunk = transform("/user/t/formgrader")(
            request).transform_first_chunk(status, headers, chunk, True)
    allowed = set(_script_src(headers["Content-Security-Policy"]).split()[1:])
    assert formgrader_handlers.SCRIPT in chunk and chunk.index(b"</head>") > \
        chunk.index(formgrader_handlers.SCRIPT)
    assert set(inline_script_hashes(chunk.decode())) <= allowed
    assert len(inline_script_hashes(chunk.decode())) == 3 and "'unsafe-inline'" not in allowed
    assert "script-src-attr 'none'" in headers["Content-Security-Policy"]
    assert headers["Content-Length"] == str(len(chunk))
    # the inline handler is gone from the page sent (Chromium reports a refused
    # one as soon as it reads the page), its function named for the script
    body = chunk.split(b"</head>")[1]
    assert b"onclick" not in body
    assert b'<button id="toggle_names" data-bound="toggleAllNames">' in body
    # an answer that is not a page, and a page outside Formgrader, are left alone
    for path, kind in (("/user/t/formgrader/api/submissions", "application/json"),
                       ("/user/t/lab", "text/html")):
        sent = HTTPHeaders({"Content-Type": kind})
        assert formgrader_handlers.handlers_transform("/user/t/formgrader")(
            _request(path)).transform_first_chunk(200, sent, page, True)[2] == page


def test_every_request_that_runs_nbgrader_is_answered_by_the_worker_one_at_a_time():
    """Each of nbgrader's Formgrader addresses whose request runs nbgrader
    (generate, release, unrelease, collect, autograde, feedback) has the course's
    handler, which runs the same API call in the one worker thread; the addresses
    that only read or write the gradebook keep nbgrader's own."""
    import formgrader_handlers
    from nbgrader.server_extensions.formgrader import apihandlers

    runs = {apihandlers.AssignHandler: "generate_assignment",
            apihandlers.UnReleaseHandler: "unrelease",
            apihandlers.ReleaseHandler: "release_assignment",
            apihandlers.CollectHandler: "collect",
            apihandlers.AutogradeHandler: "autograde",
            apihandlers.GenerateAllFeedbackHandler: "generate_feedback",
            apihandlers.ReleaseAllFeedbackHandler: "release_feedback",
            apihandlers.GenerateFeedbackHandler: "generate_feedback",
            apihandlers.ReleaseFeedbackHandler: "release_feedback"}
    nbgraders = {pattern: handler for pattern, handler in apihandlers.default_handlers}
    ours = {pattern: handler.method for pattern, handler in formgrader_handlers.WORKER_HANDLERS}
    assert ours == {pattern: runs[handler] for pattern, handler in nbgraders.items()
                    if handler in runs}
    assert formgrader_handlers.WORKER._max_workers == 1
