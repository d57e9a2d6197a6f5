// What an operator library (`opgen library`) accepts beyond torchgen's rules: an entry opgen accepts
// must register (PyTorch's own schema parser reads every schema again when the library loads) and its
// generated code must compile, on the PyTorch it is generated for. torchgen never needed these checks:
// PyTorch's own YAML is written against both. Each problem is one error at the part of the schema at
// fault (its name, type or default), with the rule that it breaks.
#pragma once

#include <string_view>

#include <optional>

#include "api/LibraryStable.h"
#include "api/Types.h"
#include "model/Operators.h"
#include "support/Diagnostics.h"

namespace opgen::api {

struct LibraryRulesOptions {
  LibtorchFacts libtorch;
  bool pythonModule = false;  // names must also be Python identifiers (the typed package's stubs)
  // The library is generated for PyTorch's stable ABI of this release (api/LibraryStable.h): every
  // argument and return must pass it, and what needs the unstable C++ API (structured kernels,
  // autogen:, tags before 2.12) is refused at its entry.
  std::optional<StableAbi> stableAbi;
};

// The library's namespace `ns` (from NAMESPACE, or "" to take the first operator's) and every
// function's names, types, defaults and kernels, and the C++ types its generated code passes
// (api/LibrarySignatures.h). Returns the namespace, or "" after reporting.
std::string checkLibrary(const model::Operators& ops, std::string_view ns, const LibraryRulesOptions& options,
                         support::Diagnostics& diags);

// [A-Za-z_][A-Za-z0-9_]*
bool isIdentifier(std::string_view s);
// The keywords of PyTorch's schema lexer, which no name may be (`class`, `None`, `def`, ...).
bool isSchemaKeyword(std::string_view word);
bool isCppKeyword(std::string_view word);

}  // namespace opgen::api
