#include "dest/SnippetFill.h"

#include <stdexcept>

namespace opgen::dest {

void appendSnippet(std::string& out, std::string_view snippet, SnippetVars vars) {
  size_t extra = 0;
  for (const auto& [name, value] : vars) extra += value.size();
  out.reserve(out.size() + snippet.size() + extra);
  size_t pos = 0;
  while (pos < snippet.size()) {
    const size_t open = snippet.find('$', pos);
    if (open == std::string_view::npos) {
      out.append(snippet.substr(pos));
      break;
    }
    out.append(snippet.substr(pos, open - pos));
    const size_t close = snippet.find('$', open + 1);
    if (close == std::string_view::npos)
      throw std::logic_error("unterminated snippet placeholder: " + std::string(snippet.substr(open)));
    const std::string_view name = snippet.substr(open + 1, close - open - 1);
    pos = close + 1;
    if (name.empty()) {
      out.push_back('$');
      continue;
    }
    bool found = false;
    for (const auto& [key, value] : vars) {
      if (key == name) {
        out.append(value);
        found = true;
        break;
      }
    }
    if (!found) throw std::logic_error("snippet placeholder without a value: $" + std::string(name) + "$");
  }
}

std::string fillSnippet(std::string_view snippet, SnippetVars vars) {
  std::string out;
  appendSnippet(out, snippet, vars);
  return out;
}

}  // namespace opgen::dest
