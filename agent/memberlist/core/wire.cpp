// SPDX-License-Identifier: Apache-2.0
#include "agent/memberlist/core/wire.h"

#include <optional>

#include "agent/memberlist/core/lzw.h"

namespace ingot::agent::memberlist {

using msgpack::Reader;
using msgpack::Status;

const char* dropReasonName(DropReason r) {
  switch (r) {
    case DropReason::None:
      return "none";
    case DropReason::Empty:
      return "empty";
    case DropReason::Decrypt:
      return "decrypt";
    case DropReason::Checksum:
      return "checksum";
    case DropReason::Malformed:
      return "malformed";
    case DropReason::Unsupported:
      return "unsupported";
    case DropReason::TooLarge:
      return "too_large";
    case DropReason::UnknownType:
      return "unknown_type";
  }
  return "unknown";
}

namespace {

void noteDrop(DecodedPacket& p, DropReason r) {
  ++p.bad_parts;
  if (p.drop == DropReason::None) {
    p.drop = r;
  }
}

constexpr size_t kMaxDatagram = 65536;

// decompress expands a complete compress body; empty on any failure.
std::optional<Bytes> decompress(std::span<const uint8_t> body, size_t max_output) {
  Reader r(body, max_output);
  Compressed c;
  if (decodeCompressed(r, c) != Status::Ok || c.algo != 0) {
    return std::nullopt;
  }
  auto plain = lzwDecompress(c.buf, max_output);
  if (!plain || plain->empty()) {
    return std::nullopt;
  }
  return std::move(*plain);
}

void handleCommand(std::span<const uint8_t> buf, DecodedPacket& p, int depth) {
  if (buf.empty()) {
    noteDrop(p, DropReason::Empty);
    return;
  }
  const auto type = static_cast<MessageType>(buf[0]);
  const auto body = buf.subspan(1);
  switch (type) {
    case MessageType::Compound: {
      std::vector<std::span<const uint8_t>> parts;
      size_t truncated = 0;
      if (depth > 1 || !splitCompound(body, parts, truncated)) {
        noteDrop(p, DropReason::Malformed);
        return;
      }
      for (size_t idx = 0; idx < truncated; ++idx) {
        noteDrop(p, DropReason::Malformed);
      }
      for (auto part : parts) {
        handleCommand(part, p, depth + 1);
      }
      return;
    }
    case MessageType::Compress: {
      auto plain = depth > 1 ? std::nullopt : decompress(body, kMaxDatagram);
      if (!plain) {
        noteDrop(p, DropReason::Malformed);
        return;
      }
      handleCommand(*plain, p, depth + 1);
      return;
    }
    case MessageType::User:
    case MessageType::HasLabel:
      noteDrop(p, DropReason::Unsupported);
      return;
    default:
      break;
  }
  Message m;
  const Status s = decodeBody(type, body, m);
  if (s == Status::Ok) {
    p.messages.push_back(std::move(m));
  } else {
    noteDrop(p, static_cast<uint8_t>(type) > static_cast<uint8_t>(MessageType::Err)
                    ? DropReason::UnknownType
                    : DropReason::Malformed);
  }
}

uint32_t readBe32(std::span<const uint8_t> b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

void putBe32(Bytes& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<uint8_t>(v >> shift));
  }
}

}  // namespace

DecodedPacket openPacket(std::span<const uint8_t> datagram, const Security& sec) {
  DecodedPacket p;
  if (datagram.empty()) {
    p.drop = DropReason::Empty;
    return p;
  }
  Bytes plain;
  std::span<const uint8_t> buf = datagram;
  if (sec.ring != nullptr) {
    auto opened = decryptPayload(*sec.ring, datagram, {});
    if (opened) {
      plain = std::move(*opened);
      buf = plain;
    } else if (sec.verify_incoming) {
      p.drop = DropReason::Decrypt;
      return p;
    }
  }
  if (buf.size() >= 5 && static_cast<MessageType>(buf[0]) == MessageType::HasCrc) {
    if (crc32Ieee(buf.subspan(5)) != readBe32(buf.subspan(1, 4))) {
      p.drop = DropReason::Checksum;
      return p;
    }
    buf = buf.subspan(5);
  }
  handleCommand(buf, p, 0);
  return p;
}

Result<Bytes> sealPacket(std::span<const uint8_t> plain, bool crc, const Security& sec) {
  Bytes framed;
  if (crc) {
    framed.push_back(static_cast<uint8_t>(MessageType::HasCrc));
    putBe32(framed, crc32Ieee(plain));
  }
  framed.insert(framed.end(), plain.begin(), plain.end());
  if (sec.ring == nullptr) {
    return framed;
  }
  return encryptPayload(sec.ring->primary(), framed, {});
}

namespace {

StreamStatus fail(DropReason& drop, DropReason why) {
  drop = why;
  return StreamStatus::Invalid;
}

StreamStatus fromStatus(Status s, DropReason& drop) {
  if (s == Status::Incomplete) {
    return StreamStatus::Incomplete;
  }
  return s == Status::Ok ? StreamStatus::Complete : fail(drop, DropReason::Malformed);
}

StreamStatus parsePushPull(Reader& r, StreamMessage& out, DropReason& drop) {
  Status s = decodePushPullHeader(r, out.header);
  if (s != Status::Ok) {
    return fromStatus(s, drop);
  }
  out.states.clear();
  for (int64_t idx = 0; idx < out.header.nodes; ++idx) {
    PushNodeState st;
    if ((s = decodePushNodeState(r, st)) != Status::Ok) {
      return fromStatus(s, drop);
    }
    out.states.push_back(std::move(st));
  }
  // User state (a delegate's blob) is read and discarded: Ingot has no delegate.
  if (r.remaining() < static_cast<size_t>(out.header.user_state_len)) {
    return StreamStatus::Incomplete;
  }
  return StreamStatus::Complete;
}

StreamStatus parseCompressed(std::span<const uint8_t> data,
                             size_t max_bytes,
                             StreamMessage& out,
                             DropReason& drop);

StreamStatus parsePlain(std::span<const uint8_t> data,
                        size_t max_bytes,
                        StreamMessage& out,
                        DropReason& drop) {
  if (data.empty()) {
    return StreamStatus::Incomplete;
  }
  if (static_cast<MessageType>(data[0]) == MessageType::Compress) {
    return parseCompressed(data, max_bytes, out, drop);
  }
  out.type = static_cast<MessageType>(data[0]);
  Reader r(data.subspan(1));
  StreamStatus st = StreamStatus::Invalid;
  switch (out.type) {
    case MessageType::PushPull:
      st = parsePushPull(r, out, drop);
      break;
    case MessageType::Err:
      st = fromStatus(decodeErrResp(r, out.error), drop);
      break;
    case MessageType::Ping:
      st = fromStatus(decodePing(r, out.ping), drop);
      break;
    case MessageType::Ack:
      st = fromStatus(decodeAck(r, out.ack), drop);
      break;
    case MessageType::User:
    case MessageType::HasLabel:
      return fail(drop, DropReason::Unsupported);
    default:
      return fail(drop, DropReason::UnknownType);
  }
  out.consumed = 1 + r.offset();
  return st;
}

// parseCompressed waits for the whole compress wrapper, then parses the message inside it,
// which must be complete.
StreamStatus parseCompressed(std::span<const uint8_t> data,
                             size_t max_bytes,
                             StreamMessage& out,
                             DropReason& drop) {
  Reader r(data.subspan(1), max_bytes);
  Compressed c;
  const Status s = decodeCompressed(r, c);
  if (s != Status::Ok) {
    return fromStatus(s, drop);
  }
  const size_t consumed = 1 + r.offset();
  auto plain = c.algo == 0 ? lzwDecompress(c.buf, max_bytes)
                           : Result<Bytes>(invalidArgument("unknown compression"));
  if (!plain || plain->empty() ||
      static_cast<MessageType>(plain->front()) == MessageType::Compress) {
    return fail(drop, DropReason::Malformed);
  }
  const StreamStatus st = parsePlain(*plain, max_bytes, out, drop);
  out.consumed = consumed;
  return st == StreamStatus::Incomplete ? fail(drop, DropReason::Malformed) : st;
}

}  // namespace

StreamStatus parseStream(std::span<const uint8_t> data,
                         const Security& sec,
                         size_t max_bytes,
                         StreamMessage& out,
                         DropReason& drop) {
  if (data.empty()) {
    return StreamStatus::Incomplete;
  }
  const bool encrypted = static_cast<MessageType>(data[0]) == MessageType::Encrypt;
  if (!encrypted) {
    if (sec.ring != nullptr && sec.verify_incoming) {
      return fail(drop, DropReason::Decrypt);
    }
    const StreamStatus st = parsePlain(data, max_bytes, out, drop);
    if (st == StreamStatus::Incomplete && data.size() >= max_bytes) {
      return fail(drop, DropReason::TooLarge);
    }
    return st;
  }
  if (sec.ring == nullptr) {
    return fail(drop, DropReason::Decrypt);
  }
  if (data.size() < 5) {
    return StreamStatus::Incomplete;
  }
  const size_t len = readBe32(data.subspan(1, 4));
  if (len > max_bytes) {
    return fail(drop, DropReason::TooLarge);
  }
  if (data.size() - 5 < len) {
    return StreamStatus::Incomplete;
  }
  auto plain = decryptPayload(*sec.ring, data.subspan(5, len), data.subspan(0, 5));
  if (!plain) {
    return fail(drop, DropReason::Decrypt);
  }
  // The sealed message is complete: anything short inside it is corruption.
  const StreamStatus st = parsePlain(*plain, max_bytes, out, drop);
  out.consumed = 5 + len;
  return st == StreamStatus::Incomplete ? fail(drop, DropReason::Malformed) : st;
}

Result<Bytes> sealStream(std::span<const uint8_t> plain, const Security& sec) {
  if (sec.ring == nullptr) {
    return Bytes(plain.begin(), plain.end());
  }
  Bytes out;
  out.push_back(static_cast<uint8_t>(MessageType::Encrypt));
  putBe32(out, static_cast<uint32_t>(plain.size() + kEncryptOverhead));
  auto sealed = encryptPayload(sec.ring->primary(), plain, out);
  if (!sealed) {
    return sealed.error();
  }
  out.insert(out.end(), sealed->begin(), sealed->end());
  return out;
}

}  // namespace ingot::agent::memberlist
