"""opgen's CMake reference, kept where CMake keeps its own: in the module files.

Each module in cmake/ opens with a reStructuredText bracket comment,

    #[=======================================================================[.rst:
    Title
    -----
    ...
    #]=======================================================================]

which CMake skips as a comment. In a docs page, ``.. cmake-module:: ../../cmake/OpGenFunctions.cmake``
inserts that block in place (paths relative to the page), with the module's own line numbers in
warnings, and the build is redone when the module changes. ``.. command:: NAME`` describes a function
(indexed, linkable as :command:`NAME`; in Markdown pages {command}`NAME`).
"""
import re

from docutils.parsers.rst import Directive

# The opening and closing lines of a bracket comment whose content is reStructuredText; the closing
# one has as many '=' as the opening one.
OPENING = re.compile(r"^#\[(=*)\[\.rst:$")


class CMakeModule(Directive):
    required_arguments = 1

    def run(self):
        env = self.state.document.settings.env
        relative, path = env.relfn2path(self.arguments[0])
        env.note_dependency(relative)
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise self.error("cmake-module: cannot read %s: %s" % (path, e.strerror))
        start = next((i for i, line in enumerate(lines) if OPENING.match(line)), None)
        if start is None:
            raise self.error("cmake-module: %s has no '#[==[.rst:' block" % path)
        closing = "#]%s]" % OPENING.match(lines[start]).group(1)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].rstrip() == closing), None)
        if end is None:
            raise self.error("cmake-module: %s: the block opened on line %d is not closed with %s"
                             % (path, start + 1, closing))
        # Blank lines in place of the rest, so that a warning names the module's own line.
        text = [""] * (start + 1) + lines[start + 1:end]
        self.state_machine.insert_input(text, path)
        return []


def setup(app):
    app.add_directive("cmake-module", CMakeModule)
    app.add_object_type("command", "command", indextemplate="pair: %s; CMake command")
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
