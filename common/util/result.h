// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "common/util/assert.h"

namespace ingot {

/// ErrorCode classifies an expected failure; the message carries the detail for humans.
enum class ErrorCode {
  InvalidArgument,  ///< bad input: a parse or validation failure
  NotFound,
  AlreadyExists,
  Conflict,     ///< e.g. an HTTP 409 or an allocation refused by a sharing rule
  Exhausted,    ///< e.g. no free address left
  Transient,    ///< retry later: a referenced object may still appear
  Unavailable,  ///< I/O failure, peer unreachable
  Internal,
  Gone,          ///< HTTP 410: a resourceVersion or continue token has expired; relist
  Unauthorized,  ///< HTTP 401: credentials missing or rejected
  Forbidden,     ///< HTTP 403: authenticated but not allowed
};

/// Error is the value carried by a failed Result.
struct Error {
  ErrorCode code = ErrorCode::Internal;
  std::string message;

  Error() = default;
  Error(ErrorCode c, std::string m) : code(c), message(std::move(m)) {}
  friend bool operator==(const Error&, const Error&) = default;
};

/// invalidArgument builds the most common error: input that does not parse or validate.
inline Error invalidArgument(std::string message) {
  return Error{ErrorCode::InvalidArgument, std::move(message)};
}

/// Result<T> is the subset of std::expected<T, Error> the project uses (libstdc++ 12 has no
/// <expected> in C++20). A default-constructed Result<void> is success.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool has_value() const { return v_.index() == 0; }  // NOLINT(readability-identifier-naming)
  explicit operator bool() const { return has_value(); }

  T& value() & {
    INGOT_RELEASE_ASSERT(has_value());
    return std::get<0>(v_);
  }
  const T& value() const& {
    INGOT_RELEASE_ASSERT(has_value());
    return std::get<0>(v_);
  }
  T&& value() && {
    INGOT_RELEASE_ASSERT(has_value());
    return std::get<0>(std::move(v_));
  }
  const Error& error() const {
    INGOT_RELEASE_ASSERT(!has_value());
    return std::get<1>(v_);
  }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool has_value() const { return ok_; }  // NOLINT(readability-identifier-naming)
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    INGOT_RELEASE_ASSERT(!ok_);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace ingot
