// SPDX-License-Identifier: Apache-2.0
#include "agent/memberlist/core/messages.h"

#include <functional>
#include <limits>
#include <type_traits>

namespace ingot::agent::memberlist {

using msgpack::Kind;
using msgpack::Reader;
using msgpack::Status;
using msgpack::Value;
using msgpack::Writer;

namespace {

// Field writers: memberlist encodes structs as maps keyed by Go field names. Go's codec
// writes the keys in sorted order and a nil slice as nil; doing the same makes Ingot's bytes
// identical to Go's for the same values.
struct MapWriter {
  Writer w;
  void u(std::string_view k, uint64_t v) { w.str(k), w.uint(v); }
  void s(std::string_view k, std::string_view v) { w.str(k), w.str(v); }
  void b(std::string_view k, const Bytes& v) {
    w.str(k);
    if (v.empty()) {
      w.nil();
    } else {
      w.raw(v);
    }
  }
  void flag(std::string_view k, bool v) { w.str(k), w.boolean(v); }
};

// writeSource writes the omitempty reply-to fields of Ping and IndirectPing, in key order.
template <typename T>
void writeSource(const T& m, MapWriter& mw) {
  if (!m.source_addr.empty()) {
    mw.b("SourceAddr", m.source_addr);
  }
  if (!m.source_node.empty()) {
    mw.s("SourceNode", m.source_node);
  }
  if (m.source_port != 0) {
    mw.u("SourcePort", m.source_port);
  }
}

template <typename T>
size_t sourceFields(const T& m) {
  return (m.source_addr.empty() ? 0 : 1) + (m.source_node.empty() ? 0 : 1) +
         (m.source_port == 0 ? 0 : 1);
}

void encodeBody(const Ping& m, MapWriter& mw) {
  mw.w.mapHeader(2 + sourceFields(m));
  mw.s("Node", m.node);
  mw.u("SeqNo", m.seq_no);
  writeSource(m, mw);
}

void encodeBody(const IndirectPing& m, MapWriter& mw) {
  mw.w.mapHeader(5 + sourceFields(m));
  mw.flag("Nack", m.nack);
  mw.s("Node", m.node);
  mw.u("Port", m.port);
  mw.u("SeqNo", m.seq_no);
  writeSource(m, mw);
  mw.b("Target", m.target);
}

void encodeBody(const Ack& m, MapWriter& mw) {
  mw.w.mapHeader(2);
  mw.b("Payload", m.payload);
  mw.u("SeqNo", m.seq_no);
}

void encodeBody(const Nack& m, MapWriter& mw) {
  mw.w.mapHeader(1);
  mw.u("SeqNo", m.seq_no);
}

template <typename Accusation>
void encodeAccusation(const Accusation& m, MapWriter& mw) {
  mw.w.mapHeader(3);
  mw.s("From", m.from);
  mw.u("Incarnation", m.incarnation);
  mw.s("Node", m.node);
}

void encodeBody(const Suspect& m, MapWriter& mw) {
  encodeAccusation(m, mw);
}
void encodeBody(const Dead& m, MapWriter& mw) {
  encodeAccusation(m, mw);
}

void encodeBody(const Alive& m, MapWriter& mw) {
  mw.w.mapHeader(6);
  mw.b("Addr", m.addr);
  mw.u("Incarnation", m.incarnation);
  mw.b("Meta", m.meta);
  mw.s("Node", m.node);
  mw.u("Port", m.port);
  mw.b("Vsn", m.vsn);
}

constexpr MessageType typeOf(const Message& m) {
  constexpr MessageType kTypes[] = {
      MessageType::Ping,    MessageType::IndirectPing, MessageType::Ack, MessageType::Nack,
      MessageType::Suspect, MessageType::Alive,        MessageType::Dead};
  return kTypes[m.index()];
}

// Field readers: each checks the kind and the limit, and accepts nil for empty (Go encodes a
// nil slice as msgpack nil).
template <typename T>
Status setUint(const Value& v, T& out) {
  uint64_t x = 0;
  if (!v.asUint(x) || x > std::numeric_limits<T>::max()) {
    return Status::Invalid;
  }
  out = static_cast<T>(x);
  return Status::Ok;
}

Status setStr(const Value& v, std::string& out, size_t limit) {
  if (v.kind == Kind::Nil) {
    out.clear();
    return Status::Ok;
  }
  if (v.kind != Kind::Raw || v.raw.size() > limit) {
    return Status::Invalid;
  }
  v.asString(out);
  return Status::Ok;
}

Status setBytes(const Value& v, Bytes& out, size_t limit) {
  if (v.kind == Kind::Nil) {
    out.clear();
    return Status::Ok;
  }
  if (v.kind != Kind::Raw || v.raw.size() > limit) {
    return Status::Invalid;
  }
  out.assign(v.raw.begin(), v.raw.end());
  return Status::Ok;
}

Status setBool(const Value& v, bool& out) {
  if (v.kind != Kind::Bool) {
    return Status::Invalid;
  }
  out = v.b;
  return Status::Ok;
}

constexpr size_t kMaxAddr = 16;
constexpr size_t kMaxVsn = 16;
constexpr size_t kMaxPayload = 1024;

// Unknown keys are skipped, as Go's decoder does, so a newer peer's extra fields pass.
Status skipUnknown(const Value& v, Reader& r) {
  return msgpack::skipContainerBody(r, v);
}

// A Field binds a Go field name to a setter; readFields applies a table of them to a map.
using Setter = std::function<Status(const Value&)>;
using Field = std::pair<std::string_view, Setter>;

Status readFields(Reader& r, std::initializer_list<Field> fields) {
  return msgpack::readMap(r, [&](std::string_view k, const Value& v, Reader& rd) {
    for (const Field& f : fields) {
      if (f.first == k) {
        return f.second(v);
      }
    }
    return skipUnknown(v, rd);
  });
}

template <typename T>
Setter num(T& out) {
  return [&out](const Value& v) { return setUint(v, out); };
}
Setter str(std::string& out, size_t limit = kMaxNameLength) {
  return [&out, limit](const Value& v) { return setStr(v, out, limit); };
}
Setter bytes(Bytes& out, size_t limit) {
  return [&out, limit](const Value& v) { return setBytes(v, out, limit); };
}
Setter flag(bool& out) {
  return [&out](const Value& v) { return setBool(v, out); };
}

Status decodeInto(Reader& r, Ping& m) {
  return readFields(r, {{"SeqNo", num(m.seq_no)},
                        {"Node", str(m.node)},
                        {"SourceAddr", bytes(m.source_addr, kMaxAddr)},
                        {"SourcePort", num(m.source_port)},
                        {"SourceNode", str(m.source_node)}});
}

Status decodeInto(Reader& r, IndirectPing& m) {
  return readFields(r, {{"SeqNo", num(m.seq_no)},
                        {"Target", bytes(m.target, kMaxAddr)},
                        {"Port", num(m.port)},
                        {"Node", str(m.node)},
                        {"Nack", flag(m.nack)},
                        {"SourceAddr", bytes(m.source_addr, kMaxAddr)},
                        {"SourcePort", num(m.source_port)},
                        {"SourceNode", str(m.source_node)}});
}

Status decodeInto(Reader& r, Ack& m) {
  return readFields(r, {{"SeqNo", num(m.seq_no)}, {"Payload", bytes(m.payload, kMaxPayload)}});
}

Status decodeInto(Reader& r, Nack& m) {
  return readFields(r, {{"SeqNo", num(m.seq_no)}});
}

template <typename Accusation>
Status decodeAccusation(Reader& r, Accusation& m) {
  return readFields(
      r, {{"Incarnation", num(m.incarnation)}, {"Node", str(m.node)}, {"From", str(m.from)}});
}

Status decodeInto(Reader& r, Suspect& m) {
  return decodeAccusation(r, m);
}
Status decodeInto(Reader& r, Dead& m) {
  return decodeAccusation(r, m);
}

Status decodeInto(Reader& r, Alive& m) {
  return readFields(r, {{"Incarnation", num(m.incarnation)},
                        {"Node", str(m.node)},
                        {"Addr", bytes(m.addr, kMaxAddr)},
                        {"Port", num(m.port)},
                        {"Meta", bytes(m.meta, kMaxMetaLength)},
                        {"Vsn", bytes(m.vsn, kMaxVsn)}});
}

template <typename T>
Status decodeAs(std::span<const uint8_t> body, Message& out) {
  Reader r(body);
  T m;
  Status s = decodeInto(r, m);
  // A UDP message is complete by construction: running out of bytes is corruption.
  if (s != Status::Ok) {
    return Status::Invalid;
  }
  out = std::move(m);
  return Status::Ok;
}

}  // namespace

Bytes encodeMessage(const Message& m) {
  Bytes out;
  out.push_back(static_cast<uint8_t>(typeOf(m)));
  MapWriter mw{Writer(out)};
  std::visit([&](const auto& body) { encodeBody(body, mw); }, m);
  return out;
}

Status decodeBody(MessageType t, std::span<const uint8_t> body, Message& out) {
  switch (t) {
    case MessageType::Ping:
      return decodeAs<Ping>(body, out);
    case MessageType::IndirectPing:
      return decodeAs<IndirectPing>(body, out);
    case MessageType::Ack:
      return decodeAs<Ack>(body, out);
    case MessageType::Nack:
      return decodeAs<Nack>(body, out);
    case MessageType::Suspect:
      return decodeAs<Suspect>(body, out);
    case MessageType::Alive:
      return decodeAs<Alive>(body, out);
    case MessageType::Dead:
      return decodeAs<Dead>(body, out);
    default:
      return Status::Invalid;
  }
}

Bytes encodePushPull(const std::vector<PushNodeState>& states, bool join) {
  Bytes out;
  out.push_back(static_cast<uint8_t>(MessageType::PushPull));
  MapWriter mw{Writer(out)};
  mw.w.mapHeader(3);
  mw.flag("Join", join);
  mw.u("Nodes", states.size());
  mw.u("UserStateLen", 0);
  for (const PushNodeState& n : states) {
    mw.w.mapHeader(7);
    mw.b("Addr", n.addr);
    mw.u("Incarnation", n.incarnation);
    mw.b("Meta", n.meta);
    mw.s("Name", n.name);
    mw.u("Port", n.port);
    mw.u("State", static_cast<uint8_t>(n.state));
    mw.b("Vsn", n.vsn);
  }
  return out;
}

namespace {

Status readPushNodeFields(Reader& r, PushNodeState& out) {
  uint8_t st = 0;
  const Status s = readFields(r, {{"Name", str(out.name)},
                                  {"Addr", bytes(out.addr, kMaxAddr)},
                                  {"Port", num(out.port)},
                                  {"Meta", bytes(out.meta, kMaxMetaLength)},
                                  {"Incarnation", num(out.incarnation)},
                                  {"State", num(st)},
                                  {"Vsn", bytes(out.vsn, kMaxVsn)}});
  if (s != Status::Ok || st > static_cast<uint8_t>(NodeState::Left)) {
    return s == Status::Ok ? Status::Invalid : s;
  }
  out.state = static_cast<NodeState>(st);
  return Status::Ok;
}

}  // namespace

Status decodePushPullHeader(Reader& r, PushPullHeader& out) {
  return msgpack::readMap(r, [&](std::string_view k, const Value& v, Reader& rd) {
    uint64_t x = 0;
    if (k == "Nodes" || k == "UserStateLen") {
      if (!v.asUint(x) || x > (k == "Nodes" ? kMaxPushPullNodes : size_t{1} << 20)) {
        return Status::Invalid;
      }
      (k == "Nodes" ? out.nodes : out.user_state_len) = static_cast<int64_t>(x);
      return Status::Ok;
    }
    if (k == "Join") {
      return setBool(v, out.join);
    }
    return skipUnknown(v, rd);
  });
}

Status decodePushNodeState(Reader& r, PushNodeState& out) {
  const Status s = readPushNodeFields(r, out);
  // A state without a name cannot be merged: treat it as corruption.
  return s == Status::Ok && out.name.empty() ? Status::Invalid : s;
}

Status decodePing(Reader& r, Ping& out) {
  return decodeInto(r, out);
}

Status decodeAck(Reader& r, Ack& out) {
  return decodeInto(r, out);
}

Bytes encodeCompressed(const Compressed& c) {
  Bytes out;
  out.push_back(static_cast<uint8_t>(MessageType::Compress));
  MapWriter mw{Writer(out)};
  mw.w.mapHeader(2);
  mw.u("Algo", c.algo);
  mw.b("Buf", c.buf);
  return out;
}

Status decodeCompressed(Reader& r, Compressed& out) {
  return readFields(r, {{"Algo", num(out.algo)}, {"Buf", bytes(out.buf, SIZE_MAX)}});
}

Status decodeErrResp(Reader& r, std::string& out) {
  return readFields(r, {{"Error", str(out, 4096)}});
}

Bytes makeCompound(const std::vector<Bytes>& parts) {
  Bytes out;
  out.push_back(static_cast<uint8_t>(MessageType::Compound));
  out.push_back(static_cast<uint8_t>(parts.size()));
  for (const Bytes& p : parts) {
    out.push_back(static_cast<uint8_t>(p.size() >> 8));
    out.push_back(static_cast<uint8_t>(p.size()));
  }
  for (const Bytes& p : parts) {
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

bool splitCompound(std::span<const uint8_t> body,
                   std::vector<std::span<const uint8_t>>& parts,
                   size_t& truncated) {
  truncated = 0;
  if (body.empty()) {
    return false;
  }
  const size_t count = body[0];
  if (body.size() < 1 + count * 2) {
    return false;
  }
  size_t pos = 1 + count * 2;
  for (size_t idx = 0; idx < count; ++idx) {
    const size_t len = (size_t{body[1 + idx * 2]} << 8) | body[2 + idx * 2];
    if (body.size() - pos < len) {
      truncated = count - idx;
      return true;
    }
    parts.push_back(body.subspan(pos, len));
    pos += len;
  }
  return true;
}

}  // namespace ingot::agent::memberlist
