"""Keep the built site free of requests to other hosts.

Jupyter Book always loads sphinx-thebe, which writes a configuration script
pointing at a CDN copy of thebe into every page (and, in some builds, writes it
twice, which is a JavaScript error).  The book has no live-code buttons, so
this extension removes sphinx-thebe's script injection altogether.  MathJax is
served from the site by the ``sphinx-mathjax-offline`` extension.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def drop_thebe_scripts(app: Sphinx) -> None:
    """Disconnect sphinx-thebe's handler that adds its scripts to every page."""
    for event, listeners in app.events.listeners.items():
        for listener in list(listeners):
            handler = listener.handler
            if (getattr(handler, "__module__", "") == "sphinx_thebe"
                    and handler.__name__ == "init_thebe_core"):
                app.disconnect(listener.id)


def setup(app: Sphinx):
    app.connect("builder-inited", drop_thebe_scripts)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
