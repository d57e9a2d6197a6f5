#include "support/PythonNumbers.h"

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace opgen::support {

namespace {

// ---------------------------------------------------------------------------------------------
// Python's int() / float() / repr(float)

// str.strip() for the ASCII characters Python counts as whitespace.
bool isPyAsciiSpace(char c) { return (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= ' '); }

std::string_view pyStrip(std::string_view s) {
  while (!s.empty() && isPyAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isPyAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// A run of digits in which single underscores may separate digits ("1_000"); appends the digits.
// Returns the number of characters consumed (0 when there is no digit).
size_t digitRun(std::string_view s, size_t pos, std::string& digits) {
  size_t i = pos;
  if (i >= s.size() || !isDigit(s[i])) return 0;
  while (i < s.size()) {
    if (isDigit(s[i])) {
      digits += s[i++];
    } else if (s[i] == '_' && i + 1 < s.size() && isDigit(s[i + 1])) {
      ++i;
    } else {
      break;
    }
  }
  return i - pos;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != b[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> pythonInt(std::string_view s) {
  s = pyStrip(s);
  bool negative = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  std::string digits;
  const size_t n = digitRun(s, i, digits);
  if (n == 0 || i + n != s.size()) return std::nullopt;
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return std::string("0");
  std::string out(negative ? "-" : "");
  out.append(digits, first, std::string::npos);
  return out;
}

std::optional<double> pythonFloat(std::string_view s) {
  s = pyStrip(s);
  bool negative = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const std::string_view rest = s.substr(i);
  if (equalsIgnoreCase(rest, "inf") || equalsIgnoreCase(rest, "infinity"))
    return negative ? -HUGE_VAL : HUGE_VAL;
  if (equalsIgnoreCase(rest, "nan")) return std::nan("");
  // digits [. [digits]] | . digits, then [eE][+-]digits; underscores only between digits.
  std::string text;
  size_t intPart = digitRun(s, i, text);
  i += intPart;
  size_t fracPart = 0;
  if (i < s.size() && s[i] == '.') {
    text += '.';
    ++i;
    fracPart = digitRun(s, i, text);
    i += fracPart;
  }
  if (intPart == 0 && fracPart == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    text += 'e';
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) text += s[i++];
    const size_t expPart = digitRun(s, i, text);
    if (expPart == 0) return std::nullopt;
    i += expPart;
  }
  if (i != s.size()) return std::nullopt;
  // The text is a plain decimal literal now; strtod in the "C" locale (opgen never sets another)
  // rounds like Python and gives inf on overflow.
  const double v = std::strtod(text.c_str(), nullptr);
  return negative ? -v : v;
}

std::string pythonFloatRepr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  // Shortest round-trip digits and the decimal exponent (what Python's repr starts from).
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  assert(ec == std::errc());
  std::string_view sci(buf, static_cast<size_t>(end - buf));
  std::string out;
  if (sci.front() == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits += c;
  int exp10 = 0;
  std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp10);
  const int decpt = exp10 + 1;  // digits are 0.DIGITS x 10^decpt
  const int ndigits = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (ndigits > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    out += exp10 < 0 ? "e-" : "e+";
    const int mag = exp10 < 0 ? -exp10 : exp10;
    if (mag < 10) out += '0';
    out += std::to_string(mag);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else if (decpt >= ndigits) {
    out += digits;
    out.append(static_cast<size_t>(decpt - ndigits), '0');
    out += ".0";
  } else {
    out.append(digits, 0, static_cast<size_t>(decpt));
    out += '.';
    out.append(digits, static_cast<size_t>(decpt), std::string::npos);
  }
  return out;
}

}  // namespace opgen::support
