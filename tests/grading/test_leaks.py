"""The leak scan (coursegrader.tools.leaks) finds answers however they are packed.

A small site is made in a temporary folder: public files only, then with a
solution hidden in an archive inside an archive, a highlighted solution line
in an HTML page and an answer-key entry in a JSON file. The scan of the whole
built site is in tests/book/test_book.py.
"""

import io
import shutil
import zipfile
from pathlib import Path

import pytest

from coursegrader.tools.leaks import course_secrets, find_leaks

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def secrets():
    return course_secrets(ROOT / "assignments")


def _public_site(root: Path) -> Path:
    site = root / "site"
    (site / "_sources" / "book" / "chapters").mkdir(parents=True)
    for chapter in (ROOT / "book" / "chapters").glob("*.md"):
        shutil.copy(chapter, site / "_sources" / "book" / "chapters" / chapter.name)
    with zipfile.ZipFile(site / "kernlab.whl", "w") as wheel:
        for path in (ROOT / "kernlab").glob("*.py"):
            wheel.write(path, f"kernlab/{path.name}")
        for path in (ROOT / "coursecheck").rglob("*.py"):
            wheel.write(path, f"coursecheck/{path.relative_to(path.parents[1])}")
        for path in (ROOT / "assignments" / "problems").glob("*.py"):
            wheel.write(path, f"coursecheck/problems/{path.name}")
    return site


def test_public_material_is_no_leak(tmp_path, secrets):
    assert find_leaks(_public_site(tmp_path), secrets) == []


def test_answers_are_found_in_nested_archives_pages_and_data(tmp_path, secrets):
    site = _public_site(tmp_path)
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as wheel:
        wheel.write(ROOT / "assignments" / "source" / "ps5" / "ps5.md", "notes/ps5.md")
        wheel.write(ROOT / "assignments" / "hidden" / "ps4.py", "x/ps4.py")
    with zipfile.ZipFile(site / "ps1.zip", "w") as archive:
        archive.writestr("ps1/extra.whl", inner.getvalue())
    # "K = np.zeros((len(S), len(T)))" of ps3's solution, as Pygments highlights it
    (site / "page.html").write_text(
        '<pre><span class="n">K</span> <span class="o">=</span> <span class="n">np</span>'
        '<span class="o">.</span><span class="n">zeros</span><span class="p">((</span>'
        '<span class="nb">len</span><span class="p">(</span><span class="n">S</span>'
        '<span class="p">),</span> <span class="nb">len</span><span class="p">(</span>'
        '<span class="n">T</span><span class="p">)))</span></pre>')
    # ps1's verdicts, the grader's rule on a variant's candidates, as a page would quote it
    (site / "key.html").write_text(
        "<p>if kind == &quot;cos(x_i + s z_i)&quot;: # cos(x - z) = cos x cos z + sin x "
        "sin z; cos(2 x) &lt; 0</p>")
    found = {(leak.place, leak.secret.origin) for leak in find_leaks(site, secrets)}
    assert ("ps1.zip!ps1/extra.whl!notes/ps5.md", "ps5 solution") in found
    assert ("ps1.zip!ps1/extra.whl!x/ps4.py", "hidden cases ps4.py") in found
    assert ("page.html", "ps3 solution") in found
    assert ("key.html", "hidden cases ps1.py") in found
