// SPDX-License-Identifier: Apache-2.0
#include "kube/access_reviews.h"

#include "common/json/json.h"

namespace ingot::k8s {
namespace {

const ResourceRef kTokenReviews{"authentication.k8s.io", "v1", "tokenreviews", false};
const ResourceRef kSubjectAccessReviews{"authorization.k8s.io", "v1", "subjectaccessreviews",
                                        false};

json::Value strings(const std::vector<std::string>& items) {
  json::Value out = json::Value::array();
  for (const auto& s : items) {
    out.push(json::Value::string(s));
  }
  return out;
}

std::vector<std::string> stringsOf(const json::Value* v) {
  std::vector<std::string> out;
  if (v != nullptr && v->isArray()) {
    for (const auto& item : v->items()) {
      if (item.isString()) {
        out.push_back(item.text());
      }
    }
  }
  return out;
}

json::Value review(const std::string& api_version, const std::string& kind) {
  json::Value v = json::Value::object();
  v.set("apiVersion", json::Value::string(api_version));
  v.set("kind", json::Value::string(kind));
  return v;
}

Result<const json::Value*> statusOf(const json::Value& doc, const std::string& kind) {
  const json::Value* status = doc.isObject() ? doc.find("status") : nullptr;
  if (status == nullptr || !status->isObject()) {
    return Error{ErrorCode::Internal, kind + ": the API server's answer has no status"};
  }
  return status;
}

}  // namespace

std::string tokenReviewBody(const std::string& token) {
  json::Value v = review("authentication.k8s.io/v1", "TokenReview");
  json::Value spec = json::Value::object();
  spec.set("token", json::Value::string(token));
  v.set("spec", std::move(spec));
  return json::write(v);
}

std::string subjectAccessReviewBody(const daemon::UserInfo& user,
                                    const std::string& verb,
                                    const std::string& path) {
  json::Value v = review("authorization.k8s.io/v1", "SubjectAccessReview");
  json::Value spec = json::Value::object();
  spec.set("user", json::Value::string(user.username));
  if (!user.uid.empty()) {
    spec.set("uid", json::Value::string(user.uid));
  }
  spec.set("groups", strings(user.groups));
  if (!user.extra.empty()) {
    json::Value extra = json::Value::object();
    for (const auto& [k, values] : user.extra) {
      extra.set(k, strings(values));
    }
    spec.set("extra", std::move(extra));
  }
  json::Value attributes = json::Value::object();
  attributes.set("path", json::Value::string(path));
  attributes.set("verb", json::Value::string(verb));
  spec.set("nonResourceAttributes", std::move(attributes));
  v.set("spec", std::move(spec));
  return json::write(v);
}

Result<std::optional<daemon::UserInfo>> parseTokenReview(const std::string& text) {
  auto doc = json::parse(text);
  if (!doc) return Error{ErrorCode::Internal, "TokenReview: " + doc.error().message};
  auto status = statusOf(*doc, "TokenReview");
  if (!status) return status.error();
  const json::Value* authenticated = (*status)->find("authenticated");
  if (authenticated == nullptr || !authenticated->boolValue()) {
    return std::optional<daemon::UserInfo>{};
  }
  const json::Value* user = (*status)->find("user");
  const json::Value* name = user != nullptr && user->isObject() ? user->find("username") : nullptr;
  if (name == nullptr || !name->isString() || name->text().empty()) {
    return Error{ErrorCode::Internal,
                 "TokenReview: authenticated, but status.user.username is "
                 "missing"};
  }
  daemon::UserInfo info;
  info.username = name->text();
  if (const json::Value* uid = user->find("uid"); uid != nullptr && uid->isString()) {
    info.uid = uid->text();
  }
  info.groups = stringsOf(user->find("groups"));
  if (const json::Value* extra = user->find("extra"); extra != nullptr && extra->isObject()) {
    for (size_t i = 0; i < extra->keys().size(); ++i) {
      info.extra[extra->keys()[i]] = stringsOf(&extra->items()[i]);
    }
  }
  return std::optional<daemon::UserInfo>{std::move(info)};
}

Result<bool> parseSubjectAccessReview(const std::string& text) {
  auto doc = json::parse(text);
  if (!doc) return Error{ErrorCode::Internal, "SubjectAccessReview: " + doc.error().message};
  auto status = statusOf(*doc, "SubjectAccessReview");
  if (!status) return status.error();
  const json::Value* allowed = (*status)->find("allowed");
  const json::Value* denied = (*status)->find("denied");
  return allowed != nullptr && allowed->boolValue() && (denied == nullptr || !denied->boolValue());
}

Result<std::optional<daemon::UserInfo>> ApiAccessReviews::authenticate(const std::string& token) {
  auto answer = client_.create(kTokenReviews, "", tokenReviewBody(token));
  if (!answer) return answer.error();
  return parseTokenReview(*answer);
}

Result<bool> ApiAccessReviews::authorize(const daemon::UserInfo& user,
                                         const std::string& verb,
                                         const std::string& path) {
  auto answer =
      client_.create(kSubjectAccessReviews, "", subjectAccessReviewBody(user, verb, path));
  if (!answer) return answer.error();
  return parseSubjectAccessReview(*answer);
}

}  // namespace ingot::k8s
