"""What a student's Markdown may cost and fetch when a page shows it.

Rendering Markdown with maths costs time quadratic in the length of some texts
(an unclosed ``\\begin{a}`` repeated), and a remote image is fetched by whoever
opens the page.  A written answer is therefore rendered only up to a length, per
cell and per notebook, and shown as plain text past it; and no image of the
student's is shown, a remote one becomes a link.
"""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from coursegrader.preprocessors.clean_student_html import CleanStudentHTML
from coursegrader.student_html import (MAX_MARKDOWN, MAX_MATH_MARKS, clean_html, clean_markdown,
                                       is_plain_markdown, is_plain_text_block,
                                       student_markdown_html)

#: The attack: an unclosed environment repeated (216 kB: minutes per rendering before)
UNCLOSED = "The candidates: " + "\\begin{a}" * 24000


def test_a_long_answer_is_shown_as_plain_text_and_renders_as_it_reads():
    cleaned = clean_markdown(UNCLOSED)
    assert is_plain_text_block(cleaned)
    assert "\\begin" not in cleaned and "Shown as plain text: longer than 8,000" in cleaned
    # a later viewer renders it as the text the student wrote, inside <pre>, which
    # MathJax leaves alone
    shown = student_markdown_html(cleaned)
    body = shown[shown.index("<pre>") + 5:shown.index("</pre>")]
    assert body == UNCLOSED
    assert clean_markdown(cleaned) == cleaned     # cleaning again keeps it


def test_an_answer_within_the_limit_is_rendered():
    answer = "Kernels: $K \\succeq 0$. " * (MAX_MARKDOWN // 30)
    assert len(answer) <= MAX_MARKDOWN and clean_markdown(answer) == answer


def test_a_block_that_only_looks_like_plain_text_is_cleaned():
    forged = clean_markdown(UNCLOSED).replace("</pre>", "<script>x()</script></pre>")
    assert not is_plain_text_block(forged)
    assert "<script" not in clean_markdown(forged)


def test_the_notebook_has_a_budget_of_rendered_markdown():
    cell = "An answer of a thousand characters. " * 28        # each cell within the limit
    nb = new_notebook(cells=[new_markdown_cell(cell) for _ in range(30)])
    pre = CleanStudentHTML(markdown_budget=5 * len(cell))
    nb, _ = pre.preprocess(nb, {})
    plain = [is_plain_text_block(c.source) for c in nb.cells]
    assert plain == [False] * 5 + [True] * 25
    assert "the notebook's Markdown is longer than" in nb.cells[5].source
    again, _ = pre.preprocess(nbformat.from_dict(nb), {})   # feedback cleans it again
    assert [c.source for c in again.cells] == [c.source for c in nb.cells]


def test_no_image_of_a_student_is_fetched():
    md = "See ![a plot](https://tracker.example/pixel.png) here."
    assert not is_plain_markdown(md)
    cleaned = clean_markdown(md)
    assert "<img" not in cleaned
    assert '<a href="https://tracker.example/pixel.png" rel="noopener noreferrer nofollow">' \
           '[image: a plot]</a>' in cleaned
    raw = clean_html('<p><img src="http://tracker.example/r.png" alt="x&gt;y" width="9"></p>')
    assert raw == ('<p><a href="http://tracker.example/r.png" rel="noopener noreferrer '
                   'nofollow">[image: x&gt;y]</a></p>')
    assert clean_html('<img src="data:image/png;base64,AAAA" alt="inline">') == "[image: inline]"
    assert clean_html('<img src="x" onerror="alert(1)">') == "[image: image]"


def test_many_maths_delimiters_are_shown_as_plain_text():
    # "\\\\[" repeated: each makes the maths rules scan to the end again (seconds at 8 kB)
    attack = "\\\\[" * (MAX_MATH_MARKS + 1)
    assert len(attack) < MAX_MARKDOWN
    cleaned = clean_markdown(attack)
    assert is_plain_text_block(cleaned) and "more than 200 maths delimiters" in cleaned
    honest = "$$\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}$$\n" * 20
    assert clean_markdown(honest) == honest


def test_markdown_outputs_share_the_notebooks_budget():
    """The Markdown a student's code displays is counted with the cells."""
    text = "An output of a thousand characters. " * 28
    outputs = [new_output("display_data", data={"text/markdown": text, "text/plain": "x"})
               for _ in range(10)]
    nb = new_notebook(cells=[new_markdown_cell(text), new_code_cell("show()", outputs=outputs)])
    nb, _ = CleanStudentHTML(markdown_budget=4 * len(text)).preprocess(nb, {})
    shown = [o["data"]["text/markdown"] for o in nb.cells[1].outputs]
    assert nb.cells[0].source == text
    assert [is_plain_text_block(t) for t in shown] == [False] * 3 + [True] * 7
