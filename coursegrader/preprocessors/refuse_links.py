"""RefuseLinks: a submission holding a symbolic link is not graded."""

import os

from nbgrader.preprocessors import NbGraderPreprocessor

__all__ = ["RefuseLinks"]


class RefuseLinks(NbGraderPreprocessor):
    """Refuse a submission whose folder holds a symbolic link (first sanitize step).

    nbgrader follows links when it reads the notebook and copies the other
    files, so a link to the course secret or the instructor's notebook would
    hand their content to the student's code or to the grader as the
    student's work.  Such a submission is not graded at all.
    """

    def preprocess(self, nb, resources):
        meta = resources.get("metadata", {})
        folder = meta.get("path") or os.getcwd()
        notebook = os.path.join(folder, (meta.get("name") or "") + ".ipynb")
        links = [notebook] if os.path.islink(notebook) else []
        for top, dirs, files in os.walk(folder):
            links += [os.path.join(top, n) for n in dirs + files
                      if os.path.islink(os.path.join(top, n))]
        if links:
            names = ", ".join(os.path.relpath(p, folder) for p in links[:5])
            raise ValueError(f"the submission holds symbolic links ({names}); links "
                             "are refused, hand in plain files")
        return nb, resources

