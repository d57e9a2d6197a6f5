// Compiled as a source of the model layer (its include view: support/ and model/) by the test
// layering.upward_include_fails: a lower layer that includes a higher layer's header must not build.
#include "dest/common/Emit.h"
