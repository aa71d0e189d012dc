// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook/convert.h"

#include "api/codec.h"
#include "api/convert.h"
#include "common/json/json.h"
#include "controller/webhook/json.h"

namespace ingot::controller::webhook {
namespace {

constexpr std::string_view kV1beta1 = "metallb.io/v1beta1";
constexpr std::string_view kV1beta2 = "metallb.io/v1beta2";

/// specOnly is the object reduced to what the typed codec converts: identity and spec.
json::Value specOnly(const json::Value& object, std::string_view api_version) {
  json::Value out = json::Value::object();
  out.set("apiVersion", json::Value::string(std::string(api_version)));
  out.set("kind", json::Value::string("BGPPeer"));
  if (const json::Value* spec = member(&object, "spec")) out.set("spec", *spec);
  return out;
}

/// convertedSpec converts the spec of a BGPPeer from one version to the other.
template <typename From, typename To>
Result<json::Value> convertedSpec(const json::Value& object,
                                  std::string_view from,
                                  To (*convert)(const From&)) {
  json::Decoder decoder;
  From peer = api::decodeValue<From>(specOnly(object, from), decoder);
  if (!decoder.ok()) return decoder.toError();
  json::Value encoded = api::toValue(convert(peer));
  const json::Value* spec = member(&encoded, "spec");
  return spec != nullptr ? *spec : json::Value::object();
}

/// convertObject returns object as desired (apiVersion and spec replaced, the rest kept).
Result<json::Value> convertObject(const json::Value& object, std::string_view desired) {
  const std::string from = text(member(&object, "apiVersion"));
  const json::Value* meta = member(&object, "metadata");
  const std::string name = text(member(meta, "name"));
  const std::string what = "BGPPeer " + (name.empty() ? std::string("(no name)") : name);
  if (text(member(&object, "kind")) != "BGPPeer") {
    return invalidArgument("object " + name + " is a " + text(member(&object, "kind")) +
                           ": only BGPPeer converts here");
  }
  if (from == desired) return object;
  Result<json::Value> spec = invalidArgument("");
  if (from == kV1beta1 && desired == kV1beta2) {
    spec = convertedSpec<api::BGPPeerV1beta1, api::BGPPeer>(object, from, api::toV1beta2);
  } else if (from == kV1beta2 && desired == kV1beta1) {
    spec = convertedSpec<api::BGPPeer, api::BGPPeerV1beta1>(object, from, api::toV1beta1);
  } else {
    return invalidArgument(what + ": cannot convert " + from + " to " + std::string(desired) +
                           " (metallb.io/v1beta1 and v1beta2 only)");
  }
  if (!spec) return Error{spec.error().code, what + ": " + spec.error().message};
  json::Value out = json::Value::object();
  for (size_t i = 0; i < object.keys().size(); ++i) {
    const std::string& key = object.keys()[i];
    if (key == "apiVersion") {
      out.set(key, json::Value::string(std::string(desired)));
    } else if (key != "spec") {
      out.set(key, object.items()[i]);
    }
  }
  out.set("spec", std::move(*spec));
  return out;
}

/// responseFor builds the response member: the converted objects, or the first failure.
json::Value responseFor(const json::Value& request) {
  const std::string desired = text(member(&request, "desiredAPIVersion"));
  json::Value converted = json::Value::array();
  json::Value result = json::Value::object();
  const json::Value* objects = member(&request, "objects");
  std::string failure;
  for (const auto& o :
       objects != nullptr && objects->isArray() ? objects->items() : std::vector<json::Value>{}) {
    auto c = convertObject(o, desired);
    if (!c) {
      failure = c.error().message;
      break;
    }
    converted.push(std::move(*c));
  }
  json::Value response = json::Value::object();
  response.set("uid", json::Value::string(text(member(&request, "uid"))));
  if (failure.empty()) {
    response.set("convertedObjects", std::move(converted));
    result.set("status", json::Value::string("Success"));
  } else {
    result.set("status", json::Value::string("Failure"));
    result.set("message", json::Value::string(failure));
  }
  response.set("result", std::move(result));
  return response;
}

}  // namespace

Result<std::string> convertReview(std::string_view body) {
  auto root = reviewRequest(body, "ConversionReview",
                            {"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"});
  if (!root) {
    return root.error();
  }
  json::Value review = json::Value::object();
  review.set("apiVersion", json::Value::string(text(member(&*root, "apiVersion"))));
  review.set("kind", json::Value::string("ConversionReview"));
  review.set("response", responseFor(*member(&*root, "request")));
  return json::write(review);
}

std::string failureStatus(std::string_view message) {
  json::Value status = json::Value::object();
  status.set("apiVersion", json::Value::string("v1"));
  status.set("kind", json::Value::string("Status"));
  status.set("status", json::Value::string("Failure"));
  status.set("code", json::Value::number(static_cast<int64_t>(400)));
  status.set("reason", json::Value::string("BadRequest"));
  status.set("message", json::Value::string(std::string(message)));
  return json::write(status);
}

}  // namespace ingot::controller::webhook
