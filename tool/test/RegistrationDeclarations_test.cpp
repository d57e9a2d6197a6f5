// RegistrationDeclarations.h's pieces (dest/aten/RegistrationDeclarations) on small inputs. Byte equality
// with torchgen on whole files is gen_conformance_test.cpp's job.
#include <gtest/gtest.h>

#include "dest/aten/RegistrationDeclarations.h"

namespace opgen::dest {
namespace {

// Python's json.dumps (ensure_ascii): printable ASCII as it is, but for '"' and '\'.
TEST(RegistrationDeclarations, JsonStringEscapesLikePython) {
  EXPECT_EQ(jsonString("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"),
            "\"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\"");
  EXPECT_EQ(jsonString(""), "\"\"");
  EXPECT_EQ(jsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(jsonString("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(jsonString(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
  // Other characters as UTF-16 escapes (surrogate pairs beyond the BMP).
  EXPECT_EQ(jsonString("x\xc3\xa9y"), "\"x\\u00e9y\"");
  EXPECT_EQ(jsonString("\xf0\x9f\x98\x80"), "\"\\ud83d\\ude00\"");
}

}  // namespace
}  // namespace opgen::dest
