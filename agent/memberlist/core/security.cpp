// SPDX-License-Identifier: Apache-2.0
#include "agent/memberlist/core/security.h"

#include <memory>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

namespace ingot::agent::memberlist {

namespace {

using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

const EVP_CIPHER* cipherFor(size_t key_size) {
  switch (key_size) {
    case 16:
      return EVP_aes_128_gcm();
    case 24:
      return EVP_aes_192_gcm();
    case 32:
      return EVP_aes_256_gcm();
    default:
      return nullptr;
  }
}

// gcm runs one AES-GCM seal (encrypt) or open; `tag` is written on seal and checked on open.
bool gcm(bool encrypt,
         std::span<const uint8_t> key,
         std::span<const uint8_t> nonce,
         std::span<const uint8_t> aad,
         std::span<const uint8_t> in,
         uint8_t* out,
         uint8_t* tag) {
  CtxPtr ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  const EVP_CIPHER* cipher = cipherFor(key.size());
  if (!ctx || cipher == nullptr ||
      EVP_CipherInit_ex(ctx.get(), cipher, nullptr, key.data(), nonce.data(), encrypt ? 1 : 0) !=
          1) {
    return false;
  }
  int len = 0;
  if (!aad.empty() &&
      EVP_CipherUpdate(ctx.get(), nullptr, &len, aad.data(), static_cast<int>(aad.size())) != 1) {
    return false;
  }
  if (!in.empty() &&
      EVP_CipherUpdate(ctx.get(), out, &len, in.data(), static_cast<int>(in.size())) != 1) {
    return false;
  }
  if (!encrypt && EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagSize,
                                      const_cast<uint8_t*>(tag)) != 1) {
    return false;
  }
  uint8_t final_block[16];
  if (EVP_CipherFinal_ex(ctx.get(), final_block, &len) != 1) {
    return false;
  }
  return !encrypt || EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagSize, tag) == 1;
}

}  // namespace

Result<Keyring> Keyring::create(std::vector<std::vector<uint8_t>> keys) {
  if (keys.empty()) {
    return invalidArgument("memberlist keyring: at least one key is required");
  }
  for (const auto& k : keys) {
    if (cipherFor(k.size()) == nullptr) {
      return invalidArgument("memberlist keyring: key size " + std::to_string(k.size()) +
                             " is not 16, 24 or 32 bytes");
    }
  }
  Keyring ring;
  ring.keys_ = std::move(keys);
  return ring;
}

Result<std::vector<uint8_t>> encryptPayload(std::span<const uint8_t> key,
                                            std::span<const uint8_t> msg,
                                            std::span<const uint8_t> aad,
                                            std::span<const uint8_t> nonce) {
  std::vector<uint8_t> out(kEncryptOverhead + msg.size());
  out[0] = kEncryptionVersion;
  if (nonce.size() == kNonceSize) {
    std::copy(nonce.begin(), nonce.end(), out.begin() + 1);
  } else if (RAND_bytes(out.data() + 1, kNonceSize) != 1) {
    return Error{ErrorCode::Internal, "memberlist: no random nonce available"};
  }
  uint8_t* tag = out.data() + 1 + kNonceSize + msg.size();
  if (!gcm(true, key, {out.data() + 1, kNonceSize}, aad, msg, out.data() + 1 + kNonceSize, tag)) {
    return Error{ErrorCode::Internal, "memberlist: AES-GCM encryption failed"};
  }
  return out;
}

Result<std::vector<uint8_t>> decryptPayload(const Keyring& ring,
                                            std::span<const uint8_t> msg,
                                            std::span<const uint8_t> aad) {
  if (msg.empty() || msg[0] > 1) {
    return invalidArgument("memberlist: unsupported encryption version");
  }
  // Version 0 pads to the block size, so even an empty plaintext carries one block.
  const size_t min_size = kEncryptOverhead + (msg[0] == 0 ? 16 : 0);
  if (msg.size() < min_size) {
    return invalidArgument("memberlist: encrypted payload too short");
  }
  const auto nonce = msg.subspan(1, kNonceSize);
  const auto body = msg.subspan(1 + kNonceSize, msg.size() - kEncryptOverhead);
  const auto tag = msg.subspan(msg.size() - kTagSize);
  std::vector<uint8_t> plain(body.size());
  for (const auto& key : ring.keys()) {
    if (gcm(false, key, nonce, aad, body, plain.data(), const_cast<uint8_t*>(tag.data()))) {
      if (msg[0] == 0) {
        const size_t pad = plain.empty() ? 0 : plain.back();
        if (pad == 0 || pad > 16 || pad > plain.size()) {
          return invalidArgument("memberlist: bad padding in version 0 payload");
        }
        plain.resize(plain.size() - pad);
      }
      return plain;
    }
  }
  return invalidArgument("memberlist: no installed key decrypts the payload");
}

std::vector<uint8_t> deriveMetalLbKey(std::span<const uint8_t> secret) {
  std::vector<uint8_t> all(secret.begin(), secret.end());
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(nullptr, 0, digest);
  all.insert(all.end(), digest, digest + SHA256_DIGEST_LENGTH);
  all.resize(32);
  return all;
}

uint32_t crc32Ieee(std::span<const uint8_t> data) {
  // Bitwise CRC-32 (IEEE 802.3, reflected polynomial); packets are ≤ 64 KiB, so a table
  // buys nothing measurable here.
  uint32_t crc = 0xffffffffU;
  for (uint8_t byte : data) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc >> 1) ^ (0xedb88320U & (0U - (crc & 1U)));
    }
  }
  return ~crc;
}

}  // namespace ingot::agent::memberlist
