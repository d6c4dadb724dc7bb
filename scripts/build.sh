#!/usr/bin/env bash
# Build the course website and the PDF of the whole book.
#   1. install the Python packages (requirements.txt);
#   2. install Debian's TeX Live for the PDF, when root and missing;
#   3. build the website into _build/html (every chapter executed, warnings
#      are errors);
#   4. build the PDF with Jupyter Book's LaTeX builder and copy it into
#      _build/html, where the website links to it;
#   5. check that nothing under _build/html (pages, notebooks, archives, the
#      student wheel, the PDF) holds a solution, a hidden case or an answer key.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -r requirements.txt

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
        echo "TeX Live or poppler-utils is missing: install $TEX_PACKAGES (sudo apt-get install ...)" >&2
        exit 1
    fi
fi

jupyter-book build -W -n --keep-going .
jupyter-book build -W -n --keep-going --builder pdflatex .
cp _build/latex/kernel-methods.pdf _build/html/kernel-methods.pdf
python3 -m coursegrader.tools.leaks --course assignments _build/html
echo "website: _build/html/index.html   PDF: _build/html/kernel-methods.pdf"
