// SPDX-License-Identifier: Apache-2.0
// The generic codec of described types (api/describe.h): one decoder and one encoder that walk a
// struct's fields() table. Decoding reads each key through common/json/decode.h (so errors carry
// the same "spec.peers[2].name: reason" paths as a hand-written reader) in table order; encoding
// writes the keys in table order and applies each field's Emit rule. Not a public API.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "api/describe.h"
#include "api/duration.h"
#include "api/object.h"
#include "common/json/decode.h"
#include "common/json/value.h"

namespace ingot::api::codec {

namespace fields_detail {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

/// OptionalOf / VectorOf: std::optional<X> / std::vector<X> of a described X.
template <typename T>
concept OptionalOfDescribed = IsOptional<T>::value && Described<typename T::value_type>;
template <typename T>
concept VectorOfDescribed = IsVector<T>::value && Described<typename T::value_type>;

}  // namespace fields_detail

template <Described T>
void decodeFields(json::ObjectReader& r, T& out, json::Unknown unknown);
template <Described T>
void decodeObject(const json::Field& f, T& out, json::Unknown unknown);
template <Described T>
json::Value encodeObject(const T& in);

/// decodeMember reads one value of any member type at f.
template <typename M>
void decodeMember(const json::Field& f, M& out, json::Unknown unknown) {
  if constexpr (std::is_same_v<M, std::optional<Duration>>) {
    std::string text;
    if (!f.present() || !f.read(text)) {
      return;
    }
    auto d = parseDuration(text);
    if (!d) {
      f.fail(d.error().message);
      return;
    }
    out = std::move(*d);
  } else if constexpr (fields_detail::OptionalOfDescribed<M>) {
    if (!f.present()) {
      return;
    }
    typename M::value_type value{};
    json::ObjectReader r(f, unknown);
    decodeFields(r, value, unknown);
    if (r.isObject()) {
      out = std::move(value);
    }
  } else if constexpr (Described<M>) {
    decodeObject(f, out, unknown);
  } else if constexpr (fields_detail::VectorOfDescribed<M>) {
    M result;
    f.forEach([&](const json::Field& item) {
      typename M::value_type element{};
      decodeObject(item, element, unknown);
      result.push_back(std::move(element));
    });
    out = std::move(result);
  } else {
    (void)f.read(out);
  }
}

template <typename T, typename C, typename M>
void decodeDesc(json::ObjectReader& r, T& out, const FieldDesc<C, M>& d, json::Unknown unknown) {
  decodeMember(r[d.key], out.*(d.member), unknown);
}

template <typename T, typename C>
void decodeDesc(json::ObjectReader& r, T& out, const WrappedDesc<C>& d, json::Unknown unknown) {
  std::vector<std::string> result;
  r[d.key].forEach([&](const json::Field& item) {
    std::string value;
    json::ObjectReader ir(item, unknown);
    (void)ir[d.inner_key].read(value);
    result.push_back(std::move(value));
  });
  out.*(d.member) = std::move(result);
}

template <typename T, typename... F>
void decodeDesc(json::ObjectReader& r, T& out, const GroupDesc<F...>& d, json::Unknown unknown) {
  json::ObjectReader g(r[d.key], unknown);
  std::apply([&](const auto&... inner) { (decodeDesc(g, out, inner, unknown), ...); }, d.fields);
}

template <typename T>
void decodeDesc(json::ObjectReader& r,
                T& /*out*/,
                const IgnoredDesc& d,
                json::Unknown /*unknown*/) {
  (void)r[d.key];
}

/// decodeFields reads every field of T's table from r into out, in table order.
template <Described T>
void decodeFields(json::ObjectReader& r, T& out, json::Unknown unknown) {
  std::apply([&](const auto&... d) { (decodeDesc(r, out, d, unknown), ...); }, T::fields());
}

template <Described T>
void decodeObject(const json::Field& f, T& out, json::Unknown unknown) {
  json::ObjectReader r(f, unknown);
  decodeFields(r, out, unknown);
}

/// putMember writes v at key unless emit is OmitEmpty and v is empty.
template <typename M>
void putMember(json::Value& o, std::string_view key, const M& v, Emit emit) {
  const bool always = emit == Emit::Always;
  if constexpr (std::is_same_v<M, std::optional<Duration>>) {
    if (v) {
      o.set(std::string(key), json::Value::string(durationText(*v)));
    }
  } else if constexpr (fields_detail::IsOptional<M>::value) {
    if (v) {
      putMember(o, key, *v, Emit::Always);
    }
  } else if constexpr (std::is_same_v<M, std::string>) {
    if (always || !v.empty()) {
      o.set(std::string(key), json::Value::string(v));
    }
  } else if constexpr (std::is_same_v<M, bool>) {
    if (always || v) {
      o.set(std::string(key), json::Value::boolean(v));
    }
  } else if constexpr (std::is_integral_v<M>) {
    if (always || v != 0) {
      o.set(std::string(key), json::Value::number(static_cast<int64_t>(v)));
    }
  } else if constexpr (std::is_same_v<M, std::map<std::string, std::string>>) {
    if (always || !v.empty()) {
      json::Value& m = o.set(std::string(key), json::Value::object());
      for (const auto& [k, s] : v) {
        m.set(k, json::Value::string(s));
      }
    }
  } else if constexpr (fields_detail::IsVector<M>::value) {
    if (always || !v.empty()) {
      json::Value& a = o.set(std::string(key), json::Value::array());
      for (const auto& item : v) {
        if constexpr (fields_detail::VectorOfDescribed<M>) {
          a.push(encodeObject(item));
        } else {
          a.push(json::Value::string(item));
        }
      }
    }
  } else {
    static_assert(Described<M>, "no encoding for this member type");
    json::Value inner = encodeObject(v);
    if (always || inner.size() > 0) {
      o.set(std::string(key), std::move(inner));
    }
  }
}

template <typename T, typename C, typename M>
void encodeDesc(json::Value& o, const T& in, const FieldDesc<C, M>& d) {
  putMember(o, d.key, in.*(d.member), d.emit);
}

template <typename T, typename C>
void encodeDesc(json::Value& o, const T& in, const WrappedDesc<C>& d) {
  const auto& list = in.*(d.member);
  if (list.empty()) {
    return;
  }
  json::Value& a = o.set(std::string(d.key), json::Value::array());
  for (const auto& s : list) {
    json::Value e = json::Value::object();
    putMember(e, d.inner_key, s, d.inner_emit);
    a.push(std::move(e));
  }
}

template <typename T, typename... F>
void encodeDesc(json::Value& o, const T& in, const GroupDesc<F...>& d) {
  json::Value g = json::Value::object();
  std::apply([&](const auto&... inner) { (encodeDesc(g, in, inner), ...); }, d.fields);
  if (d.emit == Emit::Always || g.size() > 0) {
    o.set(std::string(d.key), std::move(g));
  }
}

template <typename T>
void encodeDesc(json::Value& /*o*/, const T& /*in*/, const IgnoredDesc& /*d*/) {}

/// encodeFields appends every field of T's table to o, in table order.
template <Described T>
void encodeFields(json::Value& o, const T& in) {
  std::apply([&](const auto&... d) { (encodeDesc(o, in, d), ...); }, T::fields());
}

template <Described T>
json::Value encodeObject(const T& in) {
  json::Value o = json::Value::object();
  encodeFields(o, in);
  return o;
}

/// readTypeMeta consumes apiVersion and kind, reporting a mismatch with the expected identity.
void readTypeMeta(json::ObjectReader& r, std::string_view api_version, std::string_view kind);
/// startObject returns an object Value holding apiVersion and kind.
json::Value startObject(std::string_view api_version, std::string_view kind);

/// decodeDescribedKind decodes a whole object of kind T: apiVersion and kind, then T's table.
/// Unknown fields are errors in the metallb.io and frrk8s.metallb.io groups (api/object.h).
template <Described T>
void decodeDescribedKind(const json::Field& f, T& out) {
  const json::Unknown unknown =
      isStrictGroup(KindOf<T>::kApiVersion) ? json::Unknown::Reject : json::Unknown::Ignore;
  json::ObjectReader r(f, unknown);
  readTypeMeta(r, KindOf<T>::kApiVersion, KindOf<T>::kKind);
  decodeFields(r, out, unknown);
}

template <Described T>
json::Value encodeDescribedKind(const T& in) {
  json::Value o = startObject(KindOf<T>::kApiVersion, KindOf<T>::kKind);
  encodeFields(o, in);
  return o;
}

}  // namespace ingot::api::codec
