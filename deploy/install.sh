#!/usr/bin/env bash
# Install the course server under one prefix (default /opt/kernel-course):
#
#   $PREFIX/hub         JupyterHub and the PostgreSQL driver (the hub process)
#   $PREFIX/ngshare     the ngshare exchange service (it needs SQLAlchemy 1.4, the hub 2.x)
#   $PREFIX/student     what students' servers run: JupyterLab, nbgrader (Assignments tab),
#                       the ngshare exchange client and the student package
#   $PREFIX/instructor  what the instructor's server runs: the full course (requirements.txt)
#   $PREFIX/proxy       configurable-http-proxy (npm), installed here, not globally
#
# Usage: bash deploy/install.sh [PREFIX]      (safe to repeat: an environment whose
# inputs did not change is left as it is). Needs python3.11 with venv, and npm.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
PREFIX="${1:-${KERNEL_COURSE_PREFIX:-/opt/kernel-course}}"
# The environments are built on a Python 3.11 that every user can run (Debian's;
# not one inside root's home, as pyenv's is).
if [ -z "${PYTHON:-}" ]; then
    for candidate in /usr/bin/python3.11 "$(command -v python3.11 || true)"; do
        if [ -x "$candidate" ] && runuser -u nobody -- "$candidate" -c pass 2>/dev/null; then
            PYTHON="$candidate"
            break
        fi
    done
    [ -n "${PYTHON:-}" ] || { echo "no Python 3.11 that every user can run: install Debian's python3.11" >&2; exit 1; }
fi
PIP_FLAGS=(--quiet --disable-pip-version-check)
CHP_VERSION=5.3.0

# What the students' environment gets as "the course". Point STUDENT_PACKAGE at the
# student wheel (e.g. STUDENT_PACKAGE=_build/html/kernlab-0.1.0-py3-none-any.whl) and
# this is the only step that changes.
STUDENT_PACKAGE="${STUDENT_PACKAGE:-}"
install_student_course() {
    local venv="$1"
    if [ -n "$STUDENT_PACKAGE" ]; then
        "$venv/bin/pip" install "${PIP_FLAGS[@]}" "$STUDENT_PACKAGE"
    else
        # No wheel given: kernlab's pinned dependencies, JupyterLab, jupytext and
        # nbgrader from requirements.txt, and the packages of the student wheel
        # (student/pyproject.toml: kernlab, and coursecheck with the public cases
        # only; never the grader, which holds the hidden checks) copied into the
        # environment.
        grep -E '^(numpy|scipy|scikit-learn|cvxpy|clarabel|matplotlib|tqdm|threadpoolctl|jupyterlab|jupytext|ipykernel|nbgrader|nbclient)==' \
            "$REPO/requirements.txt" > "$venv/student-requirements.txt"
        "$venv/bin/pip" install "${PIP_FLAGS[@]}" -r "$venv/student-requirements.txt"
        local site package
        site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
        for package in kernlab assignments/coursecheck; do
            rm -rf "$site/$(basename "$package")"
            cp -r "$REPO/$package" "$site/$(basename "$package")"
            find "$site/$(basename "$package")" -name __pycache__ -prune -exec rm -rf {} +
        done
    fi
}

install_instructor_course() {
    local venv="$1"
    # the full course: everything in requirements.txt, kernlab and coursegrader
    # installed from the repository (not editable: the server does not depend on
    # this checkout staying where it is)
    grep -v '^-e ' "$REPO/requirements.txt" > "$venv/instructor-requirements.txt"
    "$venv/bin/pip" install "${PIP_FLAGS[@]}" -r "$venv/instructor-requirements.txt"
    "$venv/bin/pip" install "${PIP_FLAGS[@]}" --no-deps --force-reinstall "$REPO"
}

# JupyterHub itself, and the exchange service.
install_hub() {
    "$1/bin/pip" install "${PIP_FLAGS[@]}" -r "$HERE/requirements-hub.txt"
}
install_ngshare() {
    "$1/bin/pip" install "${PIP_FLAGS[@]}" -r "$HERE/requirements-ngshare.txt"
}

# What every user server needs to talk to the hub and to ngshare. ngshare_exchange
# 0.5.3 declares jupyter-core<4.11.2, which JupyterLab 4 cannot use; the only
# jupyter_core function it calls (paths.jupyter_data_dir) is unchanged in 5.x, so it
# is installed without its declared dependencies, and those it needs are pinned in
# requirements-user.txt.
install_user_common() {
    "$1/bin/pip" install "${PIP_FLAGS[@]}" -r "$HERE/requirements-user.txt"
    "$1/bin/pip" install "${PIP_FLAGS[@]}" --no-deps "ngshare_exchange==0.5.3"
}

# nbgrader's JupyterLab extensions by role, at the level of the environment: the
# files `jupyter server extension enable|disable --sys-prefix` and `jupyter
# labextension disable|lock --level=sys_prefix` write, written at once.
enable_extensions() {
    local venv="$1" role="$2"
    mkdir -p "$venv/etc/jupyter"
    cp "$HERE/user_nbgrader_config.py" "$venv/etc/jupyter/nbgrader_config.py"
    "$venv/bin/python" - "$venv/etc/jupyter" "$role" <<'PY'
import json, os, sys
etc, role = sys.argv[1:]
teacher = role == "instructor"
server = {"assignment_list": True, "validate_assignment": True,
          "formgrader": teacher, "course_list": teacher}
os.makedirs(os.path.join(etc, "jupyter_server_config.d"), exist_ok=True)
for ext, on in server.items():
    name = f"nbgrader.server_extensions.{ext}"
    with open(os.path.join(etc, "jupyter_server_config.d", name + ".json"), "w") as f:
        json.dump({"ServerApp": {"jpserver_extensions": {name: on}}}, f, indent=2)
off = [] if teacher else ["formgrader", "course-list", "create-assignment"]
page = {"disabledExtensions": {f"@jupyter/nbgrader:{p}": True for p in off},
        "lockedExtensions": {f"@jupyter/nbgrader:{p}": True for p in off}}
os.makedirs(os.path.join(etc, "labconfig"), exist_ok=True)
with open(os.path.join(etc, "labconfig", "page_config.json"), "w") as f:
    json.dump(page, f, indent=2)
PY
}

# Build one environment unless its inputs are unchanged since the last build.
build() {
    local name="$1"; shift
    local venv="$PREFIX/$name"
    local stamp
    stamp="$(cat "$REPO/requirements.txt" "$HERE"/requirements-*.txt \
             <(echo "$STUDENT_PACKAGE $PYTHON") | sha256sum | cut -c1-16)"
    if [ -f "$venv/.installed" ] && [ "$(cat "$venv/.installed")" = "$stamp" ]; then
        echo "$venv: up to date"
        return
    fi
    echo "$venv: installing"
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/pip" install "${PIP_FLAGS[@]}" --upgrade pip
    "$@" "$venv"
    echo "$stamp" > "$venv/.installed"
}

student_env() { install_student_course "$1"; install_user_common "$1"; }
instructor_env() { install_instructor_course "$1"; install_user_common "$1"; }

if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "$PYTHON cannot make virtual environments: install Debian's python3-venv" >&2
    exit 1
fi
mkdir -p "$PREFIX"
chmod 755 "$PREFIX"
build hub install_hub
build ngshare install_ngshare
build student student_env
build instructor instructor_env
enable_extensions "$PREFIX/student" student
enable_extensions "$PREFIX/instructor" instructor

if [ ! -x "$PREFIX/proxy/node_modules/.bin/configurable-http-proxy" ]; then
    echo "$PREFIX/proxy: installing configurable-http-proxy $CHP_VERSION"
    mkdir -p "$PREFIX/proxy"
    npm install --silent --no-audit --no-fund --prefix "$PREFIX/proxy" "configurable-http-proxy@$CHP_VERSION" >/dev/null
fi
chmod -R a+rX "$PREFIX"
echo "installed under $PREFIX"
