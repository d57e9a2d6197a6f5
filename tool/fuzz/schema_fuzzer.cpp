// The schema parser (model/Schema): any text is a schema that prints back exactly as written, or an
// error whose offset is inside the text. An accepted schema's derived forms (its signature, kind,
// C++ name) are computed too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzCheck.h"
#include "model/Schema.h"

namespace {

template <class T>
void checkError(const opgen::support::Expected<T>& parsed, std::string_view text) {
  if (parsed) return;
  const int offset = parsed.error().offset;
  if (offset < -1 || offset > static_cast<int>(text.size()))
    opgen::fuzz::fail("an error offset outside the text", std::to_string(offset) + " in " + std::string(text));
  const std::string& message = parsed.error().message;
  if (message.empty()) opgen::fuzz::fail("an error without a message", std::string(text));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using opgen::model::FunctionSchema;
  opgen::support::Expected<FunctionSchema> schema = FunctionSchema::parse(text);
  checkError(schema, text);
  if (schema) {
    const std::string printed = schema->str();
    if (printed != text) opgen::fuzz::fail("a schema does not print back", std::string(text) + " -> " + printed);
    opgen::support::Expected<FunctionSchema> again = FunctionSchema::parse(printed);
    if (!again || !(*again == *schema)) opgen::fuzz::fail("a printed schema parses differently", printed);
    (void)schema->kind();
    (void)schema->aliasedReturnNames();
    (void)schema->signature().str();
    (void)schema->viewSignature().str();
    (void)opgen::model::cppName(*schema);
    if (schema->validate()) opgen::fuzz::fail("an accepted schema is invalid", printed);
  }
  // The parts on their own, as the loader and derivatives.yaml use them.
  checkError(opgen::model::Type::parse(text), text);
  checkError(opgen::model::Argument::parse(text), text);
  checkError(opgen::model::OperatorName::parse(text), text);
  if (auto type = opgen::model::Type::parse(text); type && type->str() != text)
    opgen::fuzz::fail("a type does not print back", std::string(text) + " -> " + type->str());
  return 0;
}
