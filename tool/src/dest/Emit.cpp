#include "dest/Emit.h"

namespace opgen::dest {

Writer& Writers::forDispatchKey(model::DispatchKey key) const {
  if (model::isCudaDispatchKey(key)) return cuda;
  if (model::isXpuDispatchKey(key) && xpu != nullptr) return *xpu;
  return cpu;
}

std::string OperatorSelector::operatorName(const model::NativeFunction& f) { return f.ns + "::" + f.func.name.str(); }

const model::BackendIndex& EmitContext::backendIndex(model::DispatchKey key) const { return ops.index(key); }

namespace {

// The escape sequence of a character in a C++ string literal, or nullptr when it stands for itself.
const char* cppEscape(char c) {
  switch (c) {
    case '\\': return "\\\\";
    case '"': return "\\\"";
    case '\a': return "\\a";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\v': return "\\v";
    case '\t': return "\\t";
    default: return nullptr;
  }
}

}  // namespace

std::string cppString(std::string_view s) {
  // Runs of characters that stand for themselves are copied whole: every schema string of a run
  // (several per operator) passes through here.
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  size_t copied = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char* escape = cppEscape(s[i]);
    if (escape == nullptr) continue;
    out.append(s, copied, i - copied).append(escape);
    copied = i + 1;
  }
  out.append(s, copied).append(1, '"');
  return out;
}

}  // namespace opgen::dest
