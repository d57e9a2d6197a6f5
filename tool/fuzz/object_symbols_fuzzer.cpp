// The ELF and archive reader of the link-time kernel check (support/ObjectSymbols): any bytes are
// read in time proportional to their size (libFuzzer's -timeout catches a loop), without reading
// outside them (ASan), into symbols or one error with a message. The demangler's parts run on what
// was read.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzCheck.h"
#include "support/ObjectSymbols.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  opgen::support::Expected<opgen::support::ObjectSymbols> read = opgen::support::readObjectSymbols(bytes, "fuzz.o");
  if (!read) {
    if (read.error().message.empty()) opgen::fuzz::fail("an error without a message", "");
    return 0;
  }
  std::size_t symbols = read->defined.size() + read->undefined.size() + read->localFunctions.size();
  // Each symbol takes at least one byte of a string table and one entry of a symbol table.
  if (symbols > size) opgen::fuzz::fail("more symbols than bytes", std::to_string(symbols));
  for (const std::string& name : read->defined)
    if (auto demangled = opgen::support::demangle(name)) (void)opgen::support::parseDemangledFunction(*demangled);
  return 0;
}
