#!/usr/bin/env bash
# The documentation's ctests (docs/CMakeLists.txt):
#   build_docs.sh DOCS OUT                   Sphinx's HTML of DOCS into OUT/html, warnings as errors
#                                            (-W --keep-going), nitpicky (-n), from scratch (-E)
#   build_docs.sh --examples REPO OPGEN      check_examples.py: every code block of README.md and
#                                            docs/ is included from, or checked against, a tested file
#                                            (after its self-test)
# Exit status 77 (skipped), with the reason in one line, where Sphinx or MyST-Parser is missing.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1  # nothing written into the source tree
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Debian's Sphinx and MyST-Parser are /usr/bin/python3's; a python3 earlier on PATH may lack them.
python=
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c 'import sphinx, myst_parser' 2>/dev/null; then python=$candidate; break; fi
done
if [[ -z $python ]]; then
  echo "skipped: Sphinx or MyST-Parser is not installed (Debian: python3-sphinx python3-myst-parser; tool/scripts/dev.sh installs them)"
  exit 77
fi
if [[ ${1:-} == --examples ]]; then
  # The checker first checks itself on made-up pages (it must refuse each kind of untested block).
  out=$("$python" "$here/check_examples.py" --self-test "$3") || { echo "$out"; exit 1; }
  echo "${out##*$'\n'}"
  exec "$python" "$here/check_examples.py" "$2" "$3"
fi
docs=$1 out=$2
"$python" -m sphinx -b html -W --keep-going -n -E -q -d "$out/doctrees" "$docs" "$out/html"
echo "docs.build: $out/html/index.html, without warnings"
