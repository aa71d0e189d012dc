// SPDX-License-Identifier: Apache-2.0
// Who may read /metrics: bearer-token authentication and authorization delegated to the API
// server, as MetalLB's daemons (controller-runtime's metrics filter) and kube-rbac-proxy do. The
// token of the request's "Authorization: Bearer" header goes to a TokenReview; the user it names
// goes to a SubjectAccessReview for the request's verb ("get" for GET and HEAD) on the
// non-resource URL of its path. No or an unauthenticated token: 401; denied: 403; a review that
// could not be made: 500 (an error is never taken for a denial, nor cached). Decisions are cached
// per token and path for a short time, in a bounded table, so that a scrape every few seconds
// costs the API server two reviews every few minutes, not two per scrape.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/http/message.h"
#include "common/util/result.h"

namespace ingot::daemon {

/// UserInfo is the user a TokenReview found (authentication.k8s.io/v1 UserInfo).
struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

/// AccessReviews is what the gate asks the API server; the daemons implement it with their
/// Kubernetes client (kube/access_reviews.h), tests with a fake.
class AccessReviews {
 public:
  virtual ~AccessReviews() = default;
  /// authenticate returns the token's user, or nullopt when the API server does not
  /// authenticate it. An error means no answer (unreachable, refused the review).
  virtual Result<std::optional<UserInfo>> authenticate(const std::string& token) = 0;
  /// authorize says whether user may `verb` the non-resource URL `path`.
  virtual Result<bool> authorize(const UserInfo& user,
                                 const std::string& verb,
                                 const std::string& path) = 0;
};

/// GateOptions bound the cache. The times follow controller-runtime's metrics filter: an
/// authenticated token for 1 minute, an allow for 5 minutes, a denial for 30 seconds; a token
/// the API server did not authenticate is remembered for 10 seconds.
struct GateOptions {
  std::chrono::seconds authenticated_ttl{60};
  std::chrono::seconds unauthenticated_ttl{10};
  std::chrono::seconds allowed_ttl{300};
  std::chrono::seconds denied_ttl{30};
  size_t max_entries = 1024;  ///< per table; when full, expired entries and then the oldest go
};

/// MetricsGate decides whether a request may be served. Thread-safe; reviews run outside its
/// lock, so one slow review does not hold other scrapes.
class MetricsGate {
 public:
  using Now = std::function<std::chrono::steady_clock::time_point()>;

  /// The gate keeps a reference to reviews, which must outlive it.
  MetricsGate(AccessReviews& reviews, GateOptions options = {}, Now now = {});

  /// check returns nullopt when the request may be served, else the response to send instead
  /// (401 with WWW-Authenticate semantics in the body, 403 or 500).
  std::optional<http::Response> check(const http::Request& request);

  /// cached returns how many decisions the tables hold (authentication + authorization).
  size_t cached() const;

 private:
  struct Entry {
    std::chrono::steady_clock::time_point expires;
    std::optional<UserInfo> user;  ///< authentication table: nullopt = not authenticated
    bool allowed = false;          ///< authorization table
  };
  std::optional<Entry> lookup(std::map<std::string, Entry>& table, const std::string& key);
  void store(std::map<std::string, Entry>& table, const std::string& key, Entry entry);
  Result<std::optional<UserInfo>> user(const std::string& token);
  Result<bool> allowed(const std::string& token,
                       const UserInfo& user,
                       const std::string& verb,
                       const std::string& path);

  AccessReviews& reviews_;
  GateOptions options_;
  Now now_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> authn_;  ///< sha256(token) → user
  std::map<std::string, Entry> authz_;  ///< sha256(token) + verb + path → decision
};

/// bearerToken returns the token of an "Authorization: Bearer <token>" header ("" when absent,
/// of another scheme, or empty). The scheme is case-insensitive, as Kubernetes reads it.
std::string bearerToken(const http::Request& request);

}  // namespace ingot::daemon
