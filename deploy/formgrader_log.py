"""Formgrader's boxes without nbgrader's debug lines.

A server extension of the instructor's environment (install.sh copies this file
into it and enables it). Formgrader's collect, autograde and feedback boxes
show what nbgrader logged during the run, at the level of the server's own
logger: each request hands that logger's level to the nbgrader run it starts.
traitlets leaves the logger itself at DEBUG and filters only at its console
handler (``log_level``), so setting ``log_level`` changes nothing in the boxes.
This sets the logger to INFO when the server was not asked for debug output.
"""

import logging


def _jupyter_server_extension_points():
    return [{"module": "formgrader_log"}]


def _load_jupyter_server_extension(serverapp):
    if serverapp.log_level > logging.DEBUG and serverapp.log.level < logging.INFO:
        serverapp.log.setLevel(logging.INFO)
        serverapp.log.info("Formgrader's boxes show nbgrader's log from INFO up")
