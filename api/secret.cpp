// SPDX-License-Identifier: Apache-2.0
#include "api/secret.h"

#include <algorithm>
#include <array>
#include <vector>

namespace ingot::api {
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

}  // namespace

namespace {

/// Quantum is one group of up to four base64 characters: values and how many carry data.
struct Quantum {
  std::array<uint32_t, 4> v{};
  size_t have = 0;
};

/// readQuantum decodes the quantum starting at q; padding must end the input ("xx==", "xxx=").
Result<Quantum> readQuantum(const std::string& chars,
                            const std::vector<size_t>& offsets,
                            size_t q) {
  const size_t n = chars.size();
  Quantum out;
  for (; out.have < 4 && q + out.have < n && chars[q + out.have] != '='; ++out.have) {
    const int s = sextet(chars[q + out.have]);
    if (s < 0) {
      return illegal(offsets[q + out.have]);
    }
    out.v[out.have] = static_cast<uint32_t>(s);
  }
  if (out.have == 4) {
    return out;
  }
  const size_t pad_at = q + out.have;
  if (out.have < 2) {
    return illegal(pad_at < n ? offsets[pad_at] : offsets[q]);
  }
  if (pad_at == n) {
    return illegal(offsets[q]);
  }
  const size_t pads = 4 - out.have;
  for (size_t k = 0; k < pads; ++k) {
    if (pad_at + k >= n || chars[pad_at + k] != '=') {
      return illegal(offsets[pad_at]);
    }
  }
  if (pad_at + pads < n) {
    return illegal(offsets[pad_at + pads]);
  }
  return out;
}

}  // namespace

Result<std::string> decodeBase64(std::string_view text) {
  // Significant characters with their offsets in text ('\r' and '\n' are skipped, as in Go).
  std::string chars;
  std::vector<size_t> offsets;
  chars.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r' && text[i] != '\n') {
      chars.push_back(text[i]);
      offsets.push_back(i);
    }
  }
  std::string out;
  out.reserve(chars.size() / 4 * 3);
  for (size_t q = 0; q < chars.size(); q += 4) {
    auto quantum = readQuantum(chars, offsets, q);
    if (!quantum) {
      return quantum.error();
    }
    const auto& v = quantum->v;
    const uint32_t bits = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    // Like Go's (non-strict) StdEncoding, unused bits before the padding are ignored.
    for (size_t k = 0; k + 1 < quantum->have; ++k) {
      out.push_back(static_cast<char>((bits >> (16 - 8 * k)) & 0xff));
    }
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

Result<std::string> secretValue(const Secret& secret, const std::string& key) {
  const std::string who = secret.metadata.namespace_ + "/" + secret.metadata.name;
  if (const auto it = secret.string_data.find(key); it != secret.string_data.end()) {
    return it->second;
  }
  const auto it = secret.data.find(key);
  if (it == secret.data.end()) {
    return Error{ErrorCode::NotFound, "key \"" + key + "\" not found in secret " + who};
  }
  auto decoded = decodeBase64(it->second);
  if (!decoded) {
    return invalidArgument("secret " + who + " data[" + key + "]: " + decoded.error().message);
  }
  return decoded;
}

}  // namespace ingot::api
