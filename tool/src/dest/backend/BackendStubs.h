// An out-of-tree backend's files (torchgen's gen_backend_stubs): the declarations of its kernels,
// `<Key>NativeFunctions.h` (static members of one class, in the backend's namespace), and for its
// key and its autograd key the registration files `Register<Key>.cpp`: wrappers around the kernels
// (device checks and guards, out=/in-place wrappers around functional kernels) registered with the
// dispatcher. The templates are the plugin's own (templates/backend/), read through a Writer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dest/common/Emit.h"
#include "model/BackendYaml.h"

namespace opgen::dest {

// The backend's kernels for one key (torchgen's create_backend_index): the dispatcher's name of
// each listed operator (add_out for add.out), with `_symint` when the operator is listed under
// `symint:`, as static members of the class in the backend's namespace.
model::BackendIndex externalBackendIndex(const model::BackendYaml& yaml, model::DispatchKey key,
                                         const std::vector<model::BackendOperator>& operators);

struct BackendSpec {
  const model::BackendYaml& yaml;
  const model::BackendIndex& backend;         // the backend key's kernels
  const model::BackendIndex* autograd;        // the autograd key's, if any
  std::string className;                      // class_name, or <Key>NativeFunctions
  // How the registration files include the header: `#include "INCLUDE"` (torchgen:
  // OUTPUT_DIR/<Key>NativeFunctions.h, with OUTPUT_DIR as given on its command line).
  std::string headerInclude;
};

// The files a backend gets, in the order they are written.
std::vector<std::string> backendFiles(const model::BackendYaml& yaml);
// `<Key>NativeFunctions.h`.
std::string backendHeaderName(const model::BackendYaml& yaml);

// torchgen's --impl-path check: every kernel must be defined in `implText` (the file at `implPath`)
// as often as the backend has operators with that kernel name, as `CLASS::name(` on a line not
// preceded by a colon (torchgen's regular expression). Each kernel defined too few or too many times
// is one error at the backend YAML's entry, with the expected signatures.
void checkKernelDefinitions(const EmitContext& ctx, const BackendSpec& spec, const std::string& implPath,
                            std::string_view implText);

// Writes the files through `out` (templates NativeFunctions.h, Register.cpp and
// RegisterDefinitions.ini of templates/backend/). Errors go to ctx.diags.
void emitBackend(const EmitContext& ctx, const BackendSpec& spec, Writer& out);

}  // namespace opgen::dest
