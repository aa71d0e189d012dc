// SPDX-License-Identifier: Apache-2.0
#include "api/codec_internal.h"

namespace ingot::api::codec {

void readTypeMeta(ObjectReader& r, std::string_view api_version, std::string_view kind) {
  std::string got_version;
  std::string got_kind;
  const Field version_field = r["apiVersion"];
  const Field kind_field = r["kind"];
  if (version_field.read(got_version) && !got_version.empty() && got_version != api_version) {
    version_field.fail("expected \"" + std::string(api_version) + "\", got \"" + got_version +
                       "\"");
  }
  if (kind_field.read(got_kind) && !got_kind.empty() && got_kind != kind) {
    kind_field.fail("expected \"" + std::string(kind) + "\", got \"" + got_kind + "\"");
  }
}

Value startObject(std::string_view api_version, std::string_view kind) {
  Value v = Value::object();
  v.set("apiVersion", Value::string(std::string(api_version)));
  v.set("kind", Value::string(std::string(kind)));
  return v;
}

void decodeMeta(const Field& f, ObjectMeta& out, Unknown unknown) {
  decodeObject(f, out, unknown);
}

Value encodeMeta(const ObjectMeta& m) {
  return encodeObject(m);
}

void decodeConditions(const Field& f, std::vector<Condition>& out) {
  decodeMember(f, out, Unknown::Reject);
}

Value encodeConditions(const std::vector<Condition>& list) {
  Value a = Value::array();
  for (const auto& c : list) {
    a.push(encodeObject(c));
  }
  return a;
}

void putString(Value& o, std::string key, const std::string& s) {
  if (!s.empty()) {
    o.set(std::move(key), Value::string(s));
  }
}

void putStringAlways(Value& o, std::string key, const std::string& s) {
  o.set(std::move(key), Value::string(s));
}

void putBool(Value& o, std::string key, bool b) {
  if (b) {
    o.set(std::move(key), Value::boolean(true));
  }
}

void putInt(Value& o, std::string key, int64_t n) {
  if (n != 0) {
    putIntAlways(o, std::move(key), n);
  }
}

void putIntAlways(Value& o, std::string key, int64_t n) {
  o.set(std::move(key), Value::number(n));
}

void putStrings(Value& o, std::string key, const std::vector<std::string>& list) {
  if (list.empty()) {
    return;
  }
  Value& a = o.set(std::move(key), Value::array());
  for (const auto& s : list) {
    a.push(Value::string(s));
  }
}

void putMap(Value& o, std::string key, const StringMap& map) {
  if (map.empty()) {
    return;
  }
  Value& m = o.set(std::move(key), Value::object());
  for (const auto& [k, v] : map) {
    m.set(k, Value::string(v));
  }
}

void putObject(Value& o, std::string key, Value v) {
  if (v.size() > 0) {
    o.set(std::move(key), std::move(v));
  }
}

}  // namespace ingot::api::codec
