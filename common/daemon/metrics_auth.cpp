// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/metrics_auth.h"

#include <algorithm>
#include <cctype>

#include <openssl/evp.h>

namespace ingot::daemon {
namespace {

constexpr std::string_view kBearer = "bearer ";

/// digest returns the hex SHA-256 of text: the tables never hold a token itself.
std::string digest(const std::string& text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(text.data(), text.size(), md, &n, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 0xf];
  }
  return out;
}

/// verbOf maps the HTTP method to the authorization verb, as the API server's request info does
/// for non-resource URLs (HEAD is a get).
std::string verbOf(const std::string& method) {
  if (method == "HEAD") {
    return "get";
  }
  std::string v = method;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v;
}

http::Response answer(int status, std::string body) {
  return http::Response{status, "text/plain; charset=utf-8", std::move(body)};
}

}  // namespace

std::string bearerToken(const http::Request& request) {
  const std::string* h = request.header("authorization");
  if (h == nullptr || h->size() <= kBearer.size()) {
    return "";
  }
  std::string scheme = h->substr(0, kBearer.size());
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (scheme != kBearer) {
    return "";
  }
  std::string token = h->substr(kBearer.size());
  const auto first = token.find_first_not_of(' ');
  const auto last = token.find_last_not_of(' ');
  return first == std::string::npos ? "" : token.substr(first, last - first + 1);
}

MetricsGate::MetricsGate(AccessReviews& reviews, GateOptions options, Now now)
    : reviews_(reviews), options_(options), now_(std::move(now)) {
  if (!now_) {
    now_ = [] { return std::chrono::steady_clock::now(); };
  }
}

std::optional<MetricsGate::Entry> MetricsGate::lookup(std::map<std::string, Entry>& table,
                                                      const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = table.find(key);
  if (it == table.end()) {
    return std::nullopt;
  }
  if (it->second.expires <= now_()) {
    table.erase(it);
    return std::nullopt;
  }
  return it->second;
}

void MetricsGate::store(std::map<std::string, Entry>& table, const std::string& key, Entry entry) {
  std::lock_guard lock(mu_);
  if (table.size() >= options_.max_entries && table.find(key) == table.end()) {
    const auto now = now_();
    std::erase_if(table, [now](const auto& e) { return e.second.expires <= now; });
  }
  while (table.size() >= options_.max_entries && table.find(key) == table.end()) {
    table.erase(std::min_element(table.begin(), table.end(), [](const auto& a, const auto& b) {
      return a.second.expires < b.second.expires;
    }));
  }
  table[key] = std::move(entry);
}

Result<std::optional<UserInfo>> MetricsGate::user(const std::string& token) {
  const std::string key = digest(token);
  if (auto hit = lookup(authn_, key)) {
    return hit->user;
  }
  auto found = reviews_.authenticate(token);
  if (!found) {
    return found.error();
  }
  const auto ttl = *found ? options_.authenticated_ttl : options_.unauthenticated_ttl;
  store(authn_, key, Entry{now_() + ttl, *found, false});
  return *found;
}

Result<bool> MetricsGate::allowed(const std::string& token,
                                  const UserInfo& user,
                                  const std::string& verb,
                                  const std::string& path) {
  const std::string key = digest(token) + " " + verb + " " + path;
  if (auto hit = lookup(authz_, key)) {
    return hit->allowed;
  }
  auto decision = reviews_.authorize(user, verb, path);
  if (!decision) {
    return decision.error();
  }
  const auto ttl = *decision ? options_.allowed_ttl : options_.denied_ttl;
  store(authz_, key, Entry{now_() + ttl, std::nullopt, *decision});
  return *decision;
}

std::optional<http::Response> MetricsGate::check(const http::Request& request) {
  const std::string token = bearerToken(request);
  if (token.empty()) {
    return answer(401, "Unauthorized: a bearer token is required\n");
  }
  auto who = user(token);
  if (!who) {
    return answer(401, "Unauthorized: the token could not be reviewed\n");
  }
  if (!*who) {
    return answer(401, "Unauthorized\n");
  }
  const std::string verb = verbOf(request.method);
  auto ok = allowed(token, **who, verb, request.path);
  if (!ok) {
    return answer(500, "Authorization for user " + (*who)->username + " failed\n");
  }
  if (!*ok) {
    return answer(403, "Forbidden: user " + (*who)->username + " may not " + verb + " " +
                           request.path + "\n");
  }
  return std::nullopt;
}

size_t MetricsGate::cached() const {
  std::lock_guard lock(mu_);
  return authn_.size() + authz_.size();
}

}  // namespace ingot::daemon
