// SPDX-License-Identifier: Apache-2.0
// The one declaration of an API type's wire shape. A struct lists its members once and, next to
// them, a static constexpr fields() table that gives each member its JSON key and its omission
// rule (what Go's `json:"key,omitempty"` tag says in MetalLB). The generic codec
// (api/codec_fields.h) decodes and encodes every described type from that table, and api/convert.h
// copies the members two versions share by key. Equality stays `= default`: the compiler derives it
// from the same member list. Header-only and free of any JSON dependency, so the pure libraries may
// include it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ingot::api {

/// Emit says when the encoder writes a member.
enum class Emit {
  OmitEmpty,  ///< omitempty: skip "", 0, false, empty lists/maps, unset optionals, {} objects
  Always,     ///< always written (no omitempty tag)
};

/// FieldDesc is one member at one JSON key.
template <typename Class, typename Member>
struct FieldDesc {
  std::string_view key;
  Member Class::*member;
  Emit emit;
};

/// field describes `member` at JSON `key`.
template <typename Class, typename Member>
constexpr FieldDesc<Class, Member> field(std::string_view key,
                                         Member Class::*member,
                                         Emit emit = Emit::OmitEmpty) {
  return {key, member, emit};
}

/// WrappedDesc is a list of strings written as a list of one-member objects, e.g. ServiceL2Status'
/// interfaces [{name: eth0}]: inner_key names the member, inner_emit its omission rule.
template <typename Class>
struct WrappedDesc {
  std::string_view key;
  std::vector<std::string> Class::*member;
  std::string_view inner_key;
  Emit inner_emit;
};

template <typename Class>
constexpr WrappedDesc<Class> wrapped(std::string_view key,
                                     std::vector<std::string> Class::*member,
                                     std::string_view inner_key,
                                     Emit inner_emit) {
  return {key, member, inner_key, inner_emit};
}

/// GroupDesc is a JSON object that has no C++ struct of its own: its members live in the
/// enclosing struct (FRRConfiguration's spec.bgp, Community's spec, a kind's empty status).
template <typename... Fields>
struct GroupDesc {
  std::string_view key;
  Emit emit;
  std::tuple<Fields...> fields;
};

template <typename... Fields>
constexpr GroupDesc<Fields...> group(std::string_view key, Emit emit, Fields... fields) {
  return {key, emit, std::tuple<Fields...>(fields...)};
}

/// IgnoredDesc is a key the decoder accepts and drops (a real field Ingot does not model).
struct IgnoredDesc {
  std::string_view key;
};

constexpr IgnoredDesc ignored(std::string_view key) {
  return {key};
}

/// Described<T> holds for a struct with a fields() table.
template <typename T>
concept Described = requires {
  T::fields();
};

namespace describe_detail {

inline constexpr size_t kNone = static_cast<size_t>(-1);

template <typename D>
struct IsField : std::false_type {};
template <typename C, typename M>
struct IsField<FieldDesc<C, M>> : std::true_type {};

/// indexOfField returns the position in T::fields() of the plain field at key, or kNone.
template <Described T>
constexpr size_t indexOfField(std::string_view key) {
  constexpr auto kFields = T::fields();
  size_t found = kNone;
  size_t i = 0;
  std::apply(
      [&](const auto&... d) {
        (((IsField<std::decay_t<decltype(d)>>::value && d.key == key && found == kNone)
              ? (found = i, ++i)
              : ++i),
         ...);
      },
      kFields);
  return found;
}

}  // namespace describe_detail

/// copyShared copies every member of `from` whose JSON key is also a plain field of To, recursing
/// into described members of different types (BGPPeer's spec across versions). Members only one
/// side has are left as they are in `to`.
template <Described To, Described From>
void copyShared(const From& from, To& to);

namespace describe_detail {

template <typename ToMember, typename FromMember>
void copyMember(const FromMember& from, ToMember& to) {
  if constexpr (std::is_same_v<ToMember, FromMember>) {
    to = from;
  } else {
    static_assert(Described<ToMember> && Described<FromMember>,
                  "members sharing a key must have one type or both be described");
    copyShared(from, to);
  }
}

template <Described To, Described From, size_t I>
void copyAt(const From& from, To& to) {
  constexpr auto kFrom = std::get<I>(From::fields());
  if constexpr (IsField<std::decay_t<decltype(kFrom)>>::value) {
    constexpr size_t kTo = indexOfField<To>(kFrom.key);
    if constexpr (kTo != kNone) {
      constexpr auto kToField = std::get<kTo>(To::fields());
      copyMember(from.*(kFrom.member), to.*(kToField.member));
    }
  }
}

template <Described To, Described From, size_t... I>
void copyAll(const From& from, To& to, std::index_sequence<I...> /*unused*/) {
  (copyAt<To, From, I>(from, to), ...);
}

}  // namespace describe_detail

template <Described To, Described From>
void copyShared(const From& from, To& to) {
  constexpr size_t kCount = std::tuple_size_v<decltype(From::fields())>;
  describe_detail::copyAll<To, From>(from, to, std::make_index_sequence<kCount>{});
}

}  // namespace ingot::api
