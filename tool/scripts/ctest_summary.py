#!/usr/bin/env python3
"""What a ctest run did, per suite, and whether its skips are the expected ones.

    ctest_summary.py CTEST_OUTPUT LAST_TEST_LOG

CTEST_OUTPUT is what `ctest` printed (its result lines), LAST_TEST_LOG ctest's own log
(Testing/Temporary/LastTest.log), which holds each test's output. Prints, for each suite (a test's name
up to its first '.' without a parameterized instance's prefix, or plugin_<runtime> for the plugin
tests), how many tests passed, failed and were
skipped; each skipped test with its reason in one line; then one closing line:

    dev.sh: N passed, N failed, N skipped

Exit status: 0 when nothing failed and every skip has an expected reason (the README lists them:
tool/scripts/dev.sh test), 1 otherwise. With OPGEN_ALLOW_SKIPS=1 any skip is accepted (a machine
that lacks what a suite needs, on purpose); the skips are still listed.
"""
import os
import re
import sys

# The reasons a test may be skipped on a machine set up by `dev.sh test`, and why that is right. A
# skip for any other reason means that something the suite needs is missing or broken there.
EXPECTED_SKIPS = [
    (re.compile(r"running as root"), "permission tests: root is not refused a read-only folder"),
    (re.compile(r"torchgen\.gen fails on this input"), "a fixture the reference itself cannot generate"),
    (re.compile(r"\bno (NVIDIA )?GPU\b|\bCUDA\b", re.I), "CUDA tests: the machine has no GPU or CUDA toolkit"),
    (re.compile(r"PyTorch [0-9][0-9a-z.+]* (has|lacks|does not have)|not on PyTorch [0-9.]+", re.I),
     "a check the runtime's PyTorch version does not have"),
    (re.compile(r"has no scikit-build-core"), "wheel tests on Debian 12's Python, which has no scikit-build-core"),
]

# "  12/440 Test  #7: Suite.Name[  # GetParam() = ...] ......   Passed    0.01 sec" (or ***Failed, ...)
RESULT = re.compile(r"^\s*\d+/(\d+) Test\s+#\d+: (\S+) .*?(?:\*\*\*|\s)([A-Z][A-Za-z ]*?)(?::.*?)?\s+[0-9.]+ sec\s*$")


def suite_of(name):
    if "." in name:  # GoogleTest: [Instance/]Suite.Test[/Param]
        return name.split(".", 1)[0].split("/")[-1]
    m = re.match(r"(plugin_[a-z0-9]+)_", name)
    return m.group(1) if m else name


def skip_reasons(log_path):
    """Test name -> the first line of its output that says why it was skipped."""
    reasons = {}
    name, after, said = None, False, False
    try:
        lines = open(log_path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return reasons
    for line in lines:
        m = re.match(r"^\d+/\d+ Test: (\S+)", line)
        if m:
            name, after, said = m.group(1), False, False
            continue
        if name is None or said:
            continue
        if after:
            if line.strip():
                reasons[name], said = line.strip(), True
            continue
        if line.rstrip().endswith(": Skipped"):
            after = True
        elif "skipped:" in line:
            reasons[name], said = re.sub(r"^.*?skipped:\s*", "", line).strip(), True
    return reasons


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    # The output of a failed test, printed in between, may hold result lines of another ctest (the
    # plugin tests run their projects' own): keep the lines of the run with the most of them.
    by_total = {}
    for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
        m = RESULT.match(line)
        if m:
            by_total.setdefault(m.group(1), {})[m.group(2)] = m.group(3)
    results = max(by_total.values(), key=len) if by_total else {}
    if not results:
        print("dev.sh: ctest ran no test")
        return 1
    reasons = skip_reasons(sys.argv[2])
    suites = {}
    for name, result in results.items():
        counts = suites.setdefault(suite_of(name), {"passed": 0, "failed": 0, "skipped": 0})
        counts["passed" if result == "Passed" else "skipped" if result == "Skipped" else "failed"] += 1

    unexpected = []
    skipped = sorted(n for n, r in results.items() if r == "Skipped")
    if skipped:
        print("Skipped tests, and why:")
        for name in skipped:
            reason = reasons.get(name, "(the test printed no reason)")
            why = next((w for pattern, w in EXPECTED_SKIPS if pattern.search(reason)), None)
            if why is None:
                unexpected.append(name)
            print("  %s: %s%s" % (name, reason, "" if why else "   <- not an expected skip"))
    print("Per suite (passed / failed / skipped):")
    width = max(len(s) for s in suites)
    for suite in sorted(suites):
        c = suites[suite]
        print("  %-*s %4d %4d %4d" % (width, suite, c["passed"], c["failed"], c["skipped"]))
    total = {k: sum(c[k] for c in suites.values()) for k in ("passed", "failed", "skipped")}
    status = 0 if total["failed"] == 0 else 1
    if unexpected:
        if os.environ.get("OPGEN_ALLOW_SKIPS") == "1":
            print("%d tests were skipped for reasons the README does not list; accepted (OPGEN_ALLOW_SKIPS=1)"
                  % len(unexpected))
        else:
            print("%d tests were skipped for reasons the README does not list (above): something they need is "
                  "missing or broken here; set OPGEN_ALLOW_SKIPS=1 to accept that" % len(unexpected))
            status = 1
    print("dev.sh: %d passed, %d failed, %d skipped" % (total["passed"], total["failed"], total["skipped"]))
    return status


if __name__ == "__main__":
    sys.exit(main())
