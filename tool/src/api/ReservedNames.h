// Names an operator library cannot use although they are identifiers and no keyword: the generated
// C++ or Python would not compile or import (api/LibraryRules.cpp reports them at their YAML column).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opgen::api {

// Why `name` (an identifier) would be a macro in the generated C++ (compiled with CMake's default
// -std=gnu++17, with libtorch's and the C library's headers), or nullopt: GCC's own (`linux`,
// `unix`), the C library's (`errno`, `stdin`, `offsetof`, `assert`, `M_PIf`, `PRId64`, ...),
// libtorch's (`C10_*`, `AT_*`, `TORCH_*`), and every name in capitals of two characters or more
// (`EOF`, `NULL`, `EINVAL`: the headers define over a thousand, and new ones with each version).
std::optional<std::string> macroProblem(std::string_view name);

// Why namespace `ns` cannot be an operator library's C++ namespace, or nullopt: one of the
// namespaces the generated code or libtorch's headers already use around the library's (`native`
// and `_ops`, which the library's own code nests inside NS; `at`, `c10`, `torch`, `std`, `caffe2`,
// whose operators and functions the library's would clash with).
std::optional<std::string> namespaceProblem(std::string_view ns);

// Why `package` cannot be the name of the typed Python package, or nullopt: a module of Python's
// standard library or of PyTorch's (torch, numpy, sympy, ...), which the package, torch or Python
// itself imports; on sys.path ahead of them, the package would shadow it and `import torch` fails.
std::optional<std::string> pythonPackageProblem(std::string_view package);

}  // namespace opgen::api
