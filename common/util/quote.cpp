// SPDX-License-Identifier: Apache-2.0
#include "common/util/quote.h"

#include "common/util/utf8.h"

namespace ingot {
namespace {

constexpr char kHex[] = "0123456789abcdef";

/// appendHex appends `\` + prefix + the low 4 * digits bits of v in lowercase hex.
void appendHex(std::string& out, char prefix, char32_t v, int digits) {
  out += '\\';
  out += prefix;
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
    out += kHex[(v >> shift) & 0xF];
  }
}

/// shortEscape returns the letter of Go's one-letter escape for c, or 0 when it has none.
char shortEscape(char32_t c) {
  switch (c) {
    case '\a':
      return 'a';
    case '\b':
      return 'b';
    case '\f':
      return 'f';
    case '\n':
      return 'n';
    case '\r':
      return 'r';
    case '\t':
      return 't';
    case '\v':
      return 'v';
    default:
      return 0;
  }
}

/// appendGoRune appends one valid rune the way strconv.Quote does (appendEscapedRune).
void appendGoRune(std::string& out, char32_t r, std::string_view bytes) {
  if (r == '"' || r == '\\') {
    out += '\\';
    out += static_cast<char>(r);
  } else if (utf8::isPrint(r)) {
    out.append(bytes);
  } else if (const char letter = shortEscape(r); letter != 0) {
    out += '\\';
    out += letter;
  } else if (r < ' ' || r == 0x7F) {
    appendHex(out, 'x', r, 2);
  } else if (r < 0x10000) {
    appendHex(out, 'u', r, 4);
  } else {
    appendHex(out, 'U', r, 8);
  }
}

}  // namespace

std::string goQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const utf8::Rune r = utf8::decodeRune(s, i);
    if (r.value == utf8::kRuneError && r.size == 1) {
      appendHex(out, 'x', static_cast<unsigned char>(s[i]), 2);
    } else {
      appendGoRune(out, r.value, s.substr(i, r.size));
    }
    i += r.size;
  }
  out += '"';
  return out;
}

std::string goTimeQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80 || c < ' ') {
      appendHex(out, 'x', c, 2);
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += ch;
  }
  out += '"';
  return out;
}

std::string prometheusLabelValue(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace ingot
