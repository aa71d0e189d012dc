// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "agent/memberlist/core/msgpack.h"

namespace ingot::agent::memberlist {

/// MessageType is memberlist's one-byte message tag (hashicorp/memberlist net.go order).
enum class MessageType : uint8_t {
  Ping = 0,
  IndirectPing = 1,
  Ack = 2,
  Suspect = 3,
  Alive = 4,
  Dead = 5,
  PushPull = 6,
  Compound = 7,
  User = 8,
  Compress = 9,
  Encrypt = 10,
  Nack = 11,
  HasCrc = 12,
  Err = 13,
  HasLabel = 244,  ///< memberlist 0.3+ label prefix; Ingot (like MetalLB) sets no label
};

/// Bytes is an owned byte string (addresses, metadata, protocol versions).
using Bytes = std::vector<uint8_t>;

/// Limits applied while decoding, before anything is stored: a field over its limit makes
/// the whole message invalid.
inline constexpr size_t kMaxNameLength = 512;  ///< Kubernetes node names are ≤ 253 bytes
inline constexpr size_t kMaxMetaLength = 512;  ///< memberlist's MetaMaxSize
inline constexpr size_t kMaxPushPullNodes = 4096;

/// Ping asks a node for an Ack; `node` names the intended target (memberlist ≥ 0.1.5).
struct Ping {
  uint32_t seq_no = 0;
  std::string node;
  Bytes source_addr;
  uint16_t source_port = 0;
  std::string source_node;
  friend bool operator==(const Ping&, const Ping&) = default;
};

/// IndirectPing asks a relay to ping `target:port` on the sender's behalf.
struct IndirectPing {
  uint32_t seq_no = 0;
  Bytes target;
  uint16_t port = 0;
  std::string node;
  bool nack = false;
  Bytes source_addr;
  uint16_t source_port = 0;
  std::string source_node;
  friend bool operator==(const IndirectPing&, const IndirectPing&) = default;
};

/// Ack answers a Ping with the same sequence number.
struct Ack {
  uint32_t seq_no = 0;
  Bytes payload;
  friend bool operator==(const Ack&, const Ack&) = default;
};

/// Nack tells an indirect-ping requester that the relay heard nothing in time.
struct Nack {
  uint32_t seq_no = 0;
  friend bool operator==(const Nack&, const Nack&) = default;
};

/// Suspect accuses `node` (at `incarnation`) of being dead; `from` is the accuser.
struct Suspect {
  uint32_t incarnation = 0;
  std::string node;
  std::string from;
  friend bool operator==(const Suspect&, const Suspect&) = default;
};

/// Alive announces or refreshes a node. `vsn` is pmin, pmax, pcur, dmin, dmax, dcur.
struct Alive {
  uint32_t incarnation = 0;
  std::string node;
  Bytes addr;
  uint16_t port = 0;
  Bytes meta;
  Bytes vsn;
  friend bool operator==(const Alive&, const Alive&) = default;
};

/// Dead declares `node` dead; `from == node` means it left gracefully.
struct Dead {
  uint32_t incarnation = 0;
  std::string node;
  std::string from;
  friend bool operator==(const Dead&, const Dead&) = default;
};

/// Message is every message a UDP packet can carry that Ingot acts on.
using Message = std::variant<Ping, IndirectPing, Ack, Nack, Suspect, Alive, Dead>;

/// NodeState is memberlist's NodeStateType.
enum class NodeState : uint8_t { Alive = 0, Suspect = 1, Dead = 2, Left = 3 };

/// PushPullHeader opens a push/pull exchange: how many states follow, user state size.
struct PushPullHeader {
  int64_t nodes = 0;
  int64_t user_state_len = 0;
  bool join = false;
};

/// PushNodeState is one member in a push/pull exchange.
struct PushNodeState {
  std::string name;
  Bytes addr;
  uint16_t port = 0;
  Bytes meta;
  uint32_t incarnation = 0;
  NodeState state = NodeState::Alive;
  Bytes vsn;
  friend bool operator==(const PushNodeState&, const PushNodeState&) = default;
};

/// encodeMessage returns the type byte followed by the msgpack body, as Go's encode() does.
Bytes encodeMessage(const Message& m);

/// decodeBody decodes the msgpack body of a message of type `t` (the type byte already
/// removed). Returns Invalid for types outside Message or bodies that break a limit.
msgpack::Status decodeBody(MessageType t, std::span<const uint8_t> body, Message& out);

/// encodePushPull returns the push/pull stream body: type byte, header, then each state.
Bytes encodePushPull(const std::vector<PushNodeState>& states, bool join);

/// decodePushPullHeader and decodePushNodeState read one value from a stream reader;
/// Incomplete means more bytes are needed.
msgpack::Status decodePushPullHeader(msgpack::Reader& r, PushPullHeader& out);
msgpack::Status decodePushNodeState(msgpack::Reader& r, PushNodeState& out);

/// decodePing and decodeAck read a TCP ping and its answer from a stream reader.
msgpack::Status decodePing(msgpack::Reader& r, Ping& out);
msgpack::Status decodeAck(msgpack::Reader& r, Ack& out);

/// Compressed is memberlist's compress wrapper: Algo 0 (LZW) over a whole message.
struct Compressed {
  uint8_t algo = 0;
  Bytes buf;
};

/// encodeCompressed and decodeCompressed handle the compress message body; the reader's raw
/// limit bounds `buf`.
Bytes encodeCompressed(const Compressed& c);
msgpack::Status decodeCompressed(msgpack::Reader& r, Compressed& out);

/// decodeErrResp reads the text of an errResp (a remote push/pull refusal).
msgpack::Status decodeErrResp(msgpack::Reader& r, std::string& out);

/// makeCompound packs up to 255 messages of ≤ 65535 bytes each into one compound message.
Bytes makeCompound(const std::vector<Bytes>& parts);

/// splitCompound splits a compound body (after the type byte). Returns false when the
/// length table is truncated; `truncated` counts parts whose bytes are missing.
bool splitCompound(std::span<const uint8_t> body,
                   std::vector<std::span<const uint8_t>>& parts,
                   size_t& truncated);

}  // namespace ingot::agent::memberlist
