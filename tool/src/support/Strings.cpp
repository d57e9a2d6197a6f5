#include "support/Strings.h"

#include <cctype>

namespace opgen::support {

std::vector<std::string_view> split(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + sep.size();
  }
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool contains(std::string_view s, std::string_view needle) { return s.find(needle) != std::string_view::npos; }

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

std::string universalNewlines(std::string text) {
  if (text.find('\r') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') out += text[i];
    else if (i + 1 < text.size() && text[i + 1] == '\n') continue;  // the '\n' follows
    else out += '\n';
  }
  return out;
}

std::string replaceAll(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  size_t start = 0;
  while (true) {
    size_t pos = from.empty() ? std::string_view::npos : s.find(from, start);
    if (pos == std::string_view::npos) break;
    out.append(s.substr(start, pos - start));
    out.append(to);
    start = pos + from.size();
  }
  out.append(s.substr(start));
  return out;
}

std::string indentLines(std::string_view text, std::string_view prefix) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r\n\f\v") != std::string_view::npos) out.append(prefix);  // not blank
    out.append(line);
    start = end;
  }
  return out;
}

std::string pythonTitle(std::string_view s) {
  std::string out;
  bool previousLetter = false;
  for (char c : s) {
    const bool letter = std::isalpha(static_cast<unsigned char>(c)) != 0;
    out += letter ? static_cast<char>(previousLetter ? std::tolower(static_cast<unsigned char>(c))
                                                      : std::toupper(static_cast<unsigned char>(c)))
                  : c;
    previousLetter = letter;
  }
  return out;
}

std::string titledParts(std::string_view name) {
  std::string out;
  for (std::string_view part : split(name, "_")) out += pythonTitle(part);
  return out;
}

}  // namespace opgen::support
