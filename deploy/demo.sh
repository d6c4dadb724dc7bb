#!/usr/bin/env bash
# A demo course hub on this machine (run as root):
#
#   bash deploy/demo.sh start    install (first time), create an instructor and three
#                                students, start JupyterHub with ngshare, release ps1
#   bash deploy/demo.sh stop     stop the hub and remove the demo accounts and state
#
# The book is served from DEMO_BOOK (default _build/html, built first if it is not there).
# The hub listens on http://127.0.0.1:$DEMO_PORT (default 8000); the names and
# passwords are printed by `start` (and kept in $DEMO_STATE/passwords.json).
# Settings: KERNEL_COURSE_PREFIX (default /opt/kernel-course), DEMO_STATE (default
# /var/lib/kernel-course-demo), DEMO_EXCHANGE (ngshare or folder), DEMO_DB_URL
# (e.g. postgresql+psycopg://user:pw@127.0.0.1/jupyterhub; default SQLite in DEMO_STATE),
# DEMO_GRADEBOOK_URL (the same for the instructor's gradebook; default SQLite in the
# course folder).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PREFIX="${KERNEL_COURSE_PREFIX:-/opt/kernel-course}"
STATE="${DEMO_STATE:-/var/lib/kernel-course-demo}"
HUBPY="$PREFIX/hub/bin/python"
BOOK="${DEMO_BOOK:-$HERE/../_build/html}"

[ "$(id -u)" = 0 ] || { echo "demo.sh must run as root (it creates Unix accounts)" >&2; exit 1; }

case "${1:-}" in
start)
    bash "$HERE/install.sh" "$PREFIX"
    if [ ! -f "$BOOK/index.html" ]; then
        echo "building the book into _build/html (a few minutes)"
        (cd "$HERE/.." && "$PREFIX/instructor/bin/jupyter-book" build . >/dev/null)
    fi
    if [ ! -f "$STATE/settings.json" ]; then
        args=(--prefix "$PREFIX" --instructor demo-teacher --students demo-ada,demo-bob,demo-cy
              --exchange "${DEMO_EXCHANGE:-ngshare}" --port "${DEMO_PORT:-8000}" --book "$BOOK")
        [ -n "${DEMO_DB_URL:-}" ] && args+=(--db-url "$DEMO_DB_URL")
        [ -n "${DEMO_GRADEBOOK_URL:-}" ] && args+=(--gradebook-url "$DEMO_GRADEBOOK_URL")
        "$HUBPY" "$HERE/hub.py" init "$STATE" "${args[@]}"
    fi
    "$HUBPY" "$HERE/hub.py" start "$STATE"
    echo "log in as (user: password):"
    "$HUBPY" -c 'import json,sys; [print(f"  {k}: {v}") for k, v in json.load(open(sys.argv[1])).items()]' \
        "$STATE/passwords.json"
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
