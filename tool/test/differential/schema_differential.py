#!/usr/bin/env python3
"""Differential test of opgen's schema rules against PyTorch's own schema parser and its headers.

Every schema that `opgen library` accepts must be accepted by `torch._C.parse_schema` of the
PyTorch the library is generated for (otherwise the generated library would fail to register when
Python or C++ loads it), and the code generated for it must compile against that PyTorch.

    schema_differential.py run --opgen OPGEN --source-dir DIR --templates DIR --torch-version N
                               --work DIR -- RUNTIME_COMMAND...
        collects the schemas of the test data (tool/test/data, test_projects, tool/fuzz/corpus),
        adds deterministic mutations of each, runs `opgen library` on each one alone (namespace
        fz), and has RUNTIME_COMMAND (a python3 with torch, e.g. /usr/bin/python3 or
        `tool/scripts/torch-root.sh sid run python3`) run `check` on the accepted ones.
        Then it writes the accepted schemas (or a deterministic sample of them that uses every
        argument and return type they use: $OPGEN_DIFFERENTIAL_SAMPLE=N) as one library YAML,
        each operator renamed and given dispatch entries in turn (CompositeExplicitAutograd; CPU
        and Meta; CPU; none), with structured operators made of some, runs `opgen library` on it
        (which must not answer with torchgen's internal errors) and has RUNTIME_COMMAND run
        `compile` on the generated sources.
    schema_differential.py check ACCEPTED_FILE [--refused-too]
        parse_schema on each schema of the file (a JSON list); exit 1 when one is refused (or
        crashes the process), 77 when torch cannot be imported. --refused-too: also count how many
        of the schemas opgen refused (refused.json beside it) parse.
    schema_differential.py compile OUTPUT_DIR
        compiles OUTPUT_DIR/src/*.cpp (what `opgen library` generated) as one translation unit with
        `g++ -fsyntax-only` against the runtime's libtorch headers (C++17 for PyTorch 1, C++20 for
        2); exit 1 when it does not compile, 77 when there is no torch, no g++ or no headers.

Exit status 0: every accepted schema parsed and the sample compiled; 1: some schema did not parse
(each is printed with PyTorch's error), opgen answered the sample with an internal error, or the
sample did not compile (the compiler's first errors are printed); 77: skipped (no torch, compiler or libtorch headers in the runtime; the reason is printed).
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

SEED = 20261126
VARIANTS_PER_SCHEMA = 12

TYPES = [
    "Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "Tensor(a)", "Tensor(a!)", "Tensor(b!)?", "Tensor(a -> *)[]",
    "Tensor(a!)[]", "int", "int?", "int[]", "int[2]", "int[]?", "int[1]?", "SymInt", "SymInt?", "SymInt[]",
    "SymInt[3]", "float", "float?", "float[]", "float[]?", "bool", "bool?", "bool[3]", "bool[]", "str", "str?",
    "str[]", "Scalar", "Scalar?", "Scalar[]", "ScalarType", "ScalarType?", "Layout", "Layout?", "Device",
    "Device?", "MemoryFormat", "MemoryFormat?", "Generator", "Generator?", "Dimname", "Dimname[]", "Dimname?",
    "DeviceIndex", "SymBool", "SymBool?", "Storage", "Stream", "QScheme", "GraphModule", "int[][]", "Tensor??",
    "__torch__.torch.classes.fz.Packed", "__torch__.torch.classes.fz.Packed?", "Any", "complex", "number",
    "Tensor?[]?", "Tensor[]?", "Tensor(a!)?", "Scalar[]?", "SymInt[]?", "ScalarType[]", "str[]?", "float[2]",
]
DEFAULTS = [
    "1", "-1", "0", "1.5", "-0.5", "1e-05", "1e3", "2.", ".5", "+1", "inf", "-inf", "nan", "True", "False",
    "None", '"s"', "'q'", '"a,b"', '""', "''", "[]", "[1,2]", "[1, 2]", "[0,0]", "[True]", "[1.5]", "[-1]",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "0x10", "1_0", "Mean", "mean",
    "contiguous_format", "long", "float", "strided", "cpu", '"cpu"', "abc", "[a]", "[[1]]", "1j", "(1,2)",
    "Sum", "None?", '"\\""', "channels_last", "per_tensor_affine", "sparse_coo", "-0", "1e309",
    # str defaults that PyTorch's parser refuses ("a\", "a"b"), reads otherwise than C++ or Python
    # would (escapes), or accepts with characters that break the generated code's lines (issue 25)
    '"a\\"', '"a"b"', "'a'b'", '"a\\rb"', '"a\\x41"', '"\\101"', '"a\\tb"', '"a\\\\b"', "'it\\'s'",
    '"a\rb"', '"a\x0cb"', '"a\x0bb"', '"a\x1cb"', '"a\x1db"', '"a\x1eb"', '"a\x85b"', '"a\u2028b"',
    '"a\u2029b"', '"a\x7fb"', '"\u00e9"',
]
NAMES = [
    "self", "other", "out", "input", "x1", "_x", "__x", "delete", "class", "def", "from", "lambda", "True",
    "None", "int", "Tensor", "1x", "x_y", "result", "grad", "a", "b", "dtype", "layout", "device", "pin_memory",
    "memory_format", "size", "dim", "async", "print", "self_", "operator", "namespace", "float", "str",
    # macros under -std=gnu++17 with the C library's and libtorch's headers (issue 25)
    "errno", "EOF", "linux", "unix", "stdin", "NULL", "assert", "M_PI", "INT_MAX",
]
RETURNS = [
    "Tensor", "()", "(Tensor, Tensor)", "Tensor[]", "(Tensor a, Tensor b)", "int", "Tensor(a)", "Tensor(a!)",
    "(Tensor(a!) x)", "float", "Scalar", "Tensor?", "bool[]", "(Tensor(a!), Tensor(b!))", "(Tensor self)",
    "(int, float, bool)", "str", "SymInt", "SymInt[]", "ScalarType", "(Tensor out)", "Tensor(a)[]", "Dimname",
    "(Tensor x, Tensor x)", "Tensor[](a)", "Scalar[]", "Tensor?[]", "str[]", "Device", "(int, Tensor[])",
]
# Namespaces a library might be given: reserved by the generated code (native, _ops), libtorch's
# (at, with ATen's operator add), macros, modules the Python package would shadow, and one that works.
NAMESPACES = ["native", "_ops", "at", "c10", "torch", "std", "linux", "errno", "json", "typing", "random", "fz_ns"]
OVERLOADS = ["", ".out", ".Tensor", ".default", "._x", ".1", ".Scalar_out", ".int", ".self", ".__init__"]
CHARS = " ,()[]?!*=-.:a1_>\"'"


def split_top(text, sep=","):
    """Splits at `sep` outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for c in text:
        if quote:
            cur += c
            if c == quote:
                quote = None
            continue
        if c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


SCHEMA = re.compile(r"^([^(]*)\((.*)\) -> (.*)$", re.S)


def mutate(schema, rng):
    """One mutation of `schema` (namespace-free text)."""
    m = SCHEMA.match(schema)
    if not m or rng.random() < 0.1:
        # A character-level edit: insert, delete or replace one character.
        pos = rng.randrange(len(schema) + 1)
        op = rng.randrange(3)
        c = rng.choice(CHARS)
        if op == 0:
            return schema[:pos] + c + schema[pos:]
        if op == 1:
            return schema[:pos] + schema[pos + 1:]
        return schema[:pos] + c + schema[pos + 1:]
    name, args, rets = m.group(1), m.group(2), m.group(3)
    arglist = [a.strip() for a in split_top(args)] if args.strip() else []
    what = rng.randrange(8)
    if what == 0 and arglist:  # another type
        i = rng.randrange(len(arglist))
        if arglist[i] != "*" and " " in arglist[i]:
            arglist[i] = rng.choice(TYPES) + " " + arglist[i].rsplit(" ", 1)[1]
    elif what == 1 and arglist:  # another default, or one more, or none
        i = rng.randrange(len(arglist))
        if arglist[i] != "*":
            base = arglist[i].split("=", 1)[0]
            arglist[i] = base if rng.random() < 0.2 else base + "=" + rng.choice(DEFAULTS)
    elif what == 2 and arglist:  # another name
        i = rng.randrange(len(arglist))
        if arglist[i] != "*" and " " in arglist[i]:
            ty, rest = arglist[i].rsplit(" ", 1)
            default = "=" + rest.split("=", 1)[1] if "=" in rest else ""
            arglist[i] = ty + " " + rng.choice(NAMES) + default
    elif what == 3:  # the keyword-only marker, moved, added or removed
        arglist = [a for a in arglist if a != "*"]
        if rng.random() < 0.7:
            arglist.insert(rng.randrange(len(arglist) + 1), "*")
    elif what == 4:
        rets = rng.choice(RETURNS)
    elif what == 5:  # another overload name
        base = name.split(".", 1)[0]
        name = base + rng.choice(OVERLOADS)
    elif what == 6 and arglist:  # an argument removed or repeated
        i = rng.randrange(len(arglist))
        if rng.random() < 0.5:
            del arglist[i]
        else:
            arglist.insert(rng.randrange(len(arglist) + 1), arglist[i])
    else:  # a new argument
        arg = rng.choice(TYPES) + " " + rng.choice(NAMES)
        if rng.random() < 0.5:
            arg += "=" + rng.choice(DEFAULTS)
        arglist.insert(rng.randrange(len(arglist) + 1), arg)
    return name + "(" + ", ".join(arglist) + ") -> " + rets


def collect(source_dir):
    """The namespace-free schemas of the test data, sorted, without duplicates."""
    import yaml  # PyYAML: only `run` needs it

    roots = ["tool/test/data", "test_projects", "tool/fuzz/corpus"]
    found = set()
    for root in roots:
        for folder, _, files in os.walk(os.path.join(source_dir, root)):
            for f in sorted(files):
                path = os.path.join(folder, f)
                if "/schema/" in path.replace(os.sep, "/") + "/" and not f.endswith(".yaml"):
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        found.add(fh.read().strip())
                    continue
                if not f.endswith(".yaml"):
                    continue
                try:
                    with open(path, encoding="utf-8") as fh:
                        doc = yaml.safe_load(fh)
                except Exception:
                    continue
                if not isinstance(doc, list):
                    continue
                for entry in doc:
                    if isinstance(entry, dict):
                        for key in ("func", "name"):
                            if isinstance(entry.get(key), str) and "->" in entry[key]:
                                found.add(entry[key])
    out = set()
    for s in found:
        if any(ord(c) < 0x20 for c in s):
            continue
        m = re.match(r"^[A-Za-z_][A-Za-z0-9_]*::", s)
        out.add(s[m.end():] if m else s)
    return sorted(out)


# The dispatch entries a schema is tried with alone: a CompositeExplicitAutograd kernel, then, when
# that is refused, a CompositeImplicitAutograd one (no dispatch:). (Operator libraries no longer
# apply torchgen's rule that an operator with a kernel must return a tensor, for which the second
# try was made; it stays for any refusal that depends on the kernel.)
TRIED_DISPATCH = [["CompositeExplicitAutograd"], []]


def entry(schema, keys, kernel="kernel"):
    """A library YAML entry for the (namespaced) schema with a kernel for each dispatch key."""
    text = "- func: %s\n" % json.dumps(schema)
    if keys:
        text += "  dispatch:\n" + "".join("    %s: %s_%s\n" % (k, kernel, k.lower()) for k in keys)
    return text


def library_accepts(opgen, templates, torch_version, schema, work):
    """The dispatch keys (of TRIED_DISPATCH) with which `opgen library` accepts the schema alone, or None."""
    yaml_path = os.path.join(work, "ops.yaml")
    for keys in TRIED_DISPATCH:
        with open(yaml_path, "w", encoding="utf-8") as fh:
            fh.write(entry("fz::" + schema, keys))
        r = subprocess.run([opgen, "library", yaml_path, "-o", os.path.join(work, "out"), "--templates", templates,
                            "--torch-version", str(torch_version)], capture_output=True, text=True)
        if r.returncode not in (0, 1):
            raise SystemExit("opgen library exited with %d on %r:\n%s" % (r.returncode, schema, r.stderr))
        if r.returncode == 0:
            return keys
        if "out= variant" not in r.stderr:
            return None
    return None


def run(argv):
    import argparse

    p = argparse.ArgumentParser(prog="schema_differential.py run")
    p.add_argument("--opgen", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--templates", required=True)
    p.add_argument("--torch-version", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("runtime", nargs="+")
    a = p.parse_args(argv)
    try:
        import yaml  # noqa: F401 - collect() reads the test data with it
    except ImportError:
        print("skipped: %s has no PyYAML to read the test data with (apt-get install -y python3-yaml)" % sys.executable)
        return 77
    os.makedirs(a.work, exist_ok=True)
    rng = random.Random(SEED)
    bases = collect(a.source_dir)
    candidates = []
    for s in bases:
        candidates.append(s)
        for _ in range(VARIANTS_PER_SCHEMA):
            v = s
            for _ in range(rng.randrange(1, 4)):
                v = mutate(v, rng)
            if "\n" not in v:
                candidates.append(v)
    candidates = sorted(set(candidates))
    accepted, refused, dispatch = [], [], {}
    with tempfile.TemporaryDirectory(dir=a.work) as tmp:
        for s in candidates:
            keys = library_accepts(a.opgen, a.templates, a.torch_version, s, tmp)
            (accepted if keys is not None else refused).append("fz::" + s)
            if keys is not None:
                dispatch[s] = keys
    listing = os.path.join(a.work, "accepted.json")
    with open(listing, "w", encoding="utf-8") as fh:
        json.dump(accepted, fh, indent=0)
    with open(os.path.join(a.work, "refused.json"), "w", encoding="utf-8") as fh:
        json.dump(refused, fh, indent=0)
    print("%d schemas from the test data, %d with their mutations; opgen library (--torch-version %s) accepts %d"
          % (len(bases), len(candidates), a.torch_version, len(accepted)))
    sys.stdout.flush()
    parsed = subprocess.run(a.runtime + [os.path.abspath(__file__), "check", listing]).returncode
    if parsed == 77:
        return 77
    out = os.path.join(a.work, "sample")
    if not generate_sample(a.opgen, a.templates, a.torch_version, accepted, dispatch, out):
        return 1
    sys.stdout.flush()
    compiled = subprocess.run(a.runtime + [os.path.abspath(__file__), "compile", out]).returncode
    if parsed != 0 or compiled == 1:
        return 1
    # Namespaces: the library of each one opgen accepts (an ATen operator's name in it, with the
    # Python package) compiles too.
    accepted_ns = []
    for ns in NAMESPACES:
        ns_out = os.path.join(a.work, "namespace_" + ns)
        yaml_path = ns_out + ".yaml"
        with open(yaml_path, "w", encoding="utf-8") as fh:
            fh.write(entry(ns + "::add(Tensor self, Tensor other) -> Tensor", ["CPU"]))
        subprocess.run(["rm", "-rf", ns_out])
        r = subprocess.run([a.opgen, "library", yaml_path, "-o", ns_out, "--templates", a.templates, "--torch-version",
                            str(a.torch_version), "--backend", "CPU", "--python-module"], capture_output=True, text=True)
        if r.returncode == 0:
            accepted_ns.append(ns)
            if subprocess.run(a.runtime + [os.path.abspath(__file__), "compile", ns_out]).returncode == 1:
                return 1
    print("namespaces: opgen library accepts %s of %s" % (", ".join(accepted_ns) or "none", ", ".join(NAMESPACES)))
    return compiled


# What is compiled: every accepted schema (about 570, 8 s with GCC 12 and PyTorch 1.13, 15 s with GCC
# 16 and PyTorch 2.14, on 2 busy cores); $OPGEN_DIFFERENTIAL_SAMPLE=N: a sample of N, starting with
# schemas that bring a type not seen yet.
# The dispatch entries of the sample's operators, in turn (none: a CompositeImplicitAutograd kernel).
SAMPLE_DISPATCH = [["CompositeExplicitAutograd"], ["CPU", "Meta"], ["CPU"], []]


def schema_types(schema):
    """The argument and return types of a namespace-free schema ("Tensor(a!)", "int[2]?", ...)."""
    m = SCHEMA.match(schema)
    if not m:
        return set()
    types = set()
    for arg in split_top(m.group(2)):
        arg = arg.strip()
        if arg and arg != "*":
            types.add(split_top(arg, "=")[0].rsplit(" ", 1)[0].strip())
    rets = m.group(3).strip()
    if rets.startswith("(") and rets.endswith(")"):
        rets = rets[1:-1]
    for ret in split_top(rets):
        ret = ret.strip()
        if ret:
            named = re.match(r"^(.*\S)\s+[A-Za-z_][A-Za-z0-9_]*$", ret)  # (not "Tensor(a -> *)")
            types.add(named.group(1) if named and named.group(1).count("(") == named.group(1).count(")") else ret)
    return types


def covering(schemas, size):
    """`size` of the schemas, in their order, first those that bring a type not seen yet."""
    chosen, seen = [], set()
    for s in schemas:
        if schema_types(s) - seen:
            chosen.append(s)
            seen |= schema_types(s)
    return (chosen + [s for s in schemas if s not in chosen])[:size]


def sample_of(accepted):
    """The accepted schemas, namespace-free, shuffled (deterministically), and the types they use; with
    $OPGEN_DIFFERENTIAL_SAMPLE=N, N of them: first those that bring a type not seen yet."""
    rng = random.Random(SEED)
    pool = [s[len("fz::"):] for s in accepted if not re.match(r"^fz::__", s)]  # (a dunder name cannot be renamed)
    rng.shuffle(pool)
    chosen, seen = [], set()
    for s in pool:
        new = schema_types(s) - seen
        if new:
            chosen.append(s)
            seen |= new
    rest = [s for s in pool if s not in chosen]
    size = os.environ.get("OPGEN_DIFFERENTIAL_SAMPLE", "")
    if not size.isdigit():
        return pool, seen
    chosen += rest[:max(0, int(size) - len(chosen))]
    return chosen, seen


# Besides, up to this many of the accepted functional schemas returning a Tensor become structured
# operators: an out= function with `structured: True` and a CPU kernel, the functional one delegating
# to it (their meta and impl functions take the arguments in the structured kernels' own types).
STRUCTURED_GROUPS = 80
STRUCTURED = "structured"
# What opgen library must never answer: torchgen's internal errors (api/LibrarySignatures.h says
# what is not supported instead).
INTERNAL_ERRORS = ["Failed to synthesize", "missing rule in the rules of translate"]


def structured_group(schema):
    """(NAME, out= arguments, arguments) of the structured operator made of a functional schema
    NAME(ARGS) -> Tensor, or None when it cannot be one."""
    m = SCHEMA.match(schema)
    if not m or m.group(3).strip() != "Tensor" or "!" in schema:
        return None
    base, args = m.group(1).split(".", 1)[0], m.group(2).strip()
    if not args or base.endswith("_") or base.startswith("__"):
        return None
    arglist = [x.strip() for x in split_top(args)]
    names = {split_top(x, "=")[0].rsplit(" ", 1)[-1] for x in arglist if x != "*"}
    if names & {"out", "dtype", "layout", "device", "pin_memory"}:  # (tensor options: not structured)
        return None
    return base, args + (", Tensor(a!) out" if "*" in arglist else ", *, Tensor(a!) out"), args


def sample_yaml(entries):
    """One library YAML of the (schema, dispatch keys or STRUCTURED) entries, each operator renamed
    c<i>_NAME (overload names kept); returns the text and each entry's first line."""
    text, first_lines = "", []
    for i, (s, keys) in enumerate(entries):
        first_lines.append(text.count("\n") + 1)
        if keys == STRUCTURED:
            base, out_args, args = structured_group(s)
            name = "c%d_%s" % (i, base)
            text += "- func: %s\n  structured: True\n  dispatch:\n    CPU: k%d_out\n" % (
                json.dumps("fz::%s.out(%s) -> Tensor(a!)" % (name, out_args)), i)
            text += "- func: %s\n  structured_delegate: %s.out\n" % (json.dumps("fz::%s(%s) -> Tensor" % (name, args)), name)
        else:
            text += entry("fz::c%d_%s" % (i, s), keys, "k%d" % i)
    return text, first_lines


def generate_sample(opgen, templates, torch_version, accepted, dispatch, out):
    """`opgen library` on the sample, into OUT, with the dispatch entries of SAMPLE_DISPATCH in turn
    (a schema accepted only without a kernel gets none), and structured operators. An entry refused
    with its entries gets those it was accepted with alone (`dispatch`); refused again (in company:
    two that group, say), it is left out, saying why. A structured operator refused is left out (opgen
    refuses the argument types structured kernels cannot take). False when opgen still refuses."""
    schemas, covered = sample_of(accepted)
    entries = [(s, SAMPLE_DISPATCH[i % len(SAMPLE_DISPATCH)] if dispatch[s] else []) for i, s in enumerate(schemas)]
    entries += [(s, STRUCTURED) for s in covering([s for s in schemas if structured_group(s)], STRUCTURED_GROUPS)]
    yaml_path = out + ".yaml"
    dropped, unstructured, no_python = [], [], 0
    for _ in range(8):
        text, first_lines = sample_yaml(entries)
        with open(yaml_path, "w", encoding="utf-8") as fh:
            fh.write(text)
        subprocess.run(["rm", "-rf", out])
        r = subprocess.run([opgen, "library", yaml_path, "-o", out, "--templates", templates, "--torch-version",
                            str(torch_version), "--backend", "CPU", "--backend", "Meta", "--python-module"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            break
        bad = {}
        for line in r.stderr.splitlines():
            m = re.match(r"^.*\.yaml:(\d+):\d+: error: (.*)$", line)
            if m:
                bad.setdefault(max(i for i, first in enumerate(first_lines) if first <= int(m.group(1))), m.group(2))
        if not bad:
            print("opgen library refused the sample %s:\n%s" % (yaml_path, r.stderr))
            return False
        internal = [line for line in r.stderr.splitlines() if any(w in line for w in INTERNAL_ERRORS)]
        if internal:
            print("opgen library refused the sample %s with torchgen's internal errors instead of saying what is "
                  "not supported:\n%s" % (yaml_path, "\n".join(internal)))
            return False
        # (the typed Python package refuses Python keywords as names, which the schemas were not
        # tried with alone: such an entry is left out, counted)
        python = {i for i in bad if "Python" in bad[i]}
        no_python += len(python)
        unstructured += [(entries[i][0], bad[i]) for i in sorted(bad) if entries[i][1] == STRUCTURED and i not in python]
        dropped += [(entries[i][0], bad[i]) for i in sorted(bad)
                    if entries[i][1] == dispatch[entries[i][0]] and i not in python]
        entries = [(s, dispatch[s]) if i in bad else (s, keys) for i, (s, keys) in enumerate(entries)
                   if not (i in bad and (keys in (STRUCTURED, dispatch[s]) or i in python))]
    else:
        print("opgen library still refuses the sample %s:\n%s" % (yaml_path, r.stderr))
        return False
    missing = covered - set().union(*(schema_types(s) for s, _ in entries))
    structured = sum(1 for _, keys in entries if keys == STRUCTURED)
    print("sample: %d of the accepted schemas as one library with its Python package (%s; %d left out, whose "
          "names are Python keywords), %d types, and %d structured operators made of them (%d more refused, e.g. %s)%s%s"
          % (len(entries) - structured, yaml_path, no_python, len(covered) - len(missing), structured,
             len(unstructured), unstructured[0][1] if unstructured else "none",
             "; left out, refused in company: %s" % "; ".join("%s (%s)" % d for d in dropped) if dropped else "",
             "; types lost with them: %s" % ", ".join(sorted(missing)) if missing else ""))
    return True


def parse_all(path):
    """Child process: parse_schema on each schema of the JSON list, one result line each, flushed
    (a schema that crashes the process is the one after the last line)."""
    import torch

    with open(path, encoding="utf-8") as fh:
        schemas = json.load(fh)
    for i, s in enumerate(schemas):
        try:
            torch._C.parse_schema(s)
            print("%d\tok" % i, flush=True)
        except Exception as e:  # noqa: BLE001 - RuntimeError, but any refusal counts
            why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print("%d\trefused\t%s" % (i, why), flush=True)
    return 0


def parse_results(schemas, work):
    """For each schema: None when parse_schema accepts it, else why not (a crash of the Python
    process included: the rest are parsed in a new one)."""
    results, start = [], 0
    while start < len(schemas):
        chunk = os.path.join(work, "chunk.json")
        with open(chunk, "w", encoding="utf-8") as fh:
            json.dump(schemas[start:], fh)
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "parse", chunk], capture_output=True, text=True)
        lines = [l for l in r.stdout.splitlines() if l]
        for line in lines:
            fields = line.split("\t", 2)
            results.append(None if fields[1] == "ok" else fields[2])
        start += len(lines)
        if r.returncode != 0 and start < len(schemas):
            results.append("crashed the Python process (exit status %d): %s" % (r.returncode, r.stderr.strip()[-200:]))
            start += 1
    return results


def check(argv):
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any failure to import is a missing runtime
        print("skipped: torch cannot be imported by %s: %s" % (sys.executable, e))
        return 77
    work = os.path.dirname(os.path.abspath(argv[0]))
    with open(argv[0], encoding="utf-8") as fh:
        schemas = json.load(fh)
    results = parse_results(schemas, work)
    refused = [(s, why) for s, why in zip(schemas, results) if why is not None]
    print("torch %s (%s): parse_schema accepts %d of the %d schemas opgen library accepts"
          % (torch.__version__, sys.executable, len(schemas) - len(refused), len(schemas)))
    for s, why in refused:
        print("refused by parse_schema: %s\n    %s" % (s, why))
    # For information (--refused-too): opgen is stricter than the parser (defaults, names, types the
    # generated C++ needs), so it refuses some schemas that parse; and some crash PyTorch 1.13's
    # parser (each costs a new Python process, which is why this is not done by default).
    others = os.path.join(work, "refused.json")
    if "--refused-too" in argv[1:] and os.path.exists(others):
        with open(others, encoding="utf-8") as fh:
            refused_by_opgen = json.load(fh)
        results = parse_results(refused_by_opgen, work)
        crashed = [s for s, why in zip(refused_by_opgen, results) if why and why.startswith("crashed")]
        print("(of the %d schemas opgen library refuses, parse_schema accepts %d and crashes on %d%s)"
              % (len(refused_by_opgen), results.count(None), len(crashed), ": " + "; ".join(crashed) if crashed else ""))
    return 1 if refused else 0


def compile_sample(out):
    """Runtime side: the generated sources as one translation unit, -fsyntax-only."""
    import shutil
    import time

    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any failure to import is a missing runtime
        print("compile: skipped: torch cannot be imported by %s: %s" % (sys.executable, e))
        return 77
    cxx = shutil.which(os.environ.get("CXX") or "g++")
    if not cxx:
        print("compile: skipped: no %s in the runtime" % (os.environ.get("CXX") or "g++"))
        return 77
    # The imported torch's headers (torch/include: pip's; Debian's links to /usr/include).
    include = os.path.join(os.path.dirname(torch.__file__), "include")
    api_include = os.path.join(include, "torch", "csrc", "api", "include")
    if not os.path.exists(os.path.join(api_include, "torch")) or not os.path.exists(os.path.join(include, "ATen", "ATen.h")):
        print("compile: skipped: no libtorch headers (%s; Debian's libtorch-dev)" % include)
        return 77
    out = os.path.abspath(out)
    major = int(torch.__version__.split(".")[0])
    # CMake's default dialect (CMAKE_CXX_EXTENSIONS ON): GNU's, which defines `linux` and `unix`.
    std = "gnu++20" if major >= 2 else "gnu++17"
    src = os.path.join(out, "src")
    sources = sorted(f for f in os.listdir(src) if f.endswith(".cpp"))
    unit = os.path.join(out, "all_sources.cpp")
    with open(unit, "w", encoding="utf-8") as fh:
        fh.write("".join('#include "%s"\n' % os.path.join(src, f) for f in sources))
    version = subprocess.run([cxx, "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    start = time.monotonic()
    r = subprocess.run([cxx, "-std=" + std, "-fsyntax-only", "-I", os.path.join(out, "include"), "-I", include,
                        "-I", api_include, unit], capture_output=True, text=True)
    took = time.monotonic() - start
    if r.returncode != 0:
        errors = [l for l in r.stderr.splitlines() if "error" in l]
        print("compile: the sample's generated sources (%s) do not compile against torch %s (g++ %s, -std=%s):\n%s"
              % (", ".join(sources), torch.__version__, version, std, "\n".join((errors or r.stderr.splitlines())[:30])))
        return 1
    print("compile: the sample's %d generated sources compile against torch %s (g++ %s, -std=%s, %.1f s)"
          % (len(sources), torch.__version__, version, std, took))
    # The typed Python package (and its stub) compile: no default breaks a line of them.
    python = os.path.join(out, "python")
    for package in sorted(os.listdir(python)):
        for name in ("__init__.py", "__init__.pyi"):
            path = os.path.join(python, package, name)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            try:
                compile(text, path, "exec")
            except SyntaxError as e:
                print("compile: the sample's Python package does not compile: %s:%s: %s" % (path, e.lineno, e.msg))
                return 1
    print("compile: the sample's Python package compiles (%s)" % python)
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2:]))
    if len(sys.argv) in (3, 4) and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2:]))
    if len(sys.argv) == 3 and sys.argv[1] == "compile":
        sys.exit(compile_sample(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "parse":
        sys.exit(parse_all(sys.argv[2]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
