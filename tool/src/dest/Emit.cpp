#include "dest/Emit.h"

namespace opgen::dest {

Writer& Writers::forDispatchKey(model::DispatchKey key) const {
  if (model::isCudaDispatchKey(key)) return cuda;
  if (model::isXpuDispatchKey(key) && xpu != nullptr) return *xpu;
  return cpu;
}

std::string OperatorSelector::operatorName(const model::NativeFunction& f) { return f.ns + "::" + f.func.name.str(); }

const model::BackendIndex& EmitContext::backendIndex(model::DispatchKey key) const { return ops.index(key); }

std::string cppString(std::string_view s) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\v': out += "\\v"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  out += '"';
  return out;
}

}  // namespace opgen::dest
