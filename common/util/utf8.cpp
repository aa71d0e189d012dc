// SPDX-License-Identifier: Apache-2.0
#include "common/util/utf8.h"

namespace ingot::utf8 {
namespace {

bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

/// Lead describes the sequences a lead byte may start: length, minimum value and the allowed
/// range of the second byte (which rules out overlong forms, surrogates and > U+10FFFF).
struct Lead {
  std::size_t size;
  char32_t bits;
  unsigned lo;
  unsigned hi;
};

Lead lead(unsigned char c) {
  if (c >= 0xC2 && c <= 0xDF) {
    return {2, c & 0x1Fu, 0x80u, 0xBFu};
  }
  if (c >= 0xE0 && c <= 0xEF) {
    return {3, c & 0x0Fu, c == 0xE0 ? 0xA0u : 0x80u, c == 0xED ? 0x9Fu : 0xBFu};
  }
  if (c >= 0xF0 && c <= 0xF4) {
    return {4, c & 0x07u, c == 0xF0 ? 0x90u : 0x80u, c == 0xF4 ? 0x8Fu : 0xBFu};
  }
  return {0, 0, 0u, 0u};
}

}  // namespace

Rune decodeRune(std::string_view s, std::size_t at) {
  if (at >= s.size()) {
    return {kRuneError, 0};
  }
  const auto c0 = static_cast<unsigned char>(s[at]);
  if (c0 < 0x80) {
    return {c0, 1};
  }
  const Lead l = lead(c0);
  if (l.size == 0 || at + l.size > s.size()) {
    return {kRuneError, 1};
  }
  const auto c1 = static_cast<unsigned char>(s[at + 1]);
  if (c1 < l.lo || c1 > l.hi) {
    return {kRuneError, 1};
  }
  char32_t r = (l.bits << 6) | (c1 & 0x3Fu);
  for (std::size_t i = 2; i < l.size; ++i) {
    const auto c = static_cast<unsigned char>(s[at + i]);
    if (!continuation(c)) {
      return {kRuneError, 1};
    }
    r = (r << 6) | (c & 0x3Fu);
  }
  return {r, l.size};
}

void appendRune(std::string& out, char32_t r) {
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

bool valid(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const Rune r = decodeRune(s, i);
    if (r.value == kRuneError && r.size == 1) {
      return false;
    }
    i += r.size;
  }
  return true;
}

std::string sanitize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const Rune r = decodeRune(s, i);
    if (r.value == kRuneError && r.size == 1) {
      appendRune(out, kRuneError);
    } else {
      out.append(s.substr(i, r.size));
    }
    i += r.size;
  }
  return out;
}

}  // namespace ingot::utf8
