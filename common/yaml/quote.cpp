// SPDX-License-Identifier: Apache-2.0
#include "common/yaml/quote.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <yaml-cpp/yaml.h>

#include "common/util/utf8.h"

namespace ingot {
namespace {

/// looksLikeNumber: an optional sign, then digits and underscores with at most one dot (YAML
/// 1.1 reads "1_000" and "1." as numbers).
bool looksLikeNumber(std::string_view s) {
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) {
    return false;
  }
  int dots = 0;
  for (; i < s.size(); ++i) {
    if (s[i] == '.') {
      ++dots;
    } else if (std::isdigit(static_cast<unsigned char>(s[i])) == 0 && s[i] != '_') {
      return false;
    }
  }
  return dots <= 1;
}

bool needsQuotes(std::string_view s) {
  if (s.empty() || looksLikeNumber(s)) {
    return true;
  }
  static constexpr std::array<std::string_view, 10> kReserved = {"true", "false", "yes", "no", "on",
                                                                 "off",  "null",  "y",   "n",  "~"};
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (std::find(kReserved.begin(), kReserved.end(), lower) != kReserved.end()) {
    return true;
  }
  if (s[0] == '-' || s[0] == '.') {
    return true;
  }
  return !std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '.' || c == '/' || c == '-' || c == '_';
  });
}

}  // namespace

std::string yamlScalar(std::string_view s) {
  if (!needsQuotes(s)) {
    return std::string(s);
  }
  YAML::Emitter emitter;
  // Each invalid byte becomes U+FFFD, as jsonQuote does (yaml-cpp alone would merge some).
  emitter << YAML::DoubleQuoted << utf8::sanitize(s);
  // yaml-cpp writes DEL as is, which YAML 1.1 readers (libyaml, Go) refuse as a control character.
  std::string out;
  for (const char c : std::string_view(emitter.c_str(), emitter.size())) {
    if (c == '\x7f') {
      out += "\\x7f";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace ingot
