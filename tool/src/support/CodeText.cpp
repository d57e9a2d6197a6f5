#include "support/CodeText.h"

#include <cstring>
#include <stdexcept>

namespace opgen::support {

namespace {

const char* findDollar(const char* from, const char* end) {
  return static_cast<const char*>(std::memchr(from, '$', static_cast<size_t>(end - from)));
}

}  // namespace

// Emitters fill snippets by the hundred thousand: the scan works on pointers, and names are told
// apart by length and first character before their bytes are compared.
void appendSnippet(std::string& out, std::string_view snippet, SnippetVars vars) {
  size_t extra = 0;
  for (const auto& var : vars) extra += var.second.size();
  out.reserve(out.size() + snippet.size() + extra);
  const char* pos = snippet.data();
  const char* const end = pos + snippet.size();
  while (pos < end) {
    const char* open = findDollar(pos, end);
    if (open == nullptr) {
      out.append(pos, static_cast<size_t>(end - pos));
      break;
    }
    out.append(pos, static_cast<size_t>(open - pos));
    const char* close = findDollar(open + 1, end);
    if (close == nullptr)
      throw std::logic_error("unterminated snippet placeholder: " + std::string(open, static_cast<size_t>(end - open)));
    const std::string_view name(open + 1, static_cast<size_t>(close - open - 1));
    pos = close + 1;
    if (name.empty()) {
      out.push_back('$');
      continue;
    }
    const std::string_view* value = nullptr;
    for (const auto& [key, v] : vars) {
      if (key.size() == name.size() && key[0] == name[0] && std::memcmp(key.data(), name.data(), name.size()) == 0) {
        value = &v;
        break;
      }
    }
    if (value == nullptr) throw std::logic_error("snippet placeholder without a value: $" + std::string(name) + "$");
    out.append(value->data(), value->size());
  }
}

std::string fillSnippet(std::string_view snippet, SnippetVars vars) {
  std::string out;
  appendSnippet(out, snippet, vars);
  return out;
}

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

}  // namespace opgen::support
