"""What graded code may not use, and the words that say so.

The grader runs each graded function in a separate process where these
top-level modules cannot be imported; the check in the notebook warns about
the same modules with the same message, so a student reads one sentence in
both places.
"""

__all__ = ["FORBIDDEN_IMPORTS", "forbidden_import_message"]

# The course's reference library and the libraries that would do the work for
# the student, and the course's own checking and grading code.
FORBIDDEN_IMPORTS = ("kernlab", "sklearn", "coursegrader", "coursecheck", "nbgrader")


def forbidden_import_message(name):
    """The sentence shown when graded code imports module ``name`` (e.g. ``"kernlab.svm"``)."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty module name, got {name!r}")
    return f"importing {name} is not allowed in graded code"
