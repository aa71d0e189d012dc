// SPDX-License-Identifier: Apache-2.0
// Compact records of objects the daemons cache by the thousand (one or more EndpointSlices per
// Service): names of bounded sets (namespaces, nodes, address types) interned once for the
// process, endpoint addresses packed into 16 bytes, endpoint conditions into one byte. An
// informer keeps these records instead of decoded objects (packedDecoder), and StoreView gives
// the readers the objects back (the projection, field for field) when they ask, so decisions and
// tests read the same api types as before.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec.h"
#include "api/types.h"
#include "common/util/result.h"
#include "kube/store.h"

namespace ingot::k8s {

/// intern returns the process's one copy of text; the pointer stays valid for the life of the
/// process. Only for values from bounded sets (namespaces, node and peer names): nothing is ever
/// released. Thread-safe (the informers decode on their own threads).
const std::string* intern(std::string_view text);

/// internOrNull interns text when it is set, and is null when it is not.
const std::string* internOrNull(const std::optional<std::string>& text);

/// labelOf is the value of the label key, nullopt when labels lack it.
std::optional<std::string> labelOf(const api::StringMap& labels, std::string_view key);

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

/// PackedSlice is what the daemons keep of an EndpointSlice (both daemons' projectEndpointSlice):
/// the name, the namespace, the kubernetes.io/service-name label, the address type and, per
/// endpoint, the first address, the node and the conditions.
struct PackedSlice {
  std::string name;
  const std::string* namespace_ = nullptr;    ///< interned
  std::optional<std::string> service;         ///< the kubernetes.io/service-name label
  const std::string* address_type = nullptr;  ///< interned
  std::vector<PackedEndpoint> endpoints;
  std::vector<std::string> texts;  ///< addresses that are not an IP in canonical text
};

/// packSlice packs what PackedSlice keeps of slice; unpackSlice returns those fields as an
/// EndpointSlice (every other field empty).
PackedSlice packSlice(const api::EndpointSlice& slice);
api::EndpointSlice unpackSlice(const PackedSlice& packed);

/// packedSliceService is the store's index of a packed slice: "namespace/service" from its
/// kubernetes.io/service-name label, "" without one (or with an empty one).
std::string packedSliceService(const PackedSlice& packed);

/// packedDecoder decodes an object of the API type pack takes and keeps only pack's record of
/// it: the decoded object is dropped as soon as it is packed (an informer's decoder).
template <typename T, typename Packed>
std::function<Result<Packed>(std::string_view)> packedDecoder(Packed (*pack)(const T&)) {
  return [pack](std::string_view json) -> Result<Packed> {
    auto decoded = api::decodeJson<T>(json);
    if (!decoded) {
      return decoded.error();
    }
    return pack(*decoded);
  };
}

/// StoreView is how a reconciler reads a cache of T: a Store<T> itself (what tests fill) or a
/// store of packed records, unpacked on every read (what the daemons' informers fill).
/// Reads return fresh objects; the view holds no object itself. The store must outlive it.
template <typename T>
class StoreView {
 public:
  using Ptr = std::shared_ptr<const T>;

  /// StoreView over a store of T: reads return the stored objects.
  StoreView(const Store<T>& store)  // NOLINT(google-explicit-constructor): Caches{...}
      : get_([&store](const std::string& key) { return store.get(key); }),
        list_([&store] { return store.list(); }),
        by_index_([&store](const std::string& value) { return store.byIndex(value); }),
        size_([&store] { return store.size(); }),
        keys_([&store] { return store.keys(); }) {}

  /// StoreView over a store of packed records: reads return unpack's objects.
  template <typename Packed>
  StoreView(const Store<Packed>& store, T (*unpack)(const Packed&))
      : get_([&store, unpack](const std::string& key) {
          auto p = store.get(key);
          return p ? std::make_shared<const T>(unpack(*p)) : Ptr();
        }),
        list_([&store, unpack] { return unpacked(store.list(), unpack); }),
        by_index_([&store, unpack](const std::string& value) {
          return unpacked(store.byIndex(value), unpack);
        }),
        size_([&store] { return store.size(); }),
        keys_([&store] { return store.keys(); }) {}

  /// get returns the object under key ("ns/name"), or nullptr.
  Ptr get(const std::string& key) const { return get_(key); }
  /// list returns every object, ordered by key.
  std::vector<Ptr> list() const { return list_(); }
  /// byIndex returns the objects indexed under value, ordered by key.
  std::vector<Ptr> byIndex(const std::string& value) const { return by_index_(value); }
  size_t size() const { return size_(); }
  /// keys returns every key, ordered.
  std::vector<std::string> keys() const { return keys_(); }

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
  std::function<std::vector<std::string>()> keys_;
};

}  // namespace ingot::k8s
