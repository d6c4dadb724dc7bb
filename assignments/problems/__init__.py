"""The course's problem sets as students see them: one module ``psN`` per set, with its parts.

Installed (and shipped to students) as ``coursecheck.problems``; the hidden
half of each set stays in the course folder (``hidden/psN.py``).
"""

#: The course's id in nbgrader: where its assignments are fetched from and handed in.
COURSE_ID = "kernel-methods"
