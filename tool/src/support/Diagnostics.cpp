#include "support/Diagnostics.h"

#include <algorithm>
#include <tuple>

namespace opgen::support {

std::string SourceLoc::str() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ':' + std::to_string(line);
    if (column > 0) s += ':' + std::to_string(column);
  }
  return s;
}

SourceLoc SourceLoc::shifted(int chars) const {
  SourceLoc r = *this;
  if (r.column > 0) r.column += chars;
  return r;
}

namespace {

// `text` with its control characters escaped (a newline as \n, others as \xNN), so that a message
// quoting the input (a YAML scalar may hold any character) stays one line.
std::string oneLine(std::string text) {
  const auto isControl = [](char c) { return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == '\x7f'; };
  if (std::none_of(text.begin(), text.end(), isControl)) return text;
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (!isControl(c)) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      const auto byte = static_cast<unsigned char>(c);
      out.append("\\x").append(1, kHex[byte >> 4]).append(1, kHex[byte & 0xf]);
    }
  }
  return out;
}

}  // namespace

std::string Diagnostic::str() const {
  const char* kind = severity == Severity::Error ? "error" : severity == Severity::Warning ? "warning" : "note";
  return oneLine(loc.str() + ": " + kind + ": " + message);
}

void Diagnostics::add(Diagnostic d) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Each diagnostic is reported once, however many paths (threads, emitters of one operator) find it.
  if (!seen_.insert(d.str()).second) return;
  if (d.severity == Severity::Error) ++errorCount_;
  items_.push_back(std::move(d));
}

void Diagnostics::error(SourceLoc loc, std::string message) { add({Severity::Error, std::move(loc), std::move(message)}); }

std::string aboutOperator(std::string_view op, std::string_view message) {
  std::string text;
  text.reserve(op.size() + message.size() + 7);
  return text.append("in '").append(op).append("': ").append(message);
}

void Diagnostics::errorAbout(SourceLoc loc, std::string_view op, std::string_view message) {
  error(std::move(loc), aboutOperator(op, message));
}

void Diagnostics::warning(SourceLoc loc, std::string message) {
  add({Severity::Warning, std::move(loc), std::move(message)});
}

void Diagnostics::note(SourceLoc loc, std::string message) { add({Severity::Note, std::move(loc), std::move(message)}); }

int Diagnostics::errorCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return errorCount_;
}

void Diagnostics::append(const Diagnostics& other) {
  for (const Diagnostic& d : other.all()) add(d);
}

void Diagnostics::sortByLocation() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::stable_sort(items_.begin(), items_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.loc.file, a.loc.line, a.loc.column, a.message) <
           std::tie(b.loc.file, b.loc.line, b.loc.column, b.message);
  });
}

std::string Diagnostics::str() const {
  std::string s;
  for (const auto& d : items_) s += d.str() + '\n';
  return s;
}

}  // namespace opgen::support
