"""What the class got right and wrong: one offline HTML page per problem set.

``python -m coursegrader.tools.report ps1 ps2`` (``make report``) reads the grading
log that :mod:`coursegrader.tools.batch` keeps (``gradelog/<ps>.jsonl``, the last
record of each student) and writes ``report/<ps>.html``:

* the distribution of scores, in total and per part (plots);
* the checks failed most often, with the inputs they failed on and the most
  common message;
* for each section of the book the parts exercise, how the class did on those
  parts (:mod:`coursegrader.tools.section_summary`), linked to the published
  book when ``CourseSettings.book_url`` is set;
* the submissions that could not be graded, and the parts that timed out or
  whose process crashed;
* how long grading took (per submission, slowest ones, workers used).

Everything comes from the submissions' records
(:class:`~coursegrader.record.SubmissionResult`, which the grading log holds
as the judge wrote them): each case's fields (part, case label, public or
hidden, passed, the inputs of a failing public case, the message on one line)
and each part's stop, an enumerated reason.  No text is parsed for its
structure, so nothing a student prints or raises can add a row. The page is
rendered by the Jinja template ``templates/report/page.html.j2`` with
autoescaping, so every string is shown as text. It is self-contained: plots
are inline SVG drawn by matplotlib, the style sheet is inline, nothing is
loaded from the network.
"""

import argparse
import collections
import datetime
import io
import statistics
import sys
from pathlib import Path

import jinja2
from traitlets import TraitError

from .. import book_sections
from ..settings import CourseSettings, course_config, private_files
from .batch import latest, log_path, read_log, submission_results
from .section_summary import by_section

__all__ = ["summarise", "render", "write_report", "main"]

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "report"
_SHOWN = 20  # rows of the table of failed checks


def summarise(entries, assignment=None):
    """Numbers behind the page, from the last log entry of each student."""
    last = list(latest(entries).values())
    graded = [r for r in last if r["status"] == "graded"]
    failed = [r for r in last if r["status"] != "graded"]
    results = {r["student"]: submission_results(r) for r in graded}
    scores = collections.defaultdict(list)       # part -> [score]
    points, funcs = {}, {}
    variants = collections.defaultdict(set)      # part -> labels of the variants judged
    totals = []
    checks = collections.Counter()                # (part, label) -> times failed
    messages = collections.defaultdict(collections.Counter)
    inputs = collections.defaultdict(collections.Counter)
    hidden = collections.defaultdict(lambda: [0, 0])  # part -> [failed, run]
    troubles = []                                 # (student, part, what stopped it)
    for student, notebooks in results.items():
        totals.append(sum(nb.score for nb in notebooks))
        for nb in notebooks:
            for p in nb.parts:
                scores[p.part].append(p.score)
                points[p.part], funcs[p.part] = p.points, p.function
                if p.variant:
                    variants[p.part].add(p.variant)
                for case in p.cases:
                    if case.hidden:
                        hidden[p.part][0] += not case.passed
                        hidden[p.part][1] += 1
                    elif not case.passed:
                        key = (p.part, case.label)
                        checks[key] += 1
                        messages[key][case.message or ""] += 1
                        inputs[key][case.inputs or ""] += 1
                if p.stop is not None:
                    troubles.append((student, p.part, p.stop.describe()))
            stop = nb.kernel_run.stop if nb.kernel_run else None
            if stop is not None:
                troubles.append((student, "(notebook)", f"{nb.notebook}: notebook run "
                                 f"stopped: {stop.describe(kernel=True)}"))
    most_failed = [
        {"part": part, "label": label, "failed": n, "of": len(graded),
         "inputs": inputs[(part, label)].most_common(1)[0][0],
         "message": messages[(part, label)].most_common(1)[0][0]}
        for (part, label), n in sorted(checks.items(), key=lambda kv: (-kv[1], kv[0]))]
    seconds = [r["seconds"] for r in last]
    return {
        "assignment": assignment, "graded": graded, "failed": failed, "totals": totals,
        "scores": dict(scores), "points": points, "funcs": funcs,
        "variants": {part: len(labels) for part, labels in variants.items()},
        "most_failed": most_failed, "sections": by_section(results, assignment),
        "hidden": {k: tuple(v) for k, v in hidden.items()}, "troubles": troubles,
        "seconds": seconds,
        "workers": len({(r.get("host"), r.get("pid")) for r in last}),
        "slowest": sorted(last, key=lambda r: -r["seconds"])[:10],
    }


# -- drawing ------------------------------------------------------------------
def _svg(fig):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    import matplotlib.pyplot as plt
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _score_plots(s):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: small, searchable
    parts = list(s["scores"])
    panels = ["total"] + parts
    ncols = min(3, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4 * ncols, 2.6 * nrows),
                             squeeze=False)
    for ax, name in zip(axes.flat, panels):
        values = s["totals"] if name == "total" else s["scores"][name]
        top = sum(s["points"].values()) if name == "total" else s["points"][name]
        bins = min(20, max(4, int(top * 2) + 1))
        ax.hist(values, bins=bins, range=(0, top), color="#4477aa", edgecolor="white")
        ax.set_title(f"{name} (of {top:g})", fontsize=10)
        ax.set_xlabel("score")
        ax.set_ylabel("submissions")
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.tight_layout()
    return _svg(fig)


def _time_plot(seconds):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 2.4))
    ax.hist(seconds, bins=min(30, max(5, len(seconds) // 3)), color="#aa7744",
            edgecolor="white")
    ax.set_xlabel("seconds to grade one submission")
    ax.set_ylabel("submissions")
    fig.tight_layout()
    return _svg(fig)


# -- the page -----------------------------------------------------------------
def _num(value):
    return f"{value:g}" if isinstance(value, float) else value


def _section_rows(sections, book_url):
    rows = []
    for row in sections:
        sec = row.section
        rows.append({"text": sec.describe() if sec else row.label,
                     "url": book_sections.link(sec, book_url) if sec else None,
                     "parts": ", ".join(row.parts),
                     "mean": f"{100 * row.mean_share:.0f}%",
                     "lost": f"{row.lost} of {row.students}"})
    return rows


def render(s, book_url=""):
    """The HTML page (a string) for a summary from :func:`summarise`; the sections of
    the book link to the site at ``book_url`` when it is given."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    n = len(s["graded"])
    score_rows = []
    for part, values in s["scores"].items():
        top = s["points"][part]
        score_rows.append((part, s["funcs"].get(part, ""), _num(top),
                           _num(round(statistics.mean(values), 2)),
                           _num(float(statistics.median(values))),
                           f"{100 * sum(v >= top for v in values) / len(values):.0f}%",
                           f"{100 * sum(v == 0 for v in values) / len(values):.0f}%",
                           str(s["variants"].get(part, "")) or "does not vary"))
    sec = s["seconds"]
    time = sec and {"n": len(sec), "total": f"{sum(sec):.0f}",
                    "mean": f"{statistics.mean(sec):.2f}",
                    "median": f"{statistics.median(sec):.2f}",
                    "longest": f"{max(sec):.2f}"}
    return env.get_template("page.html.j2").render(
        title=s["assignment"] or "problem set", graded=n,
        failed=[(r["student"], _num(r["seconds"]), r.get("error", ""))
                for r in s["failed"]],
        written=f"{datetime.datetime.now():%Y-%m-%d %H:%M}",
        score_plot=_score_plots(s) if n else "", score_rows=score_rows,
        most_failed=[(m["part"], m["label"], m["inputs"], f'{m["failed"]} of {m["of"]}',
                      m["message"]) for m in s["most_failed"][:_SHOWN]],
        sections=_section_rows(s["sections"], book_url),
        hidden=[(part, f"{f} of {t}", f"{100 * f / t:.0f}%")
                for part, (f, t) in s["hidden"].items() if t],
        troubles=s["troubles"], time=time, workers=s["workers"],
        time_plot=_time_plot(sec) if sec else "",
        slowest=[(r["student"], _num(r["seconds"]), r["status"]) for r in s["slowest"]])


def write_report(course_root, assignment, out_dir=None):
    """Write ``report/<assignment>.html`` from the grading log; return its path."""
    entries = read_log(course_root, assignment)
    if not entries:
        raise ValueError(f"assignment: no grading log for {assignment!r} "
                         f"({log_path(course_root, assignment)}); "
                         "run 'make autograde' first")
    out = Path(out_dir) if out_dir else Path(course_root) / "report"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{assignment}.html"
    path.write_text(render(summarise(entries, assignment), _book_url(course_root)))
    return path


def _book_url(course_root):
    """The published book's address in the course's settings ("" for none)."""
    try:
        config = course_config(course_root)
    except ValueError:   # a folder without the course's settings: no address
        return ""
    return CourseSettings(config=config).book_url


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m coursegrader.tools.report",
        description="Write report/<ps>.html from the grading log.")
    parser.add_argument("assignments", nargs="+", help="problem sets, e.g. ps1 ps2")
    parser.add_argument("--course", default=".", help="course folder (default: here)")
    parser.add_argument("--out", default=None,
                        help="folder for the pages (default: report/)")
    args = parser.parse_args(argv)
    status = 0
    for ps in args.assignments:
        try:
            print(write_report(args.course, ps, args.out))
        except (ValueError, TraitError) as exc:   # TraitError: a setting refused
            print(f"error: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    private_files()   # what the command creates is the instructor's alone
    sys.exit(main())
