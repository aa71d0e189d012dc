// SPDX-License-Identifier: Apache-2.0
// Compact records of what the agent caches by the thousand besides the Services: the
// EndpointSlices (one or more per Service) and this node's ServiceBGPStatus objects (one per
// announced Service). The informers keep these records instead of decoded objects: names of
// bounded sets (namespaces, nodes, peers, address types) interned once for the process,
// endpoint addresses packed into 16 bytes, endpoint conditions into one byte. CacheView gives the
// readers the objects back (the projection, field for field) when they ask, so the decisions,
// the status writes and the tests read the same api types as before.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "kube/store.h"

namespace ingot::agent {

/// intern returns the process's one copy of text; the pointer stays valid for the life of the
/// process. Only for values from bounded sets (namespaces, node and peer names): nothing is ever
/// released. Thread-safe (the informers decode on their own threads).
const std::string* intern(std::string_view text);

/// PackedEndpoint is one endpoint of a PackedSlice: its first address (an IP whose text is the
/// canonical form is kept as 16 bytes, any other text in the slice's `texts`), its node and its
/// three conditions (2 bits each: unset, false, true).
struct PackedEndpoint {
  enum class Address : uint8_t { None, V4, V6, Text };
  uint64_t hi = 0;  ///< high 64 bits of an IPv6 address
  uint64_t lo = 0;  ///< an IPv4 address, the low 64 bits of an IPv6 one, or the index in texts
  const std::string* node = nullptr;  ///< interned nodeName; null when unset
  Address address = Address::None;
  uint8_t conditions = 0;
  friend bool operator==(const PackedEndpoint&, const PackedEndpoint&) = default;
};

/// PackedSlice is what the agent keeps of an EndpointSlice: exactly projectEndpointSlice's
/// result (name, namespace, the kubernetes.io/service-name label, the address type, per endpoint
/// the first address, node and conditions).
struct PackedSlice {
  std::string name;
  const std::string* namespace_ = nullptr;    ///< interned
  std::optional<std::string> service;         ///< the kubernetes.io/service-name label
  const std::string* address_type = nullptr;  ///< interned
  std::vector<PackedEndpoint> endpoints;
  std::vector<std::string> texts;  ///< addresses that are not an IP in canonical text
};

/// packSlice packs what projectEndpointSlice keeps of slice; unpackSlice returns that
/// projection: unpackSlice(packSlice(s)) == s projected.
PackedSlice packSlice(const api::EndpointSlice& slice);
api::EndpointSlice unpackSlice(const PackedSlice& packed);

/// packedSliceService is sliceService over a packed slice (the store's index).
std::string packedSliceService(const PackedSlice& packed);

/// PackedBgpStatus is what the agent keeps of one of its ServiceBGPStatus objects: exactly
/// projectBgpStatus's result (name, namespace, resourceVersion, the node and Service labels,
/// the status).
struct PackedBgpStatus {
  std::string name;
  const std::string* namespace_ = nullptr;  ///< interned
  std::string resource_version;
  const std::string* node_label = nullptr;  ///< interned; null when absent
  std::optional<std::string> service_name_label;
  const std::string* service_namespace_label = nullptr;  ///< interned; null when absent
  const std::string* node = nullptr;                     ///< status.node, interned
  std::string service_name;
  const std::string* service_namespace = nullptr;  ///< interned
  std::vector<const std::string*> peers;           ///< interned BGPPeer names
};

/// packBgpStatus packs what projectBgpStatus keeps of status; unpackBgpStatus returns that
/// projection.
PackedBgpStatus packBgpStatus(const api::ServiceBGPStatus& status);
api::ServiceBGPStatus unpackBgpStatus(const PackedBgpStatus& packed);

/// packedStatusService is statusService over a packed status (the store's index).
std::string packedStatusService(const PackedBgpStatus& packed);

/// CacheView is how the reconciler reads a cache of T: a Store<T> itself (what the tests fill)
/// or a store of packed records, unpacked on every read (what the daemon's informers fill).
/// Reads return fresh objects; the view holds no object itself. The store must outlive it.
template <typename T>
class CacheView {
 public:
  using Ptr = std::shared_ptr<const T>;

  /// CacheView over a store of T: reads return the stored objects.
  CacheView(const k8s::Store<T>& store)  // NOLINT(google-explicit-constructor): Caches{...}
      : get_([&store](const std::string& key) { return store.get(key); }),
        list_([&store] { return store.list(); }),
        by_index_([&store](const std::string& value) { return store.byIndex(value); }),
        size_([&store] { return store.size(); }) {}

  /// CacheView over a store of packed records: reads return unpack's objects.
  template <typename Packed>
  CacheView(const k8s::Store<Packed>& store, T (*unpack)(const Packed&))
      : get_([&store, unpack](const std::string& key) {
          auto p = store.get(key);
          return p ? std::make_shared<const T>(unpack(*p)) : Ptr();
        }),
        list_([&store, unpack] { return unpacked(store.list(), unpack); }),
        by_index_([&store, unpack](const std::string& value) {
          return unpacked(store.byIndex(value), unpack);
        }),
        size_([&store] { return store.size(); }) {}

  /// get returns the object under key ("ns/name"), or nullptr.
  Ptr get(const std::string& key) const { return get_(key); }
  /// list returns every object, ordered by key.
  std::vector<Ptr> list() const { return list_(); }
  /// byIndex returns the objects indexed under value, ordered by key.
  std::vector<Ptr> byIndex(const std::string& value) const { return by_index_(value); }
  size_t size() const { return size_(); }

 private:
  template <typename Packed>
  static std::vector<Ptr> unpacked(const std::vector<std::shared_ptr<const Packed>>& packed,
                                   T (*unpack)(const Packed&)) {
    std::vector<Ptr> out;
    out.reserve(packed.size());
    for (const auto& p : packed) {
      out.push_back(std::make_shared<const T>(unpack(*p)));
    }
    return out;
  }

  std::function<Ptr(const std::string&)> get_;
  std::function<std::vector<Ptr>()> list_;
  std::function<std::vector<Ptr>(const std::string&)> by_index_;
  std::function<size_t()> size_;
};

}  // namespace ingot::agent
