// SPDX-License-Identifier: Apache-2.0
#include "kube/token_source.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ingot::k8s {
namespace {

std::string trimSpace(std::string s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!s.empty() && is_space(s.back())) s.pop_back();
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}

}  // namespace

Result<std::string> readFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error{ErrorCode::NotFound,
                 "cannot read " + std::string(what) + " " + path + ": " + std::strerror(errno)};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    return Error{ErrorCode::Unavailable, "error reading " + std::string(what) + " " + path};
  }
  return ss.str();
}

TokenSource::TokenSource(std::string token, std::string token_file, Duration refresh, Clock& clock)
    : static_token_(std::move(token)),
      file_(std::move(token_file)),
      refresh_(refresh),
      clock_(clock) {}

Result<std::string> TokenSource::token() {
  std::lock_guard lock(mu_);
  if (file_.empty()) return static_token_;
  const TimePoint now = clock_.now();
  if (cached_ && !stale_ && now - read_at_ < refresh_) return *cached_;
  auto content = readFile(file_, "bearer token file");
  if (content) {
    cached_ = trimSpace(std::move(*content));
    read_at_ = now;
    stale_ = false;
    return *cached_;
  }
  if (cached_) return *cached_;  // keep serving the last good token while the file is replaced
  return content.error();
}

void TokenSource::invalidate() {
  std::lock_guard lock(mu_);
  stale_ = true;
}

}  // namespace ingot::k8s
