"""The inline scripts a page may run, named by their hashes for its Content-Security-Policy.

A page that shows a student's work allows its own inline ``<script>`` elements
by their SHA-256 (``'sha256-...'``) instead of ``'unsafe-inline'``: then no
``javascript:`` address and no inline event handler runs, whatever slips into
the page (CSP level 2 and later).  The hashes are those of the page as written,
so a script added to a template is refused until the page is written again.
"""

from __future__ import annotations

import base64
import hashlib
import html.parser

__all__ = ["inline_script_hashes", "script_sources", "allow_inline_script",
           "add_inline_script"]


class _InlineScripts(html.parser.HTMLParser):
    """The text of each ``<script>`` without ``src``, as the browser reads it."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "script" and not any(name == "src" for name, _ in attrs):
            self._open = []

    def handle_data(self, data):
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._open is not None:
            # the browser reads a line break as LF before it hashes
            text = "".join(self._open).replace("\r\n", "\n").replace("\r", "\n")
            self.scripts.append(text)
            self._open = None


def inline_script_hashes(page: str) -> list[str]:
    """Each inline script of ``page`` as a CSP source, ``'sha256-<base64>'``, in order."""
    if not isinstance(page, str):
        raise TypeError(f"page must be the page's HTML as str, not {type(page).__name__}")
    parser = _InlineScripts()
    parser.feed(page)
    parser.close()
    return [
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'"
        for s in dict.fromkeys(parser.scripts)
    ]


def script_sources(page: str) -> str:
    """The sources of a ``script-src`` directive that allow ``page``'s inline
    scripts and nothing else inline: their hashes, or ``'none'`` without any."""
    return " ".join(inline_script_hashes(page)) or "'none'"


def allow_inline_script(policy: str, script: str) -> str:
    """``policy`` (a Content-Security-Policy header) with the ``<script>`` element
    ``script`` allowed by its hash in its ``script-src``; a policy without
    ``script-src`` (or none, ``""``) is returned as it is."""
    if not isinstance(policy, str) or not isinstance(script, str):
        raise TypeError("policy and script must be str")
    directives = policy.split(";")
    for i, directive in enumerate(directives):
        if directive.strip().startswith("script-src "):
            allowed = " ".join(inline_script_hashes(script))
            directives[i] = f" script-src {allowed} " + directive.strip()[len("script-src "):]
            return ";".join(directives).strip()
    return policy


def add_inline_script(page: bytes, headers, script: bytes) -> bytes:
    """``page`` (an HTML page as a server sends it) with ``script`` (a ``<script>``
    element) put before its ``</head>``, and ``headers`` (a mutable mapping, as
    tornado's) made to match: its ``Content-Length``, and its
    Content-Security-Policy, if any, allowing ``script`` by its hash.  A page
    without ``</head>`` is returned as it is."""
    if not isinstance(page, bytes) or not isinstance(script, bytes):
        raise TypeError("page and script must be bytes")
    if b"</head>" not in page:
        return page
    page = page.replace(b"</head>", script + b"</head>", 1)
    if "Content-Length" in headers:
        headers["Content-Length"] = str(len(page))
    if "Content-Security-Policy" in headers:
        headers["Content-Security-Policy"] = allow_inline_script(
            headers["Content-Security-Policy"], script.decode("utf-8"))
    return page
