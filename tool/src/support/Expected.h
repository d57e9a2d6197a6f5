// Expected<T>: a value or an error message, for parsers and checks that report failures as values.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace opgen::support {

struct Error {
  std::string message;
  // Where in the parsed text the problem is (0-based character offset), or -1 when unknown.
  int offset = -1;
};

template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& operator*() { return std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }
  T take() { return std::move(std::get<0>(v_)); }

 private:
  std::variant<T, Error> v_;
};

inline Error makeError(std::string message, int offset = -1) { return Error{std::move(message), offset}; }

}  // namespace opgen::support
