#!/usr/bin/env bash
# A demo course hub on this machine (run as root):
#
#   bash deploy/demo.sh start    install (first time), create an instructor and three
#                                students, start JupyterHub with ngshare, release ps1
#   bash deploy/demo.sh stop     stop the hub and remove the demo accounts and state
#
# The book is served from DEMO_BOOK (default _build/html, built first with its PDF if it
# is not there). The students and their names are in deploy/demo-students.csv.
# The hub listens on http://127.0.0.1:PORT/, PORT a free one below 100 that hub.py init
# chooses, which only root may bind (deploy/low_ports.py), or $DEMO_PORT when set;
# `start` prints the address last, with the names and passwords (kept in
# $DEMO_STATE/passwords.json).
# Settings: KERNEL_COURSE_PREFIX (default /opt/kernel-course), DEMO_STATE (default
# /var/lib/kernel-course-demo), DEMO_EXCHANGE (ngshare or folder), DEMO_DB_URL
# (e.g. postgresql+psycopg://user:pw@127.0.0.1/jupyterhub; default SQLite in DEMO_STATE),
# DEMO_GRADEBOOK_URL (the same for the instructor's gradebook; default SQLite in the
# course folder), DEMO_FRONT_PROXY (the address of a front proxy the hub trusts, as
# `hub.py init --front-proxy`; deploy/README.md, "Serving the course over HTTPS").
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PREFIX="${KERNEL_COURSE_PREFIX:-/opt/kernel-course}"
STATE="${DEMO_STATE:-/var/lib/kernel-course-demo}"
HUBPY="$PREFIX/hub/bin/python"
REPO="$(cd "$HERE/.." && pwd)"
BOOK="${DEMO_BOOK:-$REPO/_build/html}"

[ "$(id -u)" = 0 ] || { echo "demo.sh must run as root (it creates Unix accounts)" >&2; exit 1; }

# The website and its PDF (as scripts/build.sh makes them), with the instructor's
# environment, which has Jupyter Book and the course, first on PATH.
build_book() {
    echo "building the book into _build/html (a few minutes)"
    (cd "$REPO" && PATH="$PREFIX/instructor/bin:$PATH" jupyter-book build . >/dev/null)
    if command -v latexmk >/dev/null && command -v xelatex >/dev/null; then
        echo "building its PDF"
        (cd "$REPO" && PATH="$PREFIX/instructor/bin:$PATH" \
            jupyter-book build --builder pdflatex . >/dev/null)
        cp "$REPO/_build/latex/kernel-methods.pdf" "$REPO/_build/html/kernel-methods.pdf"
    else
        echo "WARNING: no TeX Live (latexmk, xelatex): the book's PDF link will not work;" \
             "scripts/build.sh lists the packages" >&2
    fi
}

# What grading will use to confine student code, as the instructor's autograde sees it.
CONFINEMENT_PY='
from coursegrader import sandbox
from coursegrader.preprocessors import JudgeSubmission
from coursegrader.settings import course_config
from server_settings import ServerSettings
mode = JudgeSubmission(config=course_config(ServerSettings().course_root)).confinement
try:
    sandbox.check_mode(mode)
    print("grading:", sandbox.describe(mode))
except sandbox.ConfinementUnavailable as why:
    print("WARNING: autograde will refuse to grade:", why)
'

case "${1:-}" in
start)
    # autograde confines student code with bubblewrap
    if ! command -v bwrap >/dev/null; then
        echo "installing bubblewrap"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
    fi
    bash "$HERE/install.sh" "$PREFIX"
    if [ "$BOOK" = "$REPO/_build/html" ] && [ ! -f "$BOOK/kernel-methods.pdf" ]; then
        build_book
    fi
    if [ ! -f "$STATE/settings.json" ]; then
        args=(--prefix "$PREFIX" --instructor demo-teacher
              --students-file "$HERE/demo-students.csv"
              --exchange "${DEMO_EXCHANGE:-ngshare}" --book "$BOOK")
        [ -n "${DEMO_PORT:-}" ] && args+=(--port "$DEMO_PORT")
        [ -n "${DEMO_DB_URL:-}" ] && args+=(--db-url "$DEMO_DB_URL")
        [ -n "${DEMO_GRADEBOOK_URL:-}" ] && args+=(--gradebook-url "$DEMO_GRADEBOOK_URL")
        [ -n "${DEMO_FRONT_PROXY:-}" ] && args+=(--front-proxy "$DEMO_FRONT_PROXY")
        "$HUBPY" "$HERE/hub.py" init "$STATE" "${args[@]}"
    fi
    "$HUBPY" "$HERE/hub.py" start "$STATE"
    "$HUBPY" "$HERE/hub.py" run-as "$STATE" demo-teacher -- python -c "$CONFINEMENT_PY"
    echo "log in as (user: password):"
    "$HUBPY" -c 'import json,sys; [print(f"  {k}: {v}") for k, v in json.load(open(sys.argv[1])).items()]' \
        "$STATE/passwords.json"
    "$HUBPY" -c 'import json,sys; print("open http://127.0.0.1:%d/" % json.load(open(sys.argv[1]))["port"])' \
        "$STATE/settings.json"
    ;;
stop)
    if [ -f "$STATE/settings.json" ]; then
        "$HUBPY" "$HERE/hub.py" destroy "$STATE"
        echo "demo hub stopped; accounts and $STATE removed"
    else
        echo "no demo hub in $STATE"
    fi
    ;;
*)
    echo "usage: bash deploy/demo.sh start|stop" >&2
    exit 2
    ;;
esac
