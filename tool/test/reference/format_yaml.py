#!/usr/bin/env python3
"""Prints torchgen's format_yaml (gen.py: PyYAML's CSafeDumper, as Declarations.yaml is written) of
test documents, so that opgen's emitter (tool/src/dest/PyYaml.h) can be compared with it
(tool/test/PyYaml_test.cpp). Run it with the reference torchgen importable:

    torchgen-ref python format_yaml.py MODE < ITEMS

ITEMS: one UTF-8 string per line, hex-encoded (an empty line is the empty string). The document (the
contract with the test, which builds the same one with opgen):
  MODE "str":     for each string S, an OrderedDict
                    value: S / list: [S, "x"] / S: "v" / nested: [OrderedDict(x: S, S: [])] / e: []
  MODE "default": for each string S, an OrderedDict  d: pythonify_default(S)
"""

from __future__ import annotations

import sys
from collections import OrderedDict


def main(mode: str) -> None:
    from torchgen.gen import format_yaml, pythonify_default

    items = [bytes.fromhex(line).decode("utf-8") for line in sys.stdin.read().split("\n")[:-1]]
    if mode == "str":
        doc = [
            OrderedDict(
                [
                    ("value", s),
                    ("list", [s, "x"]),
                    (s, "v"),
                    ("nested", [OrderedDict([("x", s), (s, [])])]),
                    ("e", []),
                ]
            )
            for s in items
        ]
    elif mode == "default":
        doc = [OrderedDict([("d", pythonify_default(s))]) for s in items]
    else:
        raise SystemExit(f"unknown mode {mode}")
    sys.stdout.write(format_yaml(doc))


if __name__ == "__main__":
    main(sys.argv[1])
