#include "api/ReservedNames.h"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace opgen::api {

namespace {

bool contains(const auto& words, std::string_view w) { return std::find(std::begin(words), std::end(words), w) != std::end(words); }

// The macros with a lower-case letter that `g++ -std=gnu++17 -dM -E` lists for <ATen/ATen.h> and
// <torch/library.h> (libtorch 1.13.1 on glibc 2.36, GCC 12), without the reserved `_` names and the
// families matched by prefix below; and the C standard's function-like macros.
constexpr std::string_view kMacros[] = {
    "linux", "unix", "i386", "errno", "assert", "assert_perror", "alloca", "offsetof", "stdin", "stdout", "stderr",
    "math_errhandling", "issubnormal", "sched_priority", "strdupa", "strndupa", "be16toh", "be32toh", "be64toh",
    "htobe16", "htobe32", "htobe64", "htole16", "htole32", "htole64", "le16toh", "le32toh", "le64toh",
    "pthread_cleanup_pop", "pthread_cleanup_pop_restore_np", "pthread_cleanup_push",
    "pthread_cleanup_push_defer_np", "MaxTypeIndex", "L_ctermid", "L_cuserid", "L_tmpnam", "P_tmpdir", "setjmp",
    "va_arg", "va_copy", "va_end", "va_start", "major", "minor", "makedev"};
// Families of macros named with lower-case letters too (M_PIf, PRId64, SCNu8, C10_DEFINE_bool, ...).
constexpr std::string_view kMacroPrefixes[] = {"M_", "PRI", "SCN", "C10_", "AT_", "TORCH_", "CAFFE_", "DECLARE_", "DEFINE_"};

constexpr std::string_view kNestedNamespaces[] = {"native", "_ops"};
constexpr std::string_view kLibtorchNamespaces[] = {"at", "c10", "torch", "std", "caffe2"};

// Python's standard library (sys.stdlib_module_names of Python 3.11, and the modules 3.14 added).
constexpr std::string_view kPythonStdlib[] = {
    "__future__", "_abc", "_aix_support", "_ast", "_asyncio", "_bisect", "_blake2", "_bootsubprocess", "_bz2",
    "_codecs", "_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp", "_codecs_kr", "_codecs_tw",
    "_collections", "_collections_abc", "_compat_pickle", "_compression", "_contextvars", "_crypt", "_csv",
    "_ctypes", "_curses", "_curses_panel", "_datetime", "_dbm", "_decimal", "_elementtree",
    "_frozen_importlib", "_frozen_importlib_external", "_functools", "_gdbm", "_hashlib", "_heapq", "_imp",
    "_io", "_json", "_locale", "_lsprof", "_lzma", "_markupbase", "_md5", "_msi", "_multibytecodec",
    "_multiprocessing", "_opcode", "_operator", "_osx_support", "_overlapped", "_pickle", "_posixshmem",
    "_posixsubprocess", "_py_abc", "_pydecimal", "_pyio", "_queue", "_random", "_scproxy", "_sha1", "_sha256",
    "_sha3", "_sha512", "_signal", "_sitebuiltins", "_socket", "_sqlite3", "_sre", "_ssl", "_stat",
    "_statistics", "_string", "_strptime", "_struct", "_symtable", "_thread", "_threading_local", "_tkinter",
    "_tokenize", "_tracemalloc", "_typing", "_uuid", "_warnings", "_weakref", "_weakrefset", "_winapi",
    "_zoneinfo", "abc", "aifc", "annotationlib", "antigravity", "argparse", "array", "ast", "asynchat",
    "asyncio", "asyncore", "atexit", "audioop", "base64", "bdb", "binascii", "bisect", "builtins", "bz2",
    "cProfile", "calendar", "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs", "codeop", "collections",
    "colorsys", "compileall", "compression", "concurrent", "configparser", "contextlib", "contextvars", "copy",
    "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime", "dbm", "decimal", "difflib",
    "dis", "distutils", "doctest", "email", "encodings", "ensurepip", "enum", "errno", "faulthandler", "fcntl",
    "filecmp", "fileinput", "fnmatch", "fractions", "ftplib", "functools", "gc", "genericpath", "getopt",
    "getpass", "gettext", "glob", "graphlib", "grp", "gzip", "hashlib", "heapq", "hmac", "html", "http",
    "idlelib", "imaplib", "imghdr", "imp", "importlib", "inspect", "io", "ipaddress", "itertools", "json",
    "keyword", "lib2to3", "linecache", "locale", "logging", "lzma", "mailbox", "mailcap", "marshal", "math",
    "mimetypes", "mmap", "modulefinder", "msilib", "msvcrt", "multiprocessing", "netrc", "nis", "nntplib",
    "nt", "ntpath", "nturl2path", "numbers", "opcode", "operator", "optparse", "os", "ossaudiodev", "pathlib",
    "pdb", "pickle", "pickletools", "pipes", "pkgutil", "platform", "plistlib", "poplib", "posix", "posixpath",
    "pprint", "profile", "pstats", "pty", "pwd", "py_compile", "pyclbr", "pydoc", "pydoc_data", "pyexpat",
    "queue", "quopri", "random", "re", "readline", "reprlib", "resource", "rlcompleter", "runpy", "sched",
    "secrets", "select", "selectors", "shelve", "shlex", "shutil", "signal", "site", "smtpd", "smtplib",
    "sndhdr", "socket", "socketserver", "spwd", "sqlite3", "sre_compile", "sre_constants", "sre_parse", "ssl",
    "stat", "statistics", "string", "stringprep", "struct", "subprocess", "sunau", "symtable", "sys",
    "sysconfig", "syslog", "tabnanny", "tarfile", "telnetlib", "tempfile", "termios", "textwrap", "this",
    "threading", "time", "timeit", "tkinter", "token", "tokenize", "tomllib", "trace", "traceback",
    "tracemalloc", "tty", "turtle", "turtledemo", "types", "typing", "unicodedata", "unittest", "urllib", "uu",
    "uuid", "venv", "warnings", "wave", "weakref", "webbrowser", "winreg", "winsound", "wsgiref", "xdrlib",
    "xml", "xmlrpc", "zipapp", "zipfile", "zipimport", "zlib", "zoneinfo"
};
// What PyTorch imports (its own packages and its dependencies').
constexpr std::string_view kPyTorchModules[] = {
    "torch", "torchgen", "functorch", "torchvision", "torchaudio", "triton", "numpy", "sympy", "mpmath",
    "typing_extensions", "filelock", "jinja2", "markupsafe", "networkx", "fsspec", "setuptools", "pkg_resources",
    "optree", "yaml", "opt_einsum", "dill"};

bool hasLowerCase(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
}

}  // namespace

std::optional<std::string> macroProblem(std::string_view name) {
  const std::string n(name);
  if (contains(kMacros, name))
    return "'" + n + "' is a macro in the generated C++ (-std=gnu++17 with the C library's and libtorch's headers)";
  for (std::string_view prefix : kMacroPrefixes)
    if (name.size() > prefix.size() && name.starts_with(prefix) &&
        ((prefix != "PRI" && prefix != "SCN") || std::string_view("diouxX").find(name[3]) != std::string_view::npos))
      return "'" + n + "' is named like the macros " + std::string(prefix) +
             "* of the C library's and libtorch's headers (the generated C++ would not compile where one is defined)";
  if (name.size() >= 2 && !hasLowerCase(name))
    return "'" + n + "' is in capitals, as macros are: libtorch's and the C library's headers define over a thousand "
                     "(EOF, NULL, EINVAL, ...), and the generated C++ would not compile where one is defined";
  return std::nullopt;
}

std::optional<std::string> namespaceProblem(std::string_view ns) {
  const std::string n(ns);
  if (contains(kNestedNamespaces, ns))
    return "namespace '" + n + "' is one the generated code nests inside the library's (NS::" + n +
           "): the names would not resolve";
  if (contains(kLibtorchNamespaces, ns))
    return "namespace '" + n + "' is libtorch's: the library's operators and functions would clash with its own "
                               "(at::add, torch::ones, ...)";
  if (auto why = macroProblem(ns)) return "namespace " + *why;
  return std::nullopt;
}

std::optional<std::string> pythonPackageProblem(std::string_view package) {
  const std::string n(package);
  if (contains(kPythonStdlib, package))
    return "the Python package '" + n + "' would shadow the standard library's module " + n +
           " (which Python, torch or the package imports): `import torch` would fail where it is on sys.path";
  if (contains(kPyTorchModules, package))
    return "the Python package '" + n + "' would shadow the module " + n +
           " that torch imports: `import torch` would fail where it is on sys.path";
  return std::nullopt;
}

}  // namespace opgen::api
