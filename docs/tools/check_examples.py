#!/usr/bin/env python3
"""No example in the docs that no test runs (ctest's docs.examples).

    check_examples.py REPO OPGEN
    check_examples.py --self-test OPGEN   the checker on made-up pages: each kind of block it must
                                          refuse is refused, and each it must accept is accepted

Reads README.md and every docs/**/*.md of REPO as Markdown (markdown-it, MyST's parser) and fails,
naming FILE:LINE, on a code block that is neither
  - a {literalinclude} of a file of a test project that ctest builds and runs (test_projects/NAME/,
    where test_projects/CMakeLists.txt or run_test.sh names NAME), nor
  - a fenced block right after a marker comment that says how it is checked, and that holds:
      <!-- example: excerpt PATH -->  the block is a run of consecutive lines of PATH (a tested file:
                                       test_projects/NAME/..., tool/test/..., tool/scripts/...), as
                                       the README shows test_projects/myops (it cannot include files);
      <!-- example: run-by PATH -->   each line of the block is in PATH, a test script that runs it;
      <!-- example: help COMMAND -->  each line of the block is in the output of `opgen COMMAND --help`.
Indented code blocks are refused (they can carry no marker). Directives that show no code (toctree,
note, warning, seealso, include of a Markdown file) pass. Exit status 0 when every block is accounted
for, 1 otherwise, 77 (skipped) without markdown-it.
"""
import os
import re
import subprocess
import sys

try:
    from markdown_it import MarkdownIt
except ImportError:
    print("skipped: markdown-it-py is not installed (Debian: python3-markdown-it, a dependency of "
          "python3-myst-parser; tool/scripts/dev.sh installs it)")
    sys.exit(77)

MARKER = re.compile(r"^<!--\s*example:\s*(excerpt|run-by|help)\s+(\S.*?)\s*-->\s*$")
PROSE_DIRECTIVES = {"toctree", "note", "warning", "seealso", "include"}
TESTED_SCRIPTS = ("tool/test/", "tool/scripts/")


def tested_projects(repo):
    """The folders of test_projects/ that the plugin tests build (named in their CMake file or script)."""
    text = ""
    for name in ("CMakeLists.txt", "run_test.sh"):
        with open(os.path.join(repo, "test_projects", name), encoding="utf-8") as f:
            text += f.read()
    folder = os.path.join(repo, "test_projects")
    return {d for d in os.listdir(folder)
            if os.path.isdir(os.path.join(folder, d)) and re.search(r"\b%s\b" % re.escape(d), text)}


def is_tested_file(repo, path, projects, scripts_too):
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(repo)).replace(os.sep, "/")
    if rel.startswith("../") or not os.path.isfile(path):
        return False
    parts = rel.split("/")
    if parts[0] == "test_projects" and len(parts) > 2 and parts[1] in projects:
        return True
    return scripts_too and (rel.startswith(TESTED_SCRIPTS) or rel == "test_projects/run_test.sh")


def squeeze(text):
    return " ".join(text.split())


def check_file(md, repo, opgen, projects, helps):
    problems = []
    with open(md, encoding="utf-8") as f:
        tokens = MarkdownIt("commonmark").parse(f.read())
    where = os.path.relpath(md, repo)
    previous = None
    for token in tokens:
        if token.type not in ("fence", "code_block"):
            if token.type != "html_block" or not MARKER.match(token.content.strip()):
                previous = token if token.type == "html_block" else None
            else:
                previous = token
            continue
        line = token.map[0] + 1 if token.map else 0
        say = lambda message: problems.append("%s:%d: %s" % (where, line, message))
        marker = MARKER.match(previous.content.strip()) if previous is not None else None
        previous = None
        if token.type == "code_block":
            say("an indented code block: write it as a fenced block of a tested file (see docs/tools/check_examples.py)")
            continue
        info = token.info.strip()
        directive = re.match(r"^\{([\w-]+)\}\s*(.*)$", info)
        if directive and directive.group(1) in PROSE_DIRECTIVES:
            target = directive.group(2).strip()
            if directive.group(1) == "include" and not target.endswith(".md"):
                say("{include} of %s: include only Markdown; show code with {literalinclude}" % target)
            continue
        if directive and directive.group(1) == "literalinclude":
            target = os.path.join(os.path.dirname(md), directive.group(2).strip())
            if not is_tested_file(repo, target, projects, scripts_too=False):
                say("{literalinclude} of %s: not a file of a test project that ctest builds and runs "
                    "(test_projects/NAME/, %s)" % (directive.group(2).strip(), ", ".join(sorted(projects))))
            continue
        if marker is None:
            say("a code block (%s) that no test runs: include it from a tested file with {literalinclude}, "
                "or mark how it is checked (<!-- example: excerpt|run-by|help ... -->)" % (info or "no language"))
            continue
        kind, argument = marker.groups()
        lines = [l.rstrip() for l in token.content.rstrip("\n").split("\n")]
        if kind == "help":
            if argument not in helps:
                run = subprocess.run([opgen] + argument.split() + ["--help"], capture_output=True, text=True)
                helps[argument] = squeeze(run.stdout + run.stderr) if run.returncode == 0 else None
            if helps[argument] is None:
                say("`opgen %s --help` failed" % argument)
                continue
            missing = [l for l in lines if l.strip() and squeeze(l) not in helps[argument]]
            if missing:
                say("not in `opgen %s --help`: %s" % (argument, missing[0].strip()))
            continue
        path = os.path.join(repo, argument)
        if not is_tested_file(repo, path, projects, scripts_too=True):
            say("%s: not a tested file (test_projects/NAME/ of a tested project, tool/test/, tool/scripts/)" % argument)
            continue
        with open(path, encoding="utf-8") as f:
            source = [l.rstrip() for l in f.read().split("\n")]
        if kind == "excerpt":
            n = len(lines)
            if not any(source[i:i + n] == lines for i in range(len(source) - n + 1)):
                say("not consecutive lines of %s (the block must be copied from it as it is)" % argument)
        else:  # run-by
            missing = [l for l in lines if l.strip() and not any(l.strip() in s for s in source)]
            if missing:
                say("%s does not run: %s" % (argument, missing[0].strip()))
    return problems


def self_test(opgen):
    import tempfile
    with tempfile.TemporaryDirectory() as repo:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
            with open(os.path.join(repo, path), "w", encoding="utf-8") as f:
                f.write(text)
        write("test_projects/CMakeLists.txt", "opgen_plugin_test(tested_project COMMAND project tested)\n")
        write("test_projects/run_test.sh", "#!/bin/sh\ncmake --build build\n")
        write("test_projects/tested/a.py", "one\ntwo\nthree\n")
        write("test_projects/untested/b.py", "one\n")
        fence = "`" * 3
        block = lambda info, text, marker="": "%s%s%s\n%s\n%s\n\n" % (
            "<!-- example: %s -->\n" % marker if marker else "", fence, info, text, fence)
        good = [block("{literalinclude} ../test_projects/tested/a.py", ""), block("{toctree}", "page"),
                block("{include} other.md", ""), block("py", "two\nthree", "excerpt test_projects/tested/a.py"),
                block("sh", "cmake --build build", "run-by test_projects/run_test.sh"),
                block("", "opgen parse NATIVE_FUNCTIONS_YAML", "help parse")]
        bad = [block("{literalinclude} ../test_projects/untested/b.py", ""), block("python", "one"),
               block("{code-block} python", "one"), block("{include} ../test_projects/tested/a.py", ""),
               block("py", "three\ntwo", "excerpt test_projects/tested/a.py"),
               block("sh", "rm -rf /", "run-by test_projects/run_test.sh"),
               block("", "opgen parse --no-such-option", "help parse"),
               block("py", "one", "excerpt test_projects/untested/b.py"), "text\n\n    an indented block\n\n"]
        write("docs/good.md", "".join(good))
        write("docs/bad.md", "".join(bad))
        projects = tested_projects(repo)
        accepted = check_file(os.path.join(repo, "docs/good.md"), repo, opgen, projects, {})
        refused = check_file(os.path.join(repo, "docs/bad.md"), repo, opgen, projects, {})
    for p in accepted:
        print("refused, but should have been accepted: " + p)
    for p in refused:
        print("refused, as it should be: " + p)
    if accepted or len(refused) != len(bad):
        print("check_examples.py --self-test: %d of %d good blocks refused, %d of %d bad ones"
              % (len(accepted), len(good), len(refused), len(bad)))
        return 1
    print("check_examples.py --self-test: the %d blocks that must be refused were, the %d others passed"
          % (len(bad), len(good)))
    return 0


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    if sys.argv[1] == "--self-test":
        return self_test(sys.argv[2])
    repo, opgen = sys.argv[1], sys.argv[2]
    projects = tested_projects(repo)
    pages = [os.path.join(repo, "README.md")]
    for folder, _, files in os.walk(os.path.join(repo, "docs")):
        pages += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".md")]
    problems, helps = [], {}
    for md in sorted(pages):
        problems += check_file(md, repo, opgen, projects, helps)
    for p in problems:
        print(p)
    print("docs.examples: %d pages, %d code blocks not checked by a test" % (len(pages), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
