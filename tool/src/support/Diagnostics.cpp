#include "support/Diagnostics.h"

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

std::string Diagnostic::str() const {
  const char* kind = severity == Severity::Error ? "error" : severity == Severity::Warning ? "warning" : "note";
  return loc.str() + ": " + kind + ": " + message;
}

void Diagnostics::error(SourceLoc loc, std::string message) {
  items_.push_back({Severity::Error, std::move(loc), std::move(message)});
  ++errorCount_;
}

void Diagnostics::warning(SourceLoc loc, std::string message) {
  items_.push_back({Severity::Warning, std::move(loc), std::move(message)});
}

void Diagnostics::note(SourceLoc loc, std::string message) {
  items_.push_back({Severity::Note, std::move(loc), std::move(message)});
}

std::string Diagnostics::str() const {
  std::string s;
  for (const auto& d : items_) s += d.str() + '\n';
  return s;
}

}  // namespace opgen::support
