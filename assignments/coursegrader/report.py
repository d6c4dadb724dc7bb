"""What the class got right and wrong: one offline HTML page per problem set.

``python -m coursegrader.report ps1 ps2`` (``make report``) reads the grading
log that :mod:`coursegrader.batch` keeps (``gradelog/<ps>.jsonl``, the last
record of each student) and writes ``report/<ps>.html``:

* the distribution of scores, in total and per part (plots);
* the checks failed most often, with the inputs they failed on (public cases,
  described from the problem set's spec) and the most common message;
* the submissions that could not be graded, and the parts that timed out or
  whose process crashed;
* how long grading took (per submission, slowest ones, workers used).

The page is self-contained: plots are inline SVG drawn by matplotlib, the
style sheet is inline, nothing is loaded from the network. Everything a
student wrote (messages of their exceptions included) is escaped.
"""

import argparse
import collections
import datetime
import html
import io
import re
import statistics
import sys
from pathlib import Path

from .batch import latest, log_path, read_log

__all__ = ["parse_part_report", "summarise", "render", "write_report", "main"]

_FAIL = re.compile(r"^\s*FAIL\s+(?:hidden-style )?case '(.+?)': (.*)$")
_HIDDEN = re.compile(r"^\s*(\d+) of (\d+) hidden checks passed")
_NOTE = re.compile(r"^\s*note: (.*)$")
_MESSAGE = 160  # characters of a message shown


def parse_part_report(text):
    """The failed public cases, hidden tally and note of a part's grader report."""
    failed, hidden_failed, hidden_total, note = [], 0, 0, None
    for line in (text or "").splitlines():
        if m := _FAIL.match(line):
            failed.append((m.group(1), m.group(2)))
        elif m := _HIDDEN.match(line):
            hidden_total = int(m.group(2))
            hidden_failed = hidden_total - int(m.group(1))
        elif m := _NOTE.match(line):
            note = m.group(1)
    return {"failed": failed, "hidden_failed": hidden_failed, "hidden_total": hidden_total,
            "note": note}


def _inputs(assignment):
    """{(part_id, case label): short description of the case's arguments}."""
    try:
        from .spec import describe, get_parts
        parts = get_parts(assignment)
    except (ValueError, ImportError):
        return {}, {}
    inputs = {}
    for part_id, part in parts.items():
        for case in part.public():
            text = ", ".join(describe(a) for a in case.args)
            inputs[(part_id, case.label)] = text if len(text) <= _MESSAGE else text[:_MESSAGE] + "..."
    return inputs, {pid: p.func for pid, p in parts.items()}


def summarise(records, assignment=None):
    """Numbers behind the page, from the last log record of each student."""
    last = list(latest(records).values())
    graded = [r for r in last if r["status"] == "graded"]
    failed = [r for r in last if r["status"] != "graded"]
    inputs, funcs = _inputs(assignment) if assignment else ({}, {})
    scores = collections.defaultdict(list)       # part -> [score]
    points = {}
    totals = []
    checks = collections.Counter()                # (part, label) -> times failed
    messages = collections.defaultdict(collections.Counter)
    hidden = collections.defaultdict(lambda: [0, 0])  # part -> [failed, run]
    troubles = []                                 # (student, part, note)
    for r in graded:
        totals.append(sum(p["score"] for p in r["parts"]))
        for p in r["parts"]:
            scores[p["part"]].append(p["score"])
            points[p["part"]] = p["points"]
            parsed = parse_part_report(p.get("report", ""))
            for label, msg in parsed["failed"]:
                checks[(p["part"], label)] += 1
                messages[(p["part"], label)][msg[:_MESSAGE]] += 1
            hidden[p["part"]][0] += parsed["hidden_failed"]
            hidden[p["part"]][1] += parsed["hidden_total"]
            if parsed["note"]:
                troubles.append((r["student"], p["part"], parsed["note"]))
        for note in r.get("notes", []):
            troubles.append((r["student"], "(notebook)", note))
    most_failed = [
        {"part": part, "label": label, "failed": n, "of": len(graded),
         "inputs": inputs.get((part, label), ""),
         "message": messages[(part, label)].most_common(1)[0][0]}
        for (part, label), n in sorted(checks.items(), key=lambda kv: (-kv[1], kv[0]))]
    seconds = [r["seconds"] for r in last]
    return {
        "assignment": assignment, "graded": graded, "failed": failed, "totals": totals,
        "scores": dict(scores), "points": points, "funcs": funcs, "most_failed": most_failed,
        "hidden": {k: tuple(v) for k, v in hidden.items()}, "troubles": troubles,
        "seconds": seconds, "workers": len({(r.get("host"), r.get("pid")) for r in last}),
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
    fig, axes = plt.subplots(nrows, ncols, figsize=(4 * ncols, 2.6 * nrows), squeeze=False)
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
_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.7em; text-align: left;
         vertical-align: top; }
th { background: #f4f4f4; } td.num { text-align: right; }
code { font-size: 90%; background: #f6f6f6; padding: 0 0.2em; }
.muted { color: #777; }
"""


def _e(text):
    return html.escape(str(text))


def _table(header, rows):
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>"]
    for row in rows:
        cells = []
        for value in row:
            num = isinstance(value, (int, float))
            text = f"{value:g}" if isinstance(value, float) else value
            cells.append(f'<td class="num">{_e(text)}</td>' if num else f"<td>{_e(text)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out) + "</table>"


def render(s):
    """The HTML page (a string) for a summary from :func:`summarise`."""
    ps = s["assignment"] or "problem set"
    n = len(s["graded"])
    body = [f"<h1>{_e(ps)}: grading report</h1>",
            f'<p class="muted">{n} submission(s) graded, {len(s["failed"])} could not be '
            f"graded; written {datetime.datetime.now():%Y-%m-%d %H:%M}.</p>"]

    body.append("<h2>Scores</h2>")
    if n:
        body.append(_score_plots(s))
        rows = []
        for part, values in s["scores"].items():
            top = s["points"][part]
            rows.append((part, s["funcs"].get(part, ""), top, round(statistics.mean(values), 2),
                         float(statistics.median(values)),
                         f"{100 * sum(v >= top for v in values) / len(values):.0f}%",
                         f"{100 * sum(v == 0 for v in values) / len(values):.0f}%"))
        body.append(_table(["part", "function", "points", "mean", "median", "full marks",
                            "zero"], rows))
    else:
        body.append("<p>No graded submission yet.</p>")

    body.append("<h2>Checks failed most often</h2>")
    if s["most_failed"]:
        body.append(_table(
            ["part", "check", "inputs", "failed by", "most common message"],
            [(m["part"], m["label"], m["inputs"], f'{m["failed"]} of {m["of"]}',
              m["message"]) for m in s["most_failed"][:20]]))
    else:
        body.append("<p>No public check failed.</p>")
    hidden = [(part, f"{f} of {t}", f"{100 * f / t:.0f}%")
              for part, (f, t) in s["hidden"].items() if t]
    if hidden:
        body.append("<p>Hidden checks (inputs drawn per student) failed, per part:</p>")
        body.append(_table(["part", "failed", "share"], hidden))

    body.append("<h2>Crashed or timed out</h2>")
    if s["failed"]:
        body.append("<p>Submissions that could not be graded (see gradelog/ for the log):</p>")
        body.append(_table(["student", "seconds", "why"],
                           [(r["student"], r["seconds"], r.get("error", ""))
                            for r in s["failed"]]))
    if s["troubles"]:
        body.append("<p>Parts whose run was stopped (the cases without an answer "
                    "count as failed):</p>")
        body.append(_table(["student", "part", "what happened"], s["troubles"]))
    if not s["failed"] and not s["troubles"]:
        body.append("<p>None.</p>")

    body.append("<h2>Grading time</h2>")
    sec = s["seconds"]
    if sec:
        body.append(f"<p>{len(sec)} submission(s), {sum(sec):.0f} s of work in all "
                    f"(mean {statistics.mean(sec):.2f} s, median {statistics.median(sec):.2f} s, "
                    f"longest {max(sec):.2f} s) on {s['workers']} worker process(es).</p>")
        body.append(_time_plot(sec))
        body.append(_table(["slowest", "seconds", "status"],
                           [(r["student"], r["seconds"], r["status"]) for r in s["slowest"]]))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(ps)}: grading report</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def write_report(course_root, assignment, out_dir=None):
    """Write ``report/<assignment>.html`` from the grading log; return its path."""
    records = read_log(course_root, assignment)
    if not records:
        raise ValueError(f"assignment: no grading log for {assignment!r} "
                         f"({log_path(course_root, assignment)}); run 'make autograde' first")
    out = Path(out_dir) if out_dir else Path(course_root) / "report"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{assignment}.html"
    path.write_text(render(summarise(records, assignment)))
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m coursegrader.report",
                                     description="Write report/<ps>.html from the grading log.")
    parser.add_argument("assignments", nargs="+", help="problem sets, e.g. ps1 ps2")
    parser.add_argument("--course", default=".", help="course folder (default: here)")
    parser.add_argument("--out", default=None, help="folder for the pages (default: report/)")
    args = parser.parse_args(argv)
    status = 0
    for ps in args.assignments:
        try:
            print(write_report(args.course, ps, args.out))
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
