#!/usr/bin/env bash
# Install what the test suite needs (Python packages, Debian's Chromium for
# the browser test, bubblewrap for the grading sandbox, PostgreSQL for the
# gradebook tests, TeX Live and poppler-utils for the PDF test), then run the
# whole suite. Extra arguments go to pytest.
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

# The book test also builds the PDF (TeX Live, the same packages as
# scripts/build.sh) and reads it back with pdftotext (poppler-utils).
TEX_PACKAGES="latexmk texlive-xetex texlive-latex-recommended texlive-latex-extra
              texlive-fonts-recommended fonts-freefont-otf poppler-utils"
if ! command -v latexmk >/dev/null 2>&1 || ! command -v xelatex >/dev/null 2>&1 \
        || ! command -v pdftotext >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            $TEX_PACKAGES >/dev/null
    else
        echo "TeX Live or poppler-utils is missing: install $TEX_PACKAGES" \
             "(sudo apt-get install ...), or the PDF test will be skipped outside CI." >&2
    fi
fi

exec python3 -m pytest "$@"
