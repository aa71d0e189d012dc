// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace ingot::agent::memberlist {

/// Keyring holds the AES keys (16, 24 or 32 bytes): the primary encrypts, all decrypt.
class Keyring {
 public:
  /// create validates the key sizes; the first key is the primary.
  static Result<Keyring> create(std::vector<std::vector<uint8_t>> keys);
  const std::vector<uint8_t>& primary() const { return keys_.front(); }
  const std::vector<std::vector<uint8_t>>& keys() const { return keys_; }

 private:
  std::vector<std::vector<uint8_t>> keys_;
};

/// kEncryptionVersion is the framing memberlist uses at protocol version ≥ 2: version byte,
/// 12-byte nonce, AES-GCM ciphertext and 16-byte tag, no padding. Version 0 (PKCS#7 padded)
/// is accepted on input.
inline constexpr uint8_t kEncryptionVersion = 1;
inline constexpr size_t kNonceSize = 12;
inline constexpr size_t kTagSize = 16;
/// kEncryptOverhead is the bytes encryption adds to a version-1 message.
inline constexpr size_t kEncryptOverhead = 1 + kNonceSize + kTagSize;

/// encryptPayload seals `msg` with `key`, authenticating `aad`. `nonce` must be 12 bytes; when
/// empty a random nonce is drawn.
Result<std::vector<uint8_t>> encryptPayload(std::span<const uint8_t> key,
                                            std::span<const uint8_t> msg,
                                            std::span<const uint8_t> aad,
                                            std::span<const uint8_t> nonce = {});

/// decryptPayload opens a version 0 or 1 payload with any key of the ring; fails when the
/// payload is too short, has an unknown version or no key authenticates it.
Result<std::vector<uint8_t>> decryptPayload(const Keyring& ring,
                                            std::span<const uint8_t> msg,
                                            std::span<const uint8_t> aad);

/// deriveMetalLbKey reproduces MetalLB's key: the first 32 bytes of the secret followed by
/// SHA-256 of the empty string (Go's `sha256.New().Sum(secret)` appends the digest).
std::vector<uint8_t> deriveMetalLbKey(std::span<const uint8_t> secret);

/// crc32Ieee is the checksum memberlist's hasCrc prefix carries.
uint32_t crc32Ieee(std::span<const uint8_t> data);

}  // namespace ingot::agent::memberlist
