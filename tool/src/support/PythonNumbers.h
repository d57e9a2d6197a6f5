// Python's conversions between numbers and text that torchgen's output depends on: int(s),
// float(s) and repr(float) (pythonify_default, PyYAML's representer). ASCII only: Python also
// accepts other Unicode decimal digits and whitespace.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opgen::support {

// Python's int(s) for a str: the value in str(int) form, or nullopt where Python raises ValueError.
std::optional<std::string> pythonInt(std::string_view s);
// Python's float(s) for a str, or nullopt where Python raises ValueError.
std::optional<double> pythonFloat(std::string_view s);
// Python's repr(float), e.g. "1e-05", "0.5", "10.0", "inf".
std::string pythonFloatRepr(double d);

}  // namespace opgen::support
