// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook/json.h"

#include <algorithm>

#include "common/json/json.h"

namespace ingot::controller::webhook {

const json::Value* member(const json::Value* v, std::string_view key) {
  return v != nullptr && v->isObject() ? v->find(key) : nullptr;
}

std::string text(const json::Value* v) {
  return v != nullptr && v->isString() ? v->text() : std::string();
}

Result<json::Value> reviewRequest(std::string_view body,
                                  std::string_view kind,
                                  std::initializer_list<std::string_view> api_versions) {
  auto root = json::parse(body);
  if (!root) {
    return invalidArgument("the request body is not JSON: " + root.error().message);
  }
  const std::string version = text(member(&*root, "apiVersion"));
  const bool known =
      std::find(api_versions.begin(), api_versions.end(), version) != api_versions.end();
  if (text(member(&*root, "kind")) != kind || !known) {
    std::string expected;
    for (auto v : api_versions) expected += (expected.empty() ? "" : " or ") + std::string(v);
    return invalidArgument("expected an " + expected + " " + std::string(kind) + ", got " +
                           (version.empty() ? std::string("no apiVersion") : version) + " " +
                           text(member(&*root, "kind")));
  }
  const json::Value* request = member(&*root, "request");
  if (request == nullptr || !request->isObject() || text(member(request, "uid")).empty()) {
    return invalidArgument("the " + std::string(kind) + " has no request or no request.uid");
  }
  return std::move(*root);
}

}  // namespace ingot::controller::webhook
