// SPDX-License-Identifier: Apache-2.0
// Building blocks of the hand-written core-kind codec (codec_core.cpp): metadata and conditions
// (through the generic codec of codec_fields.h) and small "put unless empty" helpers. Not a public
// API.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/codec_fields.h"
#include "api/frrk8s.h"
#include "api/object.h"
#include "api/types.h"
#include "common/json/decode.h"
#include "common/json/value.h"

namespace ingot::api::codec {

using json::Field;
using json::ObjectReader;
using json::Unknown;
using json::Value;

void decodeMeta(const Field& f, ObjectMeta& out, Unknown unknown);
Value encodeMeta(const ObjectMeta& m);

/// readHeader consumes T's apiVersion and kind and decodes its metadata (unknown metadata fields
/// rejected or ignored as `unknown` says).
template <typename T>
void readHeader(ObjectReader& r, T& out, Unknown unknown) {
  readTypeMeta(r, KindOf<T>::kApiVersion, KindOf<T>::kKind);
  decodeMeta(r["metadata"], out.metadata, unknown);
}

/// header starts T's object: apiVersion, kind and metadata.
template <typename T>
Value header(const T& in) {
  Value o = startObject(KindOf<T>::kApiVersion, KindOf<T>::kKind);
  o.set("metadata", encodeMeta(in.metadata));
  return o;
}

void decodeConditions(const Field& f, std::vector<Condition>& out);
Value encodeConditions(const std::vector<Condition>& list);

/// arrayOf decodes each element of an array field with fn(Field, T&).
template <typename T, typename Fn>
void arrayOf(const Field& f, std::vector<T>& out, Fn fn) {
  std::vector<T> result;
  f.forEach([&](const Field& item) {
    T element{};
    fn(item, element);
    result.push_back(std::move(element));
  });
  out = std::move(result);
}

// put* append a member unless the value is "empty" (omitempty); putAlways* always append.
void putString(Value& o, std::string key, const std::string& s);
void putStringAlways(Value& o, std::string key, const std::string& s);
void putBool(Value& o, std::string key, bool b);
void putInt(Value& o, std::string key, int64_t n);  ///< omitted when 0
void putIntAlways(Value& o, std::string key, int64_t n);
void putStrings(Value& o, std::string key, const std::vector<std::string>& list);
void putMap(Value& o, std::string key, const StringMap& map);
void putObject(Value& o, std::string key, Value v);  ///< omitted when v has no members
template <typename T>
void putOptionalInt(Value& o, std::string key, const std::optional<T>& n) {
  if (n) {
    putIntAlways(o, std::move(key), static_cast<int64_t>(*n));
  }
}
inline void putOptionalBool(Value& o, std::string key, const std::optional<bool>& b) {
  if (b) {
    o.set(std::move(key), Value::boolean(*b));
  }
}

// Hand-written decoders and encoders of the core kinds (codec_core.cpp), whose wire shape Ingot
// flattens (Node's status.conditions is Node::conditions); described kinds use codec_fields.h.
void decodeKind(const Field& f, Service& out);
void decodeKind(const Field& f, EndpointSlice& out);
void decodeKind(const Field& f, Node& out);
void decodeKind(const Field& f, Namespace& out);
void decodeKind(const Field& f, Secret& out);
void decodeKind(const Field& f, Pod& out);

Value encodeKind(const Service& in);
Value encodeKind(const EndpointSlice& in);
Value encodeKind(const Node& in);
Value encodeKind(const Namespace& in);
Value encodeKind(const Secret& in);
Value encodeKind(const Pod& in);

}  // namespace ingot::api::codec
