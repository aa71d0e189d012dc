// SPDX-License-Identifier: Apache-2.0
// The API server's answers for the metrics gate: a TokenReview (authentication.k8s.io/v1) for a
// bearer token and a SubjectAccessReview (authorization.k8s.io/v1) with nonResourceAttributes
// for the user it names, as kube-rbac-proxy and controller-runtime's metrics filter send them.
#pragma once

#include "common/daemon/metrics_auth.h"
#include "kube/api_client.h"

namespace ingot::k8s {

/// ApiAccessReviews creates the reviews through client (which must outlive it).
class ApiAccessReviews : public daemon::AccessReviews {
 public:
  explicit ApiAccessReviews(ApiClient& client) : client_(client) {}

  // ingot::daemon::AccessReviews
  Result<std::optional<daemon::UserInfo>> authenticate(const std::string& token) override;
  Result<bool> authorize(const daemon::UserInfo& user,
                         const std::string& verb,
                         const std::string& path) override;

 private:
  ApiClient& client_;
};

/// tokenReviewBody and subjectAccessReviewBody render the review objects; parseTokenReview and
/// parseSubjectAccessReview read the API server's answer (errors say what is missing). Pure, for
/// table tests.
std::string tokenReviewBody(const std::string& token);
std::string subjectAccessReviewBody(const daemon::UserInfo& user,
                                    const std::string& verb,
                                    const std::string& path);
Result<std::optional<daemon::UserInfo>> parseTokenReview(const std::string& json);
Result<bool> parseSubjectAccessReview(const std::string& json);

}  // namespace ingot::k8s
