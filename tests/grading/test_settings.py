"""The grader's settings: read once, from one place each; the environment is read in
coursegrader/settings.py alone."""

import ast
import importlib.util
import os
import pathlib

import pytest
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

import coursegrader
from coursegrader.settings import CourseSettings

GRADER = pathlib.Path(coursegrader.__file__).parent
#: Modules that run only in the hub's instructor environment, with the package
#: they need there (ngshare's client, installed by deploy/install.sh).
NEEDS_THE_HUB = {"coursegrader.tools.ngshare_collect": "ngshare_exchange"}
ASSIGNMENTS = GRADER.parent / "assignments"


def _environment_reads(path):
    """Line numbers where ``path`` reads an environment variable."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get", "getenv") \
                and ast.unparse(node.func.value) in ("os.environ", "os"):
            lines.append(node.lineno)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and ast.unparse(node.value) == "os.environ":
            lines.append(node.lineno)
        elif isinstance(node, ast.Compare) \
                and any(ast.unparse(c) == "os.environ" for c in node.comparators):
            lines.append(node.lineno)
    return lines


def test_only_the_settings_module_reads_the_environment():
    """In the grader and the course's configuration; a hub user's nbgrader
    configuration reads what the hub set through deploy/server_settings.py."""
    deploy = GRADER.parent / "deploy"
    files = sorted(GRADER.rglob("*.py")) + [ASSIGNMENTS / "nbgrader_config.py",
                                            deploy / "user_nbgrader_config.py"]
    reads = {str(p.relative_to(GRADER.parent)): _environment_reads(p) for p in files}
    assert reads.pop("coursegrader/settings.py")      # the one place
    assert {p: n for p, n in reads.items() if n} == {}


def test_the_check_finds_each_way_of_reading_it(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\na = os.environ.get('A')\nb = os.getenv('B')\n"
                     "c = os.environ['C']\nd = 'D' in os.environ\n"
                     "os.environ['E'] = '1'\n")
    assert _environment_reads(probe) == [2, 3, 4, 5]


def test_settings_come_from_the_environment_with_defaults(monkeypatch):
    for name in ("NBGRADER_DB_URL", "COURSEGRADER_PART_TIMEOUT", "DASK_SCHEDULER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COURSEGRADER_CELL_TIMEOUT", "15")
    monkeypatch.setenv("NBGRADER_COURSE_ID", "spring-term")
    settings = CourseSettings()
    assert settings.cell_timeout == 15 and settings.course_id == "spring-term"
    assert settings.db_url is None and settings.part_timeout is None
    assert settings.scheduler == ""
    config = Config()
    config.CourseSettings.cell_timeout = 90        # nbgrader_config.py wins
    assert CourseSettings(config=config).cell_timeout == 90


@pytest.mark.parametrize("name,value", [("COURSEGRADER_CELL_TIMEOUT", "soon"),
                                        ("COURSEGRADER_PART_TIMEOUT", "-3")])
def test_a_malformed_variable_is_refused_by_name(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    attribute = {"COURSEGRADER_CELL_TIMEOUT": "cell_timeout",
                 "COURSEGRADER_PART_TIMEOUT": "part_timeout"}[name]
    with pytest.raises(ValueError, match=f"{name}: expected a positive number of "
                                         f"seconds, got '{value}'"):
        getattr(CourseSettings(), attribute)


def test_the_course_config_takes_the_environment_through_the_settings(monkeypatch):
    monkeypatch.setenv("COURSEGRADER_PART_TIMEOUT", "7.5")
    monkeypatch.setenv("NBGRADER_EXCHANGE", "/srv/elsewhere")
    monkeypatch.delenv("KERNEL_COURSE_EXCHANGE", raising=False)
    c = PyFileConfigLoader("nbgrader_config.py", path=str(ASSIGNMENTS)).load_config()
    assert CourseSettings(config=c).part_timeout == 7.5      # what the judge reads
    assert c.Exchange.root == "/srv/elsewhere"
    assert c.ExchangeFactory.collect == "coursegrader.tools.exchange_collect.NoLinkCollect"
    monkeypatch.setenv("KERNEL_COURSE_EXCHANGE", "ngshare")
    c = PyFileConfigLoader("nbgrader_config.py", path=str(ASSIGNMENTS)).load_config()
    assert "collect" not in c.ExchangeFactory


def test_every_setting_of_the_grader_says_what_it_is_for():
    import importlib

    from traitlets import HasTraits
    undocumented, checked = [], set()
    for path in sorted(GRADER.rglob("*.py")):
        name = ".".join(path.relative_to(GRADER.parent).with_suffix("").parts)
        if name in NEEDS_THE_HUB and importlib.util.find_spec(NEEDS_THE_HUB[name]) is None:
            continue
        module = importlib.import_module(name.removesuffix(".__init__"))
        for cls in vars(module).values():
            if isinstance(cls, type) and issubclass(cls, HasTraits) \
                    and cls.__module__ == module.__name__:
                for t, trait in cls.class_traits(config=True).items():
                    if t in vars(cls):
                        checked.add(f"{cls.__name__}.{t}")
                        if not trait.help:
                            undocumented.append(f"{cls.__name__}.{t}")
    assert {"JudgeSubmission.secret_file", "JudgeSubmission.budget", "HideHiddenTests.begin",
            "CourseSettings.db_url", "CourseSettings.secret", "LatePolicy.per_day"} <= checked
    assert undocumented == []


# ---------------------------------------------------------------- read once, one home each

def _counting_copy(tmp_path, **kwargs):
    """A copy of the course whose nbgrader_config.py notes each time it is read."""
    from conftest import copy_course
    course = copy_course(tmp_path, ["ps1"], **kwargs)
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "open(os.path.join(HERE, 'reads.txt'), 'a')"
                                           ".write(f'{os.getpid()}\\n')\n")
    return course, course.root / "reads.txt"


@pytest.mark.slow
def test_the_course_config_is_read_once_per_process(tmp_path):
    from coursegrader.settings import course_config
    from coursegrader.tools import batch
    course, reads = _counting_copy(tmp_path)
    course.nbgrader("db assignment add", "ps1")     # nbgrader's own app reads it too
    reads.unlink()
    # a run over a class with nothing to grade: its settings, the gradebook, the log
    assert batch.run(course.root, ["ps1"], jobs=1, progress=False) == []
    assert batch.run(course.root, ["ps1"], jobs=1, progress=False) == []
    assert course_config(course.root).CourseDirectory.root == str(course.root)
    assert reads.read_text().split() == [str(os.getpid())]
    # what each caller gets is its own copy
    first = course_config(course.root)
    first.CourseDirectory.db_url = "sqlite:///elsewhere.db"
    assert course_config(course.root).CourseDirectory.db_url != "sqlite:///elsewhere.db"


@pytest.mark.slow   # a class graded by two graders
def test_make_autograde_reads_the_course_config_once(tmp_path):
    import subprocess
    import sys

    from coursegrader.tools.course import fill_answers
    course, reads = _counting_copy(tmp_path, secret="read-once")
    course.nbgrader("db assignment add", "ps1")
    course.nbgrader("generate_assignment", "ps1")
    released, source = course.released("ps1"), course.source("ps1")
    for student in ("alice", "bob", "carol"):
        course.hand_in(student, "ps1", fill_answers(released, source))
    reads.unlink()
    run = subprocess.run([sys.executable, "-m", "coursegrader.tools.batch", "ps1", "--course",
                          str(course.root), "--jobs", "2", "--no-progress"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "graded 3 submission(s), 0 failed" in run.stderr
    assert len(reads.read_text().split()) == 1, reads.read_text()


@pytest.mark.slow
def test_batch_takes_the_scheduler_from_the_course_config(tmp_path, monkeypatch):
    """c.CourseSettings.scheduler in nbgrader_config.py sends the class to that
    cluster, which needs a gradebook on a database server: refused here, at once."""
    from coursegrader.tools import batch
    from conftest import copy_course
    monkeypatch.delenv("DASK_SCHEDULER", raising=False)
    course = copy_course(tmp_path, ["ps1"])
    course.nbgrader("db assignment add", "ps1")
    with open(course.root / "nbgrader_config.py", "a") as f:
        f.write("c.CourseSettings.scheduler = 'tcp://127.0.0.1:9'\n")
    with pytest.raises(ValueError, match="db_url: grading on a cluster needs a gradebook"):
        batch.run(course.root, ["ps1"], jobs=1)


def test_the_gradebook_and_the_course_id_follow_the_course_settings(tmp_path, monkeypatch):
    """nbgrader's CourseDirectory.db_url and course_id have one source each: the
    course's settings (or their environment variables), applied last."""
    from coursecheck.problems import COURSE_ID
    monkeypatch.delenv("NBGRADER_COURSE_ID", raising=False)
    monkeypatch.delenv("NBGRADER_DB_URL", raising=False)
    c = PyFileConfigLoader("nbgrader_config.py", path=str(ASSIGNMENTS)).load_config()
    assert c.CourseDirectory.db_url == f"sqlite:///{ASSIGNMENTS / 'gradebook.db'}?timeout=60"
    assert c.CourseDirectory.course_id == COURSE_ID == "kernel-methods"
    monkeypatch.setenv("NBGRADER_DB_URL", "postgresql+psycopg://grader@db/course")
    monkeypatch.setenv("NBGRADER_COURSE_ID", "spring-term")
    c = PyFileConfigLoader("nbgrader_config.py", path=str(ASSIGNMENTS)).load_config()
    assert c.CourseDirectory.db_url == "postgresql+psycopg://grader@db/course"
    assert c.CourseDirectory.course_id == "spring-term"
    config = (ASSIGNMENTS / "nbgrader_config.py").read_text()
    assert "CourseDirectory.db_url" not in config and "CourseDirectory.course_id" not in config


def test_the_course_id_is_written_once():
    """The literal course id stands in one file; everything else asks for it."""
    import subprocess
    repo = ASSIGNMENTS.parent
    tracked = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True,
                             check=True).stdout.split()
    spelled = [p for p in tracked if p.endswith((".py", ".sh", ".toml", "Makefile"))
               and not p.startswith(("tests/", "benchmarks/"))
               and '"kernel-methods"' in (repo / p).read_text(errors="replace")]
    assert spelled == ["assignments/problems/__init__.py"]


@pytest.mark.slow     # imports every module of coursegrader: about 5 s of CPU
def test_every_setting_is_in_the_help_of_python_m_coursegrader():
    import importlib
    import subprocess
    import sys

    from traitlets import HasTraits
    shown = subprocess.run([sys.executable, "-m", "coursegrader", "--help-all"],
                           capture_output=True, text=True, timeout=120, check=True).stdout
    missing = []
    for path in sorted(GRADER.rglob("*.py")):
        if path.name == "__main__.py":
            continue
        name = ".".join(path.relative_to(GRADER.parent).with_suffix("").parts)
        if name in NEEDS_THE_HUB and importlib.util.find_spec(NEEDS_THE_HUB[name]) is None:
            continue
        module = importlib.import_module(name.removesuffix(".__init__"))
        for cls in vars(module).values():
            if isinstance(cls, type) and issubclass(cls, HasTraits) \
                    and cls.__module__ == module.__name__:
                for trait in cls.class_own_traits(config=True):
                    if f"--{cls.__name__}.{trait}=" not in shown:
                        missing.append(f"{cls.__name__}.{trait}")
    assert "--CourseSettings.db_url=" in shown and "--JudgeSubmission.budget=" in shown
    assert missing == []
