// An operator library's src/AutogenKernels.cpp, rendered from templates/library/AutogenKernels.cpp:
// the kernels of the functional and out= operators that its `autogen:` entries add (the model makes
// the operators, model/Autogen.h; the kernels' text is dest/common/AutogenKernels.h), defined in
// NS::native where NativeFunctions.h declares them and RegisterCompositeExplicitAutograd.cpp calls
// them. A library without `autogen:` gets the file too (its list of files does not depend on the
// YAML's content), with nothing to compile in it.
#pragma once

#include <string>
#include <string_view>

#include "dest/common/Emit.h"

namespace opgen::dest {

// The file's name below src/.
std::string_view autogenKernelsSourceFile();

// Renders it into `out` (the sources' writer).
void emitAutogenKernels(const EmitContext& ctx, const std::string& ns, Writer& out);

}  // namespace opgen::dest
