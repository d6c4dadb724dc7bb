"""The grader's settings: the environment is read in coursegrader/settings.py alone."""

import ast
import pathlib

import pytest
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

import coursegrader
from coursegrader.settings import CourseSettings

GRADER = pathlib.Path(coursegrader.__file__).parent
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
    files = sorted(GRADER.rglob("*.py")) + [ASSIGNMENTS / "nbgrader_config.py"]
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
