#!/usr/bin/env bash
# Install what the test suite needs (Python packages, Debian's Chromium for
# the browser test and bubblewrap for the grading sandbox), then run the whole
# suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -r requirements.txt

if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "Chromium is missing: install Debian's 'chromium' package (sudo apt-get install chromium)," \
             "or the browser test will be skipped outside CI." >&2
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
