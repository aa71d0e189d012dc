// SPDX-License-Identifier: Apache-2.0
#include "common/util/base64.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace ingot {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// sextet maps a base64 character to its 6-bit value, -1 otherwise.
int sextet(char c) {
  const auto pos = kAlphabet.find(c);
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

Error illegal(size_t offset) {
  return invalidArgument("illegal base64 data at input byte " + std::to_string(offset));
}

bool newline(char c) {
  return c == '\n' || c == '\r';
}

/// Quantum is the outcome of decoding one group of four characters.
struct Quantum {
  size_t next = 0;   ///< where the next group starts
  size_t bytes = 0;  ///< how many bytes it carries (0 at the end of the input)
  std::optional<size_t> error;
};

/// padding handles the '=' that ends a group after `have` data characters (at src[si - 1]):
/// Go's rules for "xx==" and "xxx=", then nothing but newlines may follow.
Quantum padding(std::string_view src, size_t si, size_t have) {
  if (have < 2) {
    return {si, 0, si - 1};
  }
  if (have == 2) {
    while (si < src.size() && newline(src[si])) {
      ++si;
    }
    if (si == src.size()) {
      return {si, 0, src.size()};
    }
    if (src[si] != '=') {
      return {si, 0, si - 1};
    }
    ++si;
  }
  while (si < src.size() && newline(src[si])) {
    ++si;
  }
  Quantum q{si, have - 1, {}};
  if (si < src.size()) {
    q.error = si;  // trailing garbage
  }
  return q;
}

/// decodeQuantum decodes the group at src[si] into v, as Go's StdEncoding does.
Quantum decodeQuantum(std::string_view src, size_t si, std::array<uint32_t, 4>& v) {
  v = {};
  for (size_t j = 0; j < 4;) {
    if (si == src.size()) {
      if (j == 0) {
        return {si, 0, {}};
      }
      return {si, 0, si - j};  // padding is required
    }
    const char in = src[si++];
    if (const int s = sextet(in); s >= 0) {
      v[j++] = static_cast<uint32_t>(s);
    } else if (!newline(in)) {
      if (in != '=') {
        return {si, 0, si - 1};
      }
      return padding(src, si, j);
    }
  }
  return {si, 3, {}};
}

/// decodeGo decodes src into out with Go's StdEncoding rules; returns the offset of the first
/// illegal byte, if any.
std::optional<size_t> decodeGo(std::string_view src, std::string& out) {
  out.reserve(src.size() / 4 * 3);
  std::array<uint32_t, 4> v{};
  for (size_t si = 0;;) {
    const Quantum q = decodeQuantum(src, si, v);
    if (q.error) {
      return q.error;
    }
    // Like Go's (non-strict) StdEncoding, unused bits before the padding are ignored.
    const uint32_t bits = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    for (size_t k = 0; k < q.bytes; ++k) {
      out.push_back(static_cast<char>((bits >> (16 - 8 * k)) & 0xff));
    }
    if (q.bytes < 3) {
      return std::nullopt;
    }
    si = q.next;
  }
}

/// Normalized is lenient input rewritten for decodeGo, with each character's input offset.
struct Normalized {
  std::string chars;
  std::vector<size_t> offsets;
};

/// normalize drops whitespace and checks the lenient padding rule (at most two '=' and only at
/// the end, no lone final character), then adds exactly the padding Go's decoder expects.
Result<Normalized> normalize(std::string_view text) {
  Normalized n;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ' ' && text[i] != '\t' && !newline(text[i])) {
      n.chars.push_back(text[i]);
      n.offsets.push_back(i);
    }
  }
  const size_t first_pad = std::min(n.chars.find('='), n.chars.size());
  for (size_t i = first_pad; i < n.chars.size(); ++i) {
    if (n.chars[i] != '=' || i - first_pad >= 2) {
      return illegal(n.offsets[i]);
    }
  }
  n.chars.resize(first_pad);
  n.offsets.resize(first_pad);
  if (first_pad % 4 == 1) {
    return illegal(n.offsets[first_pad - 1]);
  }
  while (n.chars.size() % 4 != 0) {
    n.chars.push_back('=');
    n.offsets.push_back(text.size());
  }
  n.offsets.push_back(text.size());
  return n;
}

}  // namespace

Result<std::string> decodeBase64(std::string_view text, Base64Mode mode) {
  std::string out;
  if (mode == Base64Mode::GoStd) {
    if (const auto bad = decodeGo(text, out)) {
      return illegal(*bad);
    }
    return out;
  }
  auto n = normalize(text);
  if (!n) {
    return n.error();
  }
  if (const auto bad = decodeGo(n->chars, out)) {
    return illegal(n->offsets[std::min(*bad, n->offsets.size() - 1)]);  // offset in text
  }
  return out;
}

std::string encodeBase64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t bits = 0;
    for (size_t k = 0; k < 3; ++k) {
      bits = (bits << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    }
    for (size_t k = 0; k < 4; ++k) {
      out.push_back(k <= n ? kAlphabet[(bits >> (18 - 6 * k)) & 0x3f] : '=');
    }
  }
  return out;
}

}  // namespace ingot
