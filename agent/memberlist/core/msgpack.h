// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ingot::agent::memberlist::msgpack {

/// Writer appends MessagePack values to a byte vector, choosing the encodings hashicorp's Go
/// codec (MsgpackHandle without WriteExt) produces: strings and byte slices both as "raw"
/// (fixstr, str16, str32; never str8 or bin), integers in their shortest form.
class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}
  void mapHeader(size_t entries);
  void arrayHeader(size_t entries);
  void uint(uint64_t v);
  void integer(int64_t v);
  void boolean(bool v);
  void nil();
  void raw(std::span<const uint8_t> bytes);
  void str(std::string_view s);

 private:
  void put(uint8_t b) { out_.push_back(b); }
  void putBig(uint64_t v, int bytes);
  std::vector<uint8_t>& out_;
};

/// Kind is the family of one decoded value.
enum class Kind { Nil, Bool, Uint, Int, Float, Raw, Array, Map, Ext };

/// Value is one decoded scalar or container header. For Raw the bytes point into the input;
/// for Array and Map `count` is the number of elements (map entries) that follow.
struct Value {
  Kind kind = Kind::Nil;
  bool b = false;
  uint64_t u = 0;
  int64_t i = 0;
  std::span<const uint8_t> raw;
  uint32_t count = 0;

  /// asUint returns the value as an unsigned integer; false if negative or not an integer.
  bool asUint(uint64_t& out) const;
  /// asString copies a Raw value; false for any other kind.
  bool asString(std::string& out) const;
};

/// Status is the outcome of one decode step: Incomplete means the input ended inside a value
/// (a stream reader may wait for more bytes); Invalid means the bytes can never decode.
enum class Status { Ok, Incomplete, Invalid };

/// Reader decodes values from a bounded span without allocating; every length is checked
/// against the remaining input before use.
class Reader {
 public:
  /// Reader reads `in`; a string or byte value longer than `max_raw` is Invalid as soon as
  /// its length is read, so a stream never waits for an oversized field to arrive.
  explicit Reader(std::span<const uint8_t> in, size_t max_raw = kDefaultMaxRaw)
      : in_(in), max_raw_(max_raw) {}
  static constexpr size_t kDefaultMaxRaw = 4096;
  /// next decodes one value (a container header for Array/Map).
  Status next(Value& v);
  /// skip decodes and discards one complete value, nested containers included, up to
  /// `max_depth` levels (deeper input is Invalid).
  Status skip(int max_depth = 8);
  size_t offset() const { return pos_; }
  size_t remaining() const { return in_.size() - pos_; }

 private:
  Status take(size_t n, std::span<const uint8_t>& out);
  Status readBig(int bytes, uint64_t& out);
  Status rawOf(size_t len, Value& v);
  Status fixed(uint8_t tag, Value& v);
  std::span<const uint8_t> in_;
  size_t max_raw_;
  size_t pos_ = 0;
};

/// FieldFn receives one map entry: the key and the value header (the reader is positioned
/// after the header, so a container value must be consumed or skipped by the callee). It
/// returns Invalid to reject the entry.
template <typename Fn>
Status readMap(Reader& r, Fn&& field) {
  Value head;
  Status s = r.next(head);
  if (s != Status::Ok) {
    return s;
  }
  if (head.kind != Kind::Map) {
    return Status::Invalid;
  }
  for (uint32_t idx = 0; idx < head.count; ++idx) {
    Value key;
    Value val;
    if ((s = r.next(key)) != Status::Ok) {
      return s;
    }
    if (key.kind != Kind::Raw) {
      return Status::Invalid;
    }
    if ((s = r.next(val)) != Status::Ok) {
      return s;
    }
    std::string_view name(reinterpret_cast<const char*>(key.raw.data()), key.raw.size());
    if ((s = field(name, val, r)) != Status::Ok) {
      return s;
    }
  }
  return Status::Ok;
}

/// skipContainerBody consumes the elements of an Array or Map header just read.
Status skipContainerBody(Reader& r, const Value& head);

}  // namespace ingot::agent::memberlist::msgpack
