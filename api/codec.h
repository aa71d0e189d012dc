// SPDX-License-Identifier: Apache-2.0
// JSON codec for every kind in AnyObject (api/object.h). Decoding follows Go's encoding/json as
// the API server applies it: null = absent, integers must fit their field, strings are never
// coerced; metallb.io and frrk8s.metallb.io kinds reject unknown fields (strict field validation)
// while core kinds ignore fields Ingot does not model. Encoding writes fields in a fixed order
// (apiVersion, kind, metadata, spec, status; Go struct order inside) and omits empty optional
// fields as MetalLB's/Kubernetes' omitempty tags do, so output is byte-stable and
// decode(encode(x)) == x.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "api/object.h"
#include "common/json/decode.h"
#include "common/json/value.h"
#include "common/util/result.h"

namespace ingot::api {

/// decodeValue decodes a T from a parsed tree, reporting problems (with JSON paths such as
/// "spec.myASN" and source lines) to decoder. apiVersion/kind may be absent (list items); when
/// present they must match T. The returned object is only meaningful if decoder.ok().
template <typename T>
T decodeValue(const json::Value& value, json::Decoder& decoder);

/// toValue encodes a T (including apiVersion and kind) as a tree.
template <typename T>
json::Value toValue(const T& object);

/// decodeJson parses JSON text and decodes a T; the error lists every problem as "path: reason".
template <typename T>
Result<T> decodeJson(std::string_view json);

/// jsonDecoder returns decodeJson<T> as a function: what an informer takes to decode its objects.
template <typename T>
std::function<Result<T>(std::string_view)> jsonDecoder() {
  return [](std::string_view json) { return decodeJson<T>(json); };
}

/// encodeJson encodes a T as compact JSON.
template <typename T>
std::string encodeJson(const T& object);

/// isKnownKind reports whether apiVersion + kind name a type of AnyObject.
bool isKnownKind(std::string_view api_version, std::string_view kind);

/// decodeAnyValue dispatches on the tree's apiVersion and kind. An unknown or missing identity is
/// reported to decoder and yields nullopt.
std::optional<AnyObject> decodeAnyValue(const json::Value& value, json::Decoder& decoder);

/// decodeAny parses JSON text and decodes it according to its apiVersion and kind.
Result<AnyObject> decodeAny(std::string_view json);

/// toAnyValue / encodeAny encode whichever object an AnyObject holds.
json::Value toAnyValue(const AnyObject& object);
std::string encodeAny(const AnyObject& object);

}  // namespace ingot::api
