// An operator library's AOTInductor C shims (add_operator_library(... AOTI_SHIMS), issue 29): for
// each functional operator and each device it has a kernel for (cpu: a CPU or composite kernel;
// cuda: a CUDA or composite kernel, with the CUDA backend), a C function in torchgen's style
// (api/AotiShim.h, the convention of ATen's shims)
//
//   AOTITorchError aoti_torch_{device}_{NS}_{op}(AtenTensorHandle self, ..., AtenTensorHandle* ret0)
//
// that calls the operator's kernel for the device (NS::_ops::OP::redispatch with the device's key:
// no autograd, no boxing) and turns a C++ exception into an error code. Files:
//
//   include/NS/aoti_shims.h   their declarations (C)
//   src/AotiShims.cpp         their definitions, compiled into the library
//   python/NS/aoti.py         with the Python package: configure() / enabled(), which give
//                             AOTInductor (torch._inductor.config.aot_inductor) the declarations
//                             (custom_ops_to_c_shims) and the library to link (custom_op_libs)
//
// AOTInductor calls a custom operator's shim by `aoti_torch_{device}_{op}` (the operator's name
// without namespace and overload); the declarations it gets name that function and bind it to the
// namespaced symbol (an asm label), so that two libraries' shims never collide in a process.
// What gets no shim (an operator that mutates or aliases, a type without a C form, no kernel for any
// device, a second overload of one name, ATen's own shim name) is left to AOTInductor's proxy
// executor, with a note at the operator's YAML line.
#pragma once

#include <string>
#include <vector>

#include "dest/common/Emit.h"

namespace opgen::dest {

struct LibrarySpec;
struct LibraryWriters;

// The files below the output directory, by kind (for libraryFiles).
std::string libraryAotiShimsHeader(const std::string& ns);   // "include/NS/aoti_shims.h"
std::string libraryAotiShimsSource();                        // "src/AotiShims.cpp"
std::string libraryAotiShimsPython(const std::string& ns);   // "python/NS/aoti.py"

// Writes them (the Python file only with spec.pythonModule); notes for operators without a shim.
void emitLibraryAotiShims(const EmitContext& ctx, const LibrarySpec& spec, const LibraryWriters& out);

}  // namespace opgen::dest
