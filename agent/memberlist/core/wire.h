// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "agent/memberlist/core/messages.h"
#include "agent/memberlist/core/security.h"
#include "common/util/result.h"

namespace ingot::agent::memberlist {

/// DropReason says why a packet, a part of it or a stream was not used.
enum class DropReason {
  None,
  Empty,
  Decrypt,      ///< no key authenticates it, or it is not encrypted while a key is set
  Checksum,     ///< the hasCrc prefix does not match
  Malformed,    ///< msgpack or framing that cannot decode (truncated, over a limit, garbage)
  Unsupported,  ///< compression, user messages, labels: valid memberlist, not used by Ingot
  TooLarge,     ///< a stream longer than the configured bound
  UnknownType,
};

/// dropReasonName returns a stable lower-case name for counters and logs.
const char* dropReasonName(DropReason r);

/// Security is the encryption setting shared by packets and streams: no ring means plaintext.
struct Security {
  const Keyring* ring = nullptr;
  /// verify_incoming mirrors GossipVerifyIncoming: refuse plaintext when a ring is set.
  bool verify_incoming = true;
};

/// DecodedPacket is what one UDP datagram carried.
struct DecodedPacket {
  std::vector<Message> messages;
  DropReason drop = DropReason::None;  ///< whole-packet failure, or the first failed part
  size_t bad_parts = 0;                ///< compound parts dropped (malformed or unsupported)
};

/// openPacket decrypts (when `sec.ring` is set), checks the optional CRC and splits compound
/// messages (nested at most once more, as memberlist never nests deeper).
DecodedPacket openPacket(std::span<const uint8_t> datagram, const Security& sec);

/// sealPacket frames a plaintext message for UDP: CRC prefix when `crc`, then encryption.
Result<Bytes> sealPacket(std::span<const uint8_t> plain, bool crc, const Security& sec);

/// StreamStatus is the state of a partially received TCP stream.
enum class StreamStatus { Incomplete, Complete, Invalid };

/// StreamMessage is one decoded stream: a push/pull exchange, a TCP ping, its ack or an error.
struct StreamMessage {
  MessageType type = MessageType::Err;
  PushPullHeader header;
  std::vector<PushNodeState> states;
  Ping ping;
  Ack ack;
  std::string error;
  size_t consumed = 0;  ///< bytes of the input the message used
};

/// parseStream decodes the bytes received so far on a stream. Incomplete: wait for more (the
/// caller bounds total size and time); Invalid: `drop` says why. A length or count over the
/// limits is Invalid as soon as it is seen, before the bytes arrive.
StreamStatus parseStream(std::span<const uint8_t> data,
                         const Security& sec,
                         size_t max_bytes,
                         StreamMessage& out,
                         DropReason& drop);

/// sealStream frames a plaintext stream message: memberlist's encryptMsg header (type byte,
/// 4-byte big-endian length, both authenticated) when a ring is set, else the bytes as is.
Result<Bytes> sealStream(std::span<const uint8_t> plain, const Security& sec);

}  // namespace ingot::agent::memberlist
