// SPDX-License-Identifier: Apache-2.0
#include "agent/core/member_meta.h"

#include <cctype>
#include <charconv>
#include <set>

namespace ingot::agent {
namespace {

std::optional<int64_t> parseMillis(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0) {
    return std::nullopt;
  }
  return value;
}

bool isMac(std::string_view text) {
  if (text.size() != 17) {
    return false;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool ok =
        i % 3 == 2 ? c == ':'
                   : (std::isdigit(static_cast<unsigned char>(c)) != 0 || (c >= 'a' && c <= 'f'));
    if (!ok) {
      return false;
    }
  }
  return true;
}

std::optional<std::vector<std::string>> parseMacs(std::string_view text) {
  std::vector<std::string> out;
  if (text.empty()) {
    return out;
  }
  for (;;) {
    const size_t comma = text.find(',');
    const std::string_view mac = text.substr(0, comma);
    if (!isMac(mac)) {
      return std::nullopt;  // also an empty entry, as after a trailing comma
    }
    out.emplace_back(mac);
    if (comma == std::string_view::npos) {
      return out;
    }
    text.remove_prefix(comma + 1);
  }
}

/// applyField stores one key=value into meta; false when the value is malformed.
bool applyField(std::string_view key, std::string_view value, MemberMeta& meta) {
  if (key == "joined") {
    meta.joined_ms = parseMillis(value);
    return meta.joined_ms.has_value();
  }
  if (key == "holddown") {
    meta.hold_down_ms = parseMillis(value);
    return meta.hold_down_ms.has_value();
  }
  if (key == "macs") {
    auto macs = parseMacs(value);
    if (!macs) {
      return false;
    }
    meta.macs = std::move(*macs);
  }
  return true;  // unknown keys belong to newer agents
}

}  // namespace

std::string encodeMemberMeta(const MemberMeta& meta) {
  std::string out(kMemberMetaPrefix);
  if (meta.joined_ms) {
    out += " joined=" + std::to_string(*meta.joined_ms);
  }
  if (meta.hold_down_ms) {
    out += " holddown=" + std::to_string(*meta.hold_down_ms);
  }
  if (!meta.macs.empty()) {
    out += " macs=";
    for (size_t i = 0; i < meta.macs.size(); ++i) {
      out += (i == 0 ? "" : ",") + meta.macs[i];
    }
  }
  return out;
}

std::optional<MemberMeta> parseMemberMeta(std::string_view text) {
  if (!text.starts_with(kMemberMetaPrefix)) {
    return std::nullopt;
  }
  text.remove_prefix(kMemberMetaPrefix.size());
  if (!text.empty() && text.front() != ' ') {
    return std::nullopt;  // e.g. "ingot/10": another format
  }
  MemberMeta meta;
  std::set<std::string_view> seen;
  while (!text.empty()) {
    const size_t start = text.find_first_not_of(' ');
    if (start == std::string_view::npos) {
      break;
    }
    text.remove_prefix(start);
    const size_t end = text.find(' ');
    const std::string_view field = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end);
    const size_t eq = field.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return std::nullopt;
    }
    const std::string_view key = field.substr(0, eq);
    if (!seen.insert(key).second || !applyField(key, field.substr(eq + 1), meta)) {
      return std::nullopt;
    }
  }
  return meta;
}

}  // namespace ingot::agent
