"""Author-year labels for the bibliography page, matching the author-year citations.

sphinxcontrib-bibtex formats citations in the text as (Author, year) with
``bibtex_reference_style: author_year``, but the labels of the bibliography
come from the pybtex formatting style, whose labels are numbers for ``plain``.
This registers the style ``plain_author_year``: pybtex's ``plain`` entries,
sorted by author, labelled "Aronszajn, 1950", "Schölkopf and Smola, 2002" or
"Rahimi et al., 2007" like the citations that point to them.
"""

from pybtex.plugin import register_plugin
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle


def _surname(person):
    return " ".join(part.render_as("text") for part in person.rich_last_names)


def author_year_label(entry):
    """'Surname, year', 'A and B, year' or 'A et al., year' for a pybtex entry."""
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_surname(person) for person in people]
    if len(names) > 2:
        who = f"{names[0]} et al."
    elif names:
        who = " and ".join(names)
    else:
        raise ValueError(f"bibliography entry {entry.key!r} has no author or editor")
    return f"{who}, {entry.fields.get('year', 'n.d.')}"


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        for entry in sorted_entries:
            yield author_year_label(entry)


class PlainAuthorYear(PlainStyle):
    default_label_style = "author_year"


def setup(app):
    register_plugin("pybtex.style.labels", "author_year", AuthorYearLabels)
    register_plugin("pybtex.style.formatting", "plain_author_year", PlainAuthorYear)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
