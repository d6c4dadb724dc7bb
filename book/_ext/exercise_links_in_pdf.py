"""In the PDF, a reference to an exercise of another chapter reaches it.

sphinx-exercise labels an exercise ``exercise:<label>`` in LaTeX and rewrites
the references made within the exercise's own chapter to that label.  A
reference from another chapter is left to Sphinx, which writes it as
``\\hyperref[<docname>:<label>]`` (and a ``{numref}`` as ``\\ref`` of that
label): a label nobody defines, so LaTeX reports it undefined and the PDF
prints "??".  For the LaTeX builder only, this post-transform points those
references at the exercise's own label, keeping the text Sphinx resolved
("Exercise 2.11.6", "this exercise").
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx_exercise.nodes import exercise_latex_number_reference


class ExerciseReferencesInLatex(SphinxPostTransform):
    # After Sphinx has resolved cross-references (priority 10).
    default_priority = 30
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        registry = getattr(self.env, "sphinx_exercise_registry", {})
        for reference in list(self.document.findall(nodes.reference)):
            uri = reference.get("refuri", "")
            # The LaTeX builder writes a reference into another document of
            # the book as "%<docname>#<label>".
            if not uri.startswith("%") or "#" not in uri:
                continue
            docname, label = uri[1:].split("#", 1)
            target = registry.get(label)
            if (target is None or target["docname"] != docname
                    or not target["type"].startswith("exercise")):
                continue
            text = " ".join(reference.astext().split())
            reference.replace_self(exercise_latex_number_reference("", text, refid=label))


def setup(app: Sphinx) -> dict:
    app.add_post_transform(ExerciseReferencesInLatex)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
