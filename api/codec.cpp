// SPDX-License-Identifier: Apache-2.0
#include "api/codec.h"

#include "api/codec_internal.h"
#include "common/json/json.h"

namespace ingot::api {
namespace {

/// kindIndex returns the AnyObject alternative for apiVersion + kind, or -1.
template <size_t I = 0>
int kindIndex(std::string_view api_version, std::string_view kind) {
  if constexpr (I < std::variant_size_v<AnyObject>) {
    using T = std::variant_alternative_t<I, AnyObject>;
    if (KindOf<T>::kApiVersion == api_version && KindOf<T>::kKind == kind) {
      return static_cast<int>(I);
    }
    return kindIndex<I + 1>(api_version, kind);
  } else {
    return -1;
  }
}

template <size_t I = 0>
std::optional<AnyObject> decodeIndex(size_t index, const json::Value& v, json::Decoder& d) {
  if constexpr (I < std::variant_size_v<AnyObject>) {
    if (index == I) {
      using T = std::variant_alternative_t<I, AnyObject>;
      return AnyObject(std::in_place_index<I>, decodeValue<T>(v, d));
    }
    return decodeIndex<I + 1>(index, v, d);
  } else {
    return std::nullopt;
  }
}

std::string stringMember(const json::Value& v, std::string_view key) {
  const json::Value* m = v.isObject() ? v.find(key) : nullptr;
  return m != nullptr && m->isString() ? m->text() : std::string();
}

}  // namespace

template <typename T>
T decodeValue(const json::Value& value, json::Decoder& decoder) {
  T out{};
  const json::Field field(&value, "", decoder);
  if constexpr (Described<T>) {
    codec::decodeDescribedKind(field, out);
  } else {
    codec::decodeKind(field, out);
  }
  if (value.isNull()) {
    decoder.report("", value.line(), "expected object, got null");
  }
  return out;
}

template <typename T>
json::Value toValue(const T& object) {
  if constexpr (Described<T>) {
    return codec::encodeDescribedKind(object);
  } else {
    return codec::encodeKind(object);
  }
}

template <typename T>
Result<T> decodeJson(std::string_view json) {
  auto tree = json::parse(json);
  if (!tree) {
    return tree.error();
  }
  json::Decoder decoder;
  T out = decodeValue<T>(*tree, decoder);
  if (!decoder.ok()) {
    return decoder.toError();
  }
  return out;
}

template <typename T>
std::string encodeJson(const T& object) {
  return json::write(toValue(object));
}

bool isKnownKind(std::string_view api_version, std::string_view kind) {
  return kindIndex(api_version, kind) >= 0;
}

std::optional<AnyObject> decodeAnyValue(const json::Value& value, json::Decoder& decoder) {
  if (!value.isObject()) {
    decoder.report("", value.line(),
                   "expected object, got " + std::string(json::typeName(value.type())));
    return std::nullopt;
  }
  const std::string api_version = stringMember(value, "apiVersion");
  const std::string kind = stringMember(value, "kind");
  if (api_version.empty() || kind.empty()) {
    decoder.report(api_version.empty() ? "apiVersion" : "kind", value.line(),
                   "apiVersion and kind must be set");
    return std::nullopt;
  }
  const int index = kindIndex(api_version, kind);
  if (index < 0) {
    decoder.report("kind", value.line(), "unknown kind " + api_version + " " + kind);
    return std::nullopt;
  }
  return decodeIndex(static_cast<size_t>(index), value, decoder);
}

Result<AnyObject> decodeAny(std::string_view json) {
  auto tree = json::parse(json);
  if (!tree) {
    return tree.error();
  }
  json::Decoder decoder;
  auto object = decodeAnyValue(*tree, decoder);
  if (!decoder.ok() || !object) {
    return decoder.toError();
  }
  return std::move(*object);
}

json::Value toAnyValue(const AnyObject& object) {
  return std::visit([](const auto& o) { return toValue(o); }, object);
}

std::string encodeAny(const AnyObject& object) {
  return json::write(toAnyValue(object));
}

std::string_view kindOf(const AnyObject& object) {
  return std::visit([](const auto& o) { return KindOf<std::decay_t<decltype(o)>>::kKind; }, object);
}

std::string_view apiVersionOf(const AnyObject& object) {
  return std::visit([](const auto& o) { return KindOf<std::decay_t<decltype(o)>>::kApiVersion; },
                    object);
}

const ObjectMeta& metaOf(const AnyObject& object) {
  return std::visit([](const auto& o) -> const ObjectMeta& { return o.metadata; }, object);
}

ObjectMeta& metaOf(AnyObject& object) {
  return std::visit([](auto& o) -> ObjectMeta& { return o.metadata; }, object);
}

bool isStrictGroup(std::string_view api_version) {
  const auto slash = api_version.find('/');
  const std::string_view group =
      slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  return group == "metallb.io" || group == "frrk8s.metallb.io";
}

// Every kind of AnyObject gets the four entry points.
#define INGOT_API_CODEC(T)                                       \
  template T decodeValue<T>(const json::Value&, json::Decoder&); \
  template json::Value toValue<T>(const T&);                     \
  template Result<T> decodeJson<T>(std::string_view);            \
  template std::string encodeJson<T>(const T&)

INGOT_API_CODEC(IPAddressPool);
INGOT_API_CODEC(L2Advertisement);
INGOT_API_CODEC(BGPAdvertisement);
INGOT_API_CODEC(BGPPeer);
INGOT_API_CODEC(BGPPeerV1beta1);
INGOT_API_CODEC(BFDProfile);
INGOT_API_CODEC(Community);
INGOT_API_CODEC(ServiceL2Status);
INGOT_API_CODEC(ServiceBGPStatus);
INGOT_API_CODEC(ConfigurationState);
INGOT_API_CODEC(FRRConfiguration);
INGOT_API_CODEC(Service);
INGOT_API_CODEC(EndpointSlice);
INGOT_API_CODEC(Node);
INGOT_API_CODEC(Namespace);
INGOT_API_CODEC(Secret);
INGOT_API_CODEC(Pod);

#undef INGOT_API_CODEC

}  // namespace ingot::api
