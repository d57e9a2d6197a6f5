// Reading native_functions.yaml and tags.yaml into the model, with torchgen 2.14.1's rules and
// checks. Every problem is reported as "FILE:LINE:COL: error: ..." naming the entry.
#pragma once

#include <functional>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "model/Operators.h"
#include "support/Diagnostics.h"

namespace opgen::model {

struct LoadOptions {
  // Dispatch keys whose kernels are dropped (torchgen's ignore_keys).
  std::set<DispatchKey> ignoreKeys;
  // Do not add the autogen-made functional/out= variants.
  bool skipNativeFunctionsGen = false;
  // Which generation of native_functions.yaml the input is. A few of torchgen 2.14.1's rules are
  // lints that older files (PyTorch 1.x) break without harm (the nondeterministic_seeded tag,
  // use_const_ref_for_mutable_tensors on out= functions); in a Legacy file they are warnings.
  // Auto: Legacy when the file uses the type Dimname, which PyTorch 2 removed.
  enum class Edition { Auto, Current, Legacy };
  Edition edition = Edition::Auto;
  // The namespace of kernels named without one (`CPU: my_kernel`), declared in NS::native:: —
  // torchgen's "at"; empty: the operator's own namespace (operator libraries: vision::native).
  std::string defaultKernelNamespace = "at";
  // Keys an entry may not have, each with why (operator libraries: what they do not support is an
  // error at its line, never ignored), and whether `variants:` may name `method`.
  std::map<std::string, std::string, std::less<>> refusedKeys;
  bool methodVariants = true;
  // torchgen's rule that an operator with a kernel gets an out= variant, which one that returns no
  // tensor cannot (an error; a warning in a Legacy file). Operator libraries turn it off: their
  // operators need no out= variant unless `autogen:` asks for one.
  bool requireOutVariants = true;
  // Every kernel of an operator with SymInt arguments takes them as c10::SymInt / c10::SymIntArrayRef,
  // whatever its name (torchgen: only a kernel named *_symint); structured kernels excepted (their
  // meta and impl functions take int64_t). Operator libraries: sizes stay symbolic under
  // torch.compile without the user knowing the naming rule.
  bool symintKernels = false;
  // Accept an entry's `fake: python` (operator libraries: the operator's fake kernel is in Python;
  // NativeFunction::pythonFake). Not torchgen's: elsewhere an unknown key.
  bool fakeKey = false;
  // Work that only reads a parsed function (warming a caller's caches), called on another thread
  // for the parsed functions in file order while the loader checks, generates and groups them, and
  // only until it is done: some functions, or none, may be left out. Large files only.
  std::function<void(const NativeFunction&)> alongside;
};

// Python's keywords, which torchgen refuses as argument names (the Python bindings use them).
bool isPythonKeyword(std::string_view word);

// The tag names declared by a tags.yaml (`- tag: NAME` / `desc: ...`).

std::optional<std::set<std::string>> loadTags(const std::string& path, std::string_view content,
                                              support::Diagnostics& diags);

// Parses every entry, runs torchgen's per-entry and cross-entry checks, adds the generated
// variants and builds the backend indices. nullopt when any error was reported.
std::optional<Operators> loadNativeFunctions(const std::string& path, std::string_view content,
                                             const std::set<std::string>& validTags, const LoadOptions& options,
                                             support::Diagnostics& diags);

}  // namespace opgen::model
