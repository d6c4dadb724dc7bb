"""The hashes that name a page's own inline scripts in its Content-Security-Policy
(coursegrader/csp.py).  That Chromium runs exactly those scripts, and no
javascript: address, is tested on the pages themselves
(test_feedback_math.py, test_student_html.py)."""

import pytest

from coursegrader.csp import inline_script_hashes, script_sources


def test_the_hash_is_the_one_the_csp_specification_gives():
    # CSP Level 3, "hash-source": alert('Hello, world.');
    assert inline_script_hashes("<script>alert('Hello, world.');</script>") == \
        ["'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='"]


def test_only_inline_scripts_count_each_once_and_line_breaks_read_as_the_browser_reads():
    page = ('<script src="a.js"></script><SCRIPT type="text/x-config">a\r\nb</SCRIPT>'
            '<p onclick="x()">text</p><script>a\nb</script><script></script>')
    hashes = inline_script_hashes(page)
    assert len(hashes) == 2    # "a\nb" twice (CR LF read as LF), and the empty one
    assert hashes[0] == inline_script_hashes("<script>a\nb</script>")[0]
    assert "'unsafe-inline'" not in script_sources(page)


def test_a_page_without_inline_scripts_allows_none():
    assert script_sources("<p>no script</p>") == "'none'"


def test_bad_input_names_the_argument():
    with pytest.raises(TypeError, match="page"):
        inline_script_hashes(b"<script></script>")
