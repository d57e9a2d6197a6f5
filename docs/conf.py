# Sphinx configuration of opgen's documentation (built by ctest's docs.build, with warnings as errors:
#   python3 -m sphinx -W --keep-going -n -b html docs build/docs/html
# Debian: python3-sphinx, python3-myst-parser).
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "_ext"))

project = "opgen"
# The version is the CMake project's.
with open(os.path.join(here, "..", "CMakeLists.txt"), encoding="utf-8") as f:
    release = re.search(r"project\(OpGen VERSION ([0-9.]+)", f.read()).group(1)
version = release

extensions = ["myst_parser", "opgen_cmake"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
# Headings get anchors, so that pages link to sections: [text](libraries.md#kernels-are-checked-at-link-time).
myst_heading_anchors = 3
html_theme = "alabaster"
html_show_sourcelink = False
