#pragma once
// ${generated_comment}
//
// ${summary}
// With per-operator headers this header includes one header per operator: a source that uses a few
// operators includes theirs instead (<${namespace}/ops/OP${suffix}.h>), and does not recompile when
// another operator changes.

${includes}
