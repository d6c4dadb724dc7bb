"""nbgrader settings for students, installed by the student package into the
virtual environment (etc/jupyter/, on Jupyter's configuration path), so that
`nbgrader validate`, `fetch_assignment` and `submit` know the course without
a configuration file in the student's folder."""

from coursecheck.problems import COURSE_ID

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = COURSE_ID   # the course's, declared with its problem sets
