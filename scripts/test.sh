#!/usr/bin/env bash
# Install what the test suite needs (Python packages, Debian's Chromium for
# the browser test, bubblewrap for the grading sandbox and PostgreSQL for the
# gradebook tests), then run the whole
# suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -r requirements.txt

# Debian packages: Chromium for the browser test, PostgreSQL (a real server
# for the gradebook tests; they start their own on a free loopback port).
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || missing+=(postgresql)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "Missing Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]});" \
             "the tests that need them are skipped outside CI." >&2
    fi
fi

if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
    else
        echo "bubblewrap is missing: install Debian's 'bubblewrap' package (sudo apt-get install" \
             "bubblewrap); autograde refuses to run student code without it." >&2
    fi
fi

exec python3 -m pytest "$@"
