#!/usr/bin/env bash
# Install what the test suite needs (Python packages, Debian's Chromium for the
# browser tests, npm and python3-venv for the JupyterHub test, which installs the
# hub itself with deploy/install.sh), then run the whole suite. Extra arguments
# go to pytest.
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

# the JupyterHub test (tests/test_hub.py): configurable-http-proxy comes from npm,
# the hub's environments are built on Debian's Python 3.11
if [ "$(id -u)" = 0 ]; then
    hub_debs=()
    command -v npm >/dev/null 2>&1 || hub_debs+=(npm)
    /usr/bin/python3.11 -c 'import venv, ensurepip' 2>/dev/null || hub_debs+=(python3-venv)
    if [ "${#hub_debs[@]}" -gt 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${hub_debs[@]}" >/dev/null
    fi
fi

exec python3 -m pytest "$@"
