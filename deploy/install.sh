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
# The instructors' group (only root and its members may read the instructor's
# environment, which holds coursegrader, and this checkout) and the students' are
# named after the course: $NBGRADER_COURSE_ID, else the course's own id, read
# from the student package this installs (STUDENT_PACKAGE's wheel, else this
# checkout's assignments/problems), without importing it.
COURSE_ID="${NBGRADER_COURSE_ID:-}"
STUDENT_PACKAGE="${STUDENT_PACKAGE:-}"
course_groups() {
    [ -n "$COURSE_ID" ] || COURSE_ID="$("$PYTHON" -I - "$REPO" "$STUDENT_PACKAGE" <<'PY'
import ast, sys, zipfile
repo, wheel = sys.argv[1:]
if wheel:
    source = zipfile.ZipFile(wheel).read("coursecheck/problems/__init__.py")
else:
    source = open(f"{repo}/assignments/problems/__init__.py", "rb").read()
for node in ast.parse(source).body:
    if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["COURSE_ID"]:
        print(ast.literal_eval(node.value))
PY
)"
    if ! [[ "$COURSE_ID" =~ ^[a-z_][a-z0-9_-]{0,19}$ ]]; then
        echo "course id '$COURSE_ID': it names the course's groups and files, so it must be" \
             "1 to 20 characters, lower-case letters, digits, '-' or '_', starting with a" \
             "letter or '_' (set NBGRADER_COURSE_ID)" >&2
        exit 1
    fi
    INSTRUCTORS_GROUP="$COURSE_ID-instructors"
    STUDENTS_GROUP="$COURSE_ID-students"
    LOGIN_PATH_FILE="/etc/profile.d/kernel-course-$COURSE_ID.sh"
}
CHP_VERSION=5.3.0
SETUPTOOLS_VERSION=75.8.0

# The course code, refreshed on every run (cheap; an environment's dependencies are
# rebuilt only when their pins change, see build below).
#   students: the student package (a wheel: kernlab and the public checks, never
#   coursegrader, which holds the hidden checks), built from this checkout by
#   student/build_wheel.py unless STUDENT_PACKAGE names a wheel already built;
#   the instructor: kernlab and coursegrader from this checkout (not editable: the
#   server does not depend on this checkout staying where it is).
student_deps() {
    # the student package's dependencies at the versions the course is tested with
    grep -E '^(numpy|scipy|scikit-learn|cvxpy|clarabel|matplotlib|tqdm|threadpoolctl|jupyterlab|ipykernel|nbgrader|nbclient|jupytext|jupyterlab-myst)==' \
        "$REPO/requirements.txt" > "$1/student-requirements.txt"
    "$1/bin/pip" install "${PIP_FLAGS[@]}" -r "$1/student-requirements.txt"
    # what student/build_wheel.py builds the wheel with (setuptools' own bdist_wheel)
    "$1/bin/pip" install "${PIP_FLAGS[@]}" "setuptools==$SETUPTOOLS_VERSION"
}
refresh_student_course() {
    local venv="$1" wheel="$STUDENT_PACKAGE"
    if [ -z "$wheel" ]; then
        rm -rf "$venv/wheel"
        "$venv/bin/python" "$REPO/student/build_wheel.py" "$venv/wheel" >/dev/null
        wheel="$(ls "$venv"/wheel/*.whl)"
    fi
    "$venv/bin/pip" install "${PIP_FLAGS[@]}" --no-deps --force-reinstall "$wheel"
}
instructor_deps() {
    grep -v '^-e ' "$REPO/requirements.txt" > "$1/instructor-requirements.txt"
    "$1/bin/pip" install "${PIP_FLAGS[@]}" -r "$1/instructor-requirements.txt"
    "$1/bin/pip" install "${PIP_FLAGS[@]}" "setuptools==$SETUPTOOLS_VERSION"
}
refresh_instructor_course() {
    local tmp
    tmp="$(mktemp -d)"
    # a clean copy: no build folders left in the checkout
    (cd "$REPO" && tar --exclude=_build --exclude=.git --exclude='*.egg-info' -cf - \
        pyproject.toml README.md kernlab coursecheck coursegrader assignments/problems) | tar -xf - -C "$tmp"
    "$1/bin/pip" install "${PIP_FLAGS[@]}" --no-deps --force-reinstall --no-build-isolation "$tmp" >/dev/null
    rm -rf "$tmp"
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
# JupyterHub's single-user server forbids every frame (frame-ancestors 'none');
# JupyterLab shows Formgrader in a frame of the same server, so the instructor's
# server allows its own frames, and Formgrader's pages get a stricter policy
# (formgrader_csp.py).
# Formgrader's boxes leave out nbgrader's debug lines (formgrader_log.py).
# Both roles: "Open in the course hub" from the book (course_open.py); a
# server its user's other processes cannot trace or write into, serving on
# the socket below 1024 the hub bound for it (server_guard.py).
# Students: a refused submission explained in a sentence (submit_check.py).
# Formgrader's folder links on a page of its own (formgrader_links.py).
# Formgrader's buttons that nbgrader wires with inline handlers, which the
# policy refuses, bound by a script of the page's own (formgrader_handlers.py).
server = {"ServerApp": {"jpserver_extensions": {"formgrader_csp": teacher,
                                                "formgrader_log": teacher,
                                                "formgrader_links": teacher,
                                                "formgrader_handlers": teacher,
                                                "submit_check": not teacher,
                                                "course_open": True,
                                                "server_guard": True}}}
if teacher:
    server["ServerApp"]["tornado_settings"] = {
        "headers": {"Content-Security-Policy": "frame-ancestors 'self'"}}
with open(os.path.join(etc, "jupyter_server_config.d", "kernel_course.json"), "w") as f:
    json.dump(server, f, indent=2)
PY
    # the role's own server modules: what the hub set for the server (both),
    # Formgrader's policy, the checked submit (and its exchanges' submits,
    # which fail when the exchange did not take it); both: opening the book's
    # chapters and problem sets; the server guarding itself (request_bodies.py
    # counts each client's bodies by clients.py, which goes beside it)
    local module="server_settings.py submit_check.py submit_outcome.py course_open.py server_guard.py request_bodies.py clients.py"
    [ "$role" = instructor ] && module="server_settings.py formgrader_csp.py formgrader_log.py formgrader_links.py formgrader_handlers.py course_open.py server_guard.py request_bodies.py clients.py"
    local purelib
    purelib=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    for m in $module; do cp "$HERE/$m" "$purelib/"; done
    # no news or update pop-up at login
    mkdir -p "$venv/share/jupyter/lab/settings"
    cat > "$venv/share/jupyter/lab/settings/overrides.json" <<'JSON'
{
  "@jupyterlab/apputils-extension:notification": {
    "fetchNews": "false",
    "checkForUpdates": false
  }
}
JSON
}

# Who may read what. Everyone reads the hub's, ngshare's, the students'
# environments and the proxy; the instructor's environment and this checkout
# (it holds coursegrader, and the hub and the book are served from it) are
# root's and the instructors group's only.
close_instructor_only() {
    getent group "$INSTRUCTORS_GROUP" >/dev/null || groupadd "$INSTRUCTORS_GROUP"
    getent group "$STUDENTS_GROUP" >/dev/null || groupadd "$STUDENTS_GROUP"
    chmod -R a+rX,go-w "$PREFIX"
    chown -R root:"$INSTRUCTORS_GROUP" "$PREFIX/instructor"
    chmod -R o-rwx "$PREFIX/instructor"
    chgrp "$INSTRUCTORS_GROUP" "$REPO"
    chmod g-w,o-rwx "$REPO"
}

# A login shell (a JupyterLab terminal is one) gets its PATH from /etc/profile:
# put the environment of the user's role first, chosen by group. One file per
# course, so two courses' installs each keep their own accounts' PATH.
installed_prefix_of() {  # the prefix a course's login-path file names ("" if none)
    if [ -f "$1" ]; then
        sed -n 's|.*PATH="\(.*\)/student/bin:.*|\1|p' "$1" | head -n 1
    fi
}
# Another live install of the same course owns its accounts' PATH: a second one
# at another prefix would give them its own environments. Checked first, before
# anything is built or changed.
check_login_path_free() {
    local file="$LOGIN_PATH_FILE" other
    if [ ! -f "$file" ] && grep -qF "\" $STUDENTS_GROUP \"" /etc/profile.d/kernel-course.sh 2>/dev/null; then
        file=/etc/profile.d/kernel-course.sh      # the single file earlier installs wrote
    fi
    other="$(installed_prefix_of "$file")"
    if [ -n "$other" ] && [ "$other" != "$PREFIX" ] && [ -x "$other/student/bin/python" ]; then
        echo "refused: course $COURSE_ID is already installed under $other, and its" \
             "accounts' login shells take their PATH from there ($file)." \
             "Installing it again under $PREFIX would switch every one of those accounts" \
             "to this copy. Reinstall under $other, remove $other first, or install this" \
             "copy as another course (NBGRADER_COURSE_ID=...). Nothing was changed." >&2
        exit 1
    fi
}
login_path() {
    cat > "$LOGIN_PATH_FILE" <<SH
# The course's environments on PATH (written by deploy/install.sh).
case " \$(id -Gn 2>/dev/null) " in
    *" $INSTRUCTORS_GROUP "*) PATH="$PREFIX/instructor/bin:\$PATH" ;;
    *" $STUDENTS_GROUP "*) PATH="$PREFIX/student/bin:\$PATH" ;;
esac
export PATH
SH
    chmod 644 "$LOGIN_PATH_FILE"
    # the single file earlier installs wrote, replaced by the course's own
    if [ "$(installed_prefix_of /etc/profile.d/kernel-course.sh)" = "$PREFIX" ]; then
        rm -f /etc/profile.d/kernel-course.sh
    fi
}

# Other users' processes (and their command lines) hidden in /proc, where the
# server allows remounting it; root (gid 0) still sees all. deploy/README.md
# says how to make this permanent.
hide_processes() {
    if mount -o remount,hidepid=2,gid=0 /proc 2>/dev/null; then
        echo "/proc: other users' processes hidden (hidepid=2)"
    else
        echo "WARNING: could not remount /proc with hidepid=2: students can see every" \
             "user's processes (see deploy/README.md)" >&2
    fi
}

# Fail loudly if a user outside the instructors group could read instructor-only
# material: checked as the unprivileged user nobody, as a student would try.
check_closed() {
    local failed=0 python
    for python in "$PREFIX/instructor/bin/python" "$PREFIX/student/bin/python" \
                  /usr/bin/python3 /usr/local/bin/python3; do
        [ -e "$python" ] || continue
        if runuser -u nobody -- "$python" -c 'import coursegrader' >/dev/null 2>&1; then
            echo "ERROR: a student can import coursegrader with $python" >&2
            failed=1
        fi
    done
    for path in "$PREFIX/instructor" "$REPO" "$REPO/coursegrader/__init__.py" \
                "$REPO/assignments/hidden/ps1.py"; do
        if runuser -u nobody -- test -r "$path"; then
            echo "ERROR: a student can read $path" >&2
            failed=1
        fi
    done
    if ! runuser -u nobody -- "$PREFIX/student/bin/python" -c 'import kernlab, coursecheck'; then
        echo "ERROR: students cannot use their environment $PREFIX/student" >&2
        failed=1
    fi
    [ "$failed" = 0 ] || { echo "install.sh: instructor-only material is open to students" >&2; exit 1; }
}

# Build one environment unless its inputs are unchanged since the last build.
build() {
    local name="$1"; shift
    local venv="$PREFIX/$name"
    local stamp
    stamp="$(declare -f "$@"; cat "${INPUTS[@]}"; echo "$PYTHON")"
    stamp="$(echo "$stamp" | sha256sum | cut -c1-16)"
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

student_env() { student_deps "$1"; install_user_common "$1"; }
instructor_env() { instructor_deps "$1"; install_user_common "$1"; }

if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "$PYTHON cannot make virtual environments: install Debian's python3-venv" >&2
    exit 1
fi
course_groups
check_login_path_free
mkdir -p "$PREFIX"
chmod 755 "$PREFIX"
# each environment is rebuilt only when the pins it is made from change
INPUTS=("$HERE/requirements-hub.txt"); build hub install_hub
INPUTS=("$HERE/requirements-ngshare.txt"); build ngshare install_ngshare
INPUTS=("$REPO/requirements.txt" "$HERE/requirements-user.txt"); build student student_env
INPUTS=("$REPO/requirements.txt" "$HERE/requirements-user.txt"); build instructor instructor_env
refresh_student_course "$PREFIX/student"
refresh_instructor_course "$PREFIX/instructor"
enable_extensions "$PREFIX/student" student
enable_extensions "$PREFIX/instructor" instructor

if [ ! -x "$PREFIX/proxy/node_modules/.bin/configurable-http-proxy" ]; then
    echo "$PREFIX/proxy: installing configurable-http-proxy $CHP_VERSION"
    mkdir -p "$PREFIX/proxy"
    npm install --silent --no-audit --no-fund --prefix "$PREFIX/proxy" "configurable-http-proxy@$CHP_VERSION" >/dev/null
fi
close_instructor_only
login_path
hide_processes
check_closed
echo "installed under $PREFIX"
