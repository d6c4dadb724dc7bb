"""nbgrader settings for students, installed by the student package into the
virtual environment (etc/jupyter/, on Jupyter's configuration path), so that
`nbgrader validate`, `fetch_assignment` and `submit` know the course without
a configuration file in the student's folder.  The course and its exchange
are the ones the instructor's commands use: both are declared once, with the
problem sets (coursecheck.problems), and $NBGRADER_EXCHANGE names another
exchange folder here as it does for the instructor."""

import os

from coursecheck.problems import COURSE_ID, EXCHANGE

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = COURSE_ID   # the course's, declared with its problem sets
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE") or EXCHANGE
