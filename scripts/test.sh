#!/usr/bin/env bash
# Install what the test suite needs, then run the whole suite on two workers.
# Extra arguments go to pytest (-n 0 runs it in one process).
#   - the Python packages (requirements.txt);
#   - Debian packages, when root and missing: Chromium (browser tests),
#     bubblewrap (the grading sandbox), PostgreSQL (gradebook tests; they start
#     their own server on a free loopback port), TeX Live and poppler-utils
#     (the PDF test), LibreOffice Calc (the exports opened in a spreadsheet),
#     npm and python3-venv (the JupyterHub test, which installs
#     the hub itself with deploy/install.sh, and the LTI test, which builds the
#     hub's environment and the proxy once under ~/.cache/kernel-course), nginx
#     and openssl (the hub behind an HTTPS front proxy, with a self-signed
#     certificate).
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -r requirements.txt

missing=()  # installed with their recommended packages (fonts for Chromium)
bare=()      # TeX Live and LibreOffice without their recommendations (large)
need() {  # need COMMAND-TEST PACKAGE...
    eval "$1" >/dev/null 2>&1 || missing+=("${@:2}")
}
need "command -v chromium" chromium
need "command -v bwrap" bubblewrap
need "compgen -G '/usr/lib/postgresql/*/bin/postgres'" postgresql
command -v latexmk >/dev/null 2>&1 && command -v xelatex >/dev/null 2>&1 || bare=(
     latexmk texlive-xetex texlive-latex-recommended texlive-latex-extra \
     texlive-fonts-recommended fonts-freefont-otf)
need "command -v pdftotext" poppler-utils
command -v soffice >/dev/null 2>&1 || bare+=(libreoffice-calc)   # without recommends
command -v fail2ban-regex >/dev/null 2>&1 || bare+=(fail2ban)    # its filter's test
need "command -v npm" npm
need "command -v make" make
need "/usr/bin/python3.11 -c 'import venv, ensurepip'" python3-venv
need "command -v nginx || test -x /usr/sbin/nginx" nginx-light
need "command -v openssl" openssl

if [ "$(( ${#missing[@]} + ${#bare[@]} ))" -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        export DEBIAN_FRONTEND=noninteractive
        if [ "${#missing[@]}" -gt 0 ]; then
            apt-get install -y -qq "${missing[@]}" >/dev/null
        fi
        if [ "${#bare[@]}" -gt 0 ]; then
            apt-get install -y -qq --no-install-recommends "${bare[@]}" >/dev/null
        fi
    else
        echo "Missing Debian packages: ${missing[*]} ${bare[*]} (sudo apt-get install ...)." \
             "Tests that need them are skipped; autograde refuses to run without bubblewrap." >&2
    fi
fi

# Two workers (pytest-xdist), one per core: most tests wait on a subprocess, so one
# process leaves a core idle.  tests/workers.py keeps each set-up made once per run.
exec python3 -m pytest -n 2 "$@"
