"""The one policy on a submission's file names (coursegrader/plain_paths.py):
names honest students give their files pass; the attack names stay refused, each
refusal naming the character and a name to rename the file to, which passes."""

import pytest

from attacks import HONEST_FILE_NAMES, REFUSED_FILE_NAMES
from coursegrader.plain_paths import path_problem, refusal, renamed


@pytest.mark.parametrize("name", HONEST_FILE_NAMES)
def test_an_honest_name_passes(name):
    assert path_problem(name) is None and refusal(name) is None


@pytest.mark.parametrize("name", sorted(REFUSED_FILE_NAMES))
def test_an_attack_name_is_refused_naming_the_character_and_a_name_that_passes(name):
    said = refusal(name)
    assert said is not None and said.startswith(f"file {name!r} refused: ")
    assert REFUSED_FILE_NAMES[name] in said, said
    suggestion = renamed(name)
    assert f"rename it to {suggestion!r}" in said, said
    assert path_problem(suggestion) is None, suggestion


@pytest.mark.parametrize("name, expected", [
    ("a<b>.txt", "a(b).txt"), ('say "hi".txt', "say 'hi'.txt"), (".env", "env"),
    ("notes/timestamp.txt", "notes/my-timestamp.txt"), ("a\nb.csv", "a b.csv"),
    ("../x.py", "x.py"), ("x" * 300, "x" * 255)])
def test_the_name_to_rename_to_keeps_what_it_can(name, expected):
    assert renamed(name) == expected and path_problem(expected) is None


@pytest.mark.parametrize("path", ["", "/etc/passwd", "a//b", "a/", 7, None, "x" * 256,
                                  "a\x85b", "a\x7fb", "a<b", "a>b", 'a"b', "a\\b",
                                  "a\u2028[I 2026-11-27 ngshare] forged.txt", "a\u202egnp.py"])
def test_other_paths_that_are_not_plain_are_refused(path):
    assert path_problem(path) is not None
