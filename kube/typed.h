// SPDX-License-Identifier: Apache-2.0
// Typed helpers over ApiClient: decode/encode with the caller's codec, page through lists, and
// read-modify-write with retry on 409 Conflict.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/api_client.h"

namespace ingot::k8s {

/// kDefaultConflictAttempts matches client-go's retry.DefaultRetry (5 steps).
inline constexpr int kDefaultConflictAttempts = 5;

/// retryOnConflict calls attempt until it returns anything other than a Conflict error, at most
/// `attempts` times; attempt must re-read the object each time (a stale write is what conflicted).
template <typename T>
Result<T> retryOnConflict(int attempts, const std::function<Result<T>()>& attempt) {
  Result<T> result = attempt();
  for (int i = 1; i < attempts && !result && result.error().code == ErrorCode::Conflict; ++i) {
    result = attempt();
  }
  return result;
}

/// TypedClient<T> is ApiClient for one resource and one C++ type.
template <typename T>
class TypedClient {
 public:
  using Decode = std::function<Result<T>(std::string_view json)>;
  using Encode = std::function<std::string(const T&)>;
  /// Mutate changes an object in place; returning false means "nothing to change" (no write).
  using Mutate = std::function<bool(T&)>;

  TypedClient(ApiClient& client, ResourceRef ref, Decode decode, Encode encode)
      : client_(client),
        ref_(std::move(ref)),
        decode_(std::move(decode)),
        encode_(std::move(encode)) {}

  Result<T> get(std::string_view ns, std::string_view name) {
    return decoded(client_.get(ref_, ns, name));
  }

  /// listAll pages through the whole collection (page size options.limit, 500 when unset).
  Result<std::vector<T>> listAll(std::string_view ns, ListOptions options = {}) {
    if (options.limit <= 0) options.limit = 500;
    std::vector<T> out;
    for (;;) {
      auto page = client_.list(ref_, ns, options);
      if (!page) return page.error();
      for (const std::string& item : page->items) {
        auto obj = decode_(item);
        if (!obj) return obj.error();
        out.push_back(std::move(*obj));
      }
      if (page->continue_token.empty()) return out;
      options.continue_token = std::move(page->continue_token);
    }
  }

  Result<T> create(std::string_view ns, const T& obj) {
    return decoded(client_.create(ref_, ns, encode_(obj)));
  }
  Result<T> update(std::string_view ns, std::string_view name, const T& obj) {
    return decoded(client_.update(ref_, ns, name, encode_(obj)));
  }
  Result<T> updateStatus(std::string_view ns, std::string_view name, const T& obj) {
    return decoded(client_.updateStatus(ref_, ns, name, encode_(obj)));
  }
  Result<T> patch(std::string_view ns, std::string_view name, PatchType type, std::string_view p) {
    return decoded(client_.patch(ref_, ns, name, type, p));
  }
  Result<T> patchStatus(std::string_view ns,
                        std::string_view name,
                        PatchType type,
                        std::string_view p) {
    return decoded(client_.patchStatus(ref_, ns, name, type, p));
  }
  Result<void> remove(std::string_view ns, std::string_view name) {
    return client_.remove(ref_, ns, name);
  }

  /// modify reads the object, applies mutate and writes it back (to the status subresource when
  /// status is true), re-reading and retrying on Conflict. Returns the stored object (the one read
  /// when mutate changed nothing).
  Result<T> modify(std::string_view ns,
                   std::string_view name,
                   const Mutate& mutate,
                   bool status = false,
                   int attempts = kDefaultConflictAttempts) {
    const std::function<Result<T>()> attempt = [&]() -> Result<T> {
      auto current = get(ns, name);
      if (!current) return current;
      if (!mutate(*current)) return current;
      return status ? updateStatus(ns, name, *current) : update(ns, name, *current);
    };
    return retryOnConflict<T>(attempts, attempt);
  }

 private:
  Result<T> decoded(Result<std::string> raw) {
    if (!raw) return raw.error();
    return decode_(*raw);
  }

  ApiClient& client_;
  ResourceRef ref_;
  Decode decode_;
  Encode encode_;
};

}  // namespace ingot::k8s
