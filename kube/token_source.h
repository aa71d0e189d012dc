// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "common/util/result.h"
#include "kube/clock.h"

namespace ingot::k8s {

/// TokenSource supplies the bearer token. A file-backed source re-reads the file when its cached
/// copy is older than the refresh period (kubelet rotates projected service-account tokens), or
/// at once after invalidate() (the server answered 401). The token is never logged or put into an
/// error message. Thread-safe.
class TokenSource {
 public:
  static constexpr Duration kDefaultRefresh = std::chrono::minutes(1);

  /// token is used when token_file is empty; with neither, requests carry no Authorization header.
  TokenSource(std::string token,
              std::string token_file,
              Duration refresh = kDefaultRefresh,
              Clock& clock = steadyClock());

  /// token returns the current token ("" for none). A failed re-read keeps the last good token;
  /// an error is returned only when the file has never been read successfully.
  Result<std::string> token();

  /// invalidate makes the next token() re-read the file.
  void invalidate();

  bool fileBacked() const { return !file_.empty(); }

 private:
  std::mutex mu_;
  std::string static_token_;
  std::string file_;
  Duration refresh_;
  Clock& clock_;
  std::optional<std::string> cached_;
  TimePoint read_at_{};
  bool stale_ = true;
};

/// readFile returns the whole content of path; the error names `what` and the path.
Result<std::string> readFile(const std::string& path, std::string_view what);

}  // namespace ingot::k8s
