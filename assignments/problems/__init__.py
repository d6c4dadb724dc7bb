"""The course's problem sets as students see them: one module ``psN`` per set, with its parts.

Installed (and shipped to students) as ``coursecheck.problems``; the hidden
half of each set stays in the course folder (``hidden/psN.py``).
"""

#: The course's id in nbgrader: where its assignments are fetched from and handed in.
COURSE_ID = "kernel-methods"

#: The folder of nbgrader's shared-folder exchange, unless ``$NBGRADER_EXCHANGE``
#: names another: the course releases there and the student package fetches
#: and submits there (nbgrader's own default, /usr/local/share/nbgrader/exchange,
#: is neither).
EXCHANGE = "/srv/nbgrader/exchange"
