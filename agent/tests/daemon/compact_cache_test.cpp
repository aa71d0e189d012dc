// SPDX-License-Identifier: Apache-2.0
// The packed caches (agent/daemon/compact_cache.h) against the projected ones they replace: every
// object read back is its projection, and over random sequences of adds, updates and deletes
// the readers' view (get, list, byIndex, size) of a packed store equals that of a store of
// projected objects.
#include "agent/daemon/compact_cache.h"

#include <random>
#include <set>

#include <boost/test/unit_test.hpp>

#include "agent/daemon/manager.h"
#include "agent/reconcile/reconciler.h"
#include "agent/reconcile/writes.h"
#include "kube/resources.h"

using namespace ingot;
using namespace ingot::agent;

namespace {

/// Gen draws the objects of a small universe, so that sequences update and delete what they
/// added, and dresses them with what the projections drop.
struct Gen {
  std::mt19937 rng;

  explicit Gen(unsigned seed) : rng(seed) {}

  size_t below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }
  bool coin() { return below(2) == 0; }
  template <typename T>
  const T& pick(const std::vector<T>& from) {
    return from[below(from.size())];
  }

  std::optional<bool> condition() {
    switch (below(3)) {
      case 0:
        return std::nullopt;
      case 1:
        return false;
      default:
        return true;
    }
  }

  std::string address() {
    static const std::vector<std::string> kAddresses = {
        "10.0.0.1",        "10.0.0.2",  "192.168.1.254", "fc00::1", "fc00::10:1",
        "2001:db8::",      "::",        "0.0.0.0",       "FC00::1", "fc00:0::1",
        "::ffff:10.0.0.3", "010.0.0.1", "pod.local",     "",        "10.0.0.1/32"};
    return pick(kAddresses);
  }

  void dress(api::ObjectMeta& m) {
    m.uid = "uid-" + std::to_string(below(1000));
    m.resource_version = std::to_string(below(100000));
    m.generation = static_cast<int64_t>(below(5));
    m.creation_timestamp = "2026-12-05T04:00:00Z";
    if (coin()) m.annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{}";
    if (coin()) m.owner_references.push_back({"v1", "Service", "x", "uid-x", true, true});
    if (coin()) m.finalizers.emplace_back("f");
    if (coin()) m.labels["app"] = "shop";
  }

  api::EndpointSlice slice(const std::string& ns, const std::string& name) {
    api::EndpointSlice s;
    s.metadata.namespace_ = ns;
    s.metadata.name = name;
    dress(s.metadata);
    if (below(5) != 0) {
      s.metadata.labels["kubernetes.io/service-name"] = pick<std::string>({"a", "b", "c", ""});
    }
    s.address_type = pick<std::string>({"IPv4", "IPv6", "FQDN"});
    const size_t n = below(4);
    for (size_t i = 0; i < n; ++i) {
      api::Endpoint e;
      for (size_t a = below(3); a > 0; --a) e.addresses.push_back(address());
      e.conditions = {condition(), condition(), condition()};
      if (below(4) != 0) e.node_name = pick<std::string>({"node1", "node2", "node3", ""});
      s.endpoints.push_back(std::move(e));
    }
    if (coin()) s.ports.push_back({"http", "TCP", 80});
    return s;
  }

  api::ServiceBGPStatus status(const std::string& ns, const std::string& name) {
    api::ServiceBGPStatus s;
    s.metadata.namespace_ = ns;
    s.metadata.name = name;
    dress(s.metadata);
    if (below(6) != 0) s.metadata.labels[kNodeLabel] = pick<std::string>({"node1", "node2"});
    if (below(6) != 0) s.metadata.labels[kServiceNameLabel] = pick<std::string>({"a", "b", ""});
    if (below(6) != 0) {
      s.metadata.labels[kServiceNamespaceLabel] = pick<std::string>({"shop", "web", ""});
    }
    s.status.node = pick<std::string>({"node1", "node2", ""});
    s.status.service_name = pick<std::string>({"a", "b", ""});
    s.status.service_namespace = pick<std::string>({"shop", "web", ""});
    for (size_t p = below(3); p > 0; --p) s.status.peers.push_back(pick<std::string>({"p1", "p2"}));
    return s;
  }
};

api::EndpointSlice projectedSlice(api::EndpointSlice s) {
  projectEndpointSlice(s);
  return s;
}

api::ServiceBGPStatus projectedStatus(api::ServiceBGPStatus s) {
  projectBgpStatus(s);
  return s;
}

template <typename T>
std::vector<T> objects(const std::vector<std::shared_ptr<const T>>& ptrs) {
  std::vector<T> out;
  out.reserve(ptrs.size());
  for (const auto& p : ptrs) out.push_back(*p);
  return out;
}

/// sameView requires the two views to read the same for every key and index value given.
template <typename T>
void sameView(const CacheView<T>& want,
              const CacheView<T>& got,
              const std::set<std::string>& keys,
              const std::set<std::string>& index_values) {
  BOOST_TEST(want.size() == got.size());
  BOOST_TEST((objects(want.list()) == objects(got.list())));
  for (const auto& key : keys) {
    auto w = want.get(key);
    auto g = got.get(key);
    BOOST_TEST_CONTEXT(key) {
      BOOST_TEST((w == nullptr) == (g == nullptr));
      if (w && g) BOOST_TEST((*w == *g));
    }
  }
  for (const auto& value : index_values) {
    BOOST_TEST_CONTEXT(value) {
      BOOST_TEST((objects(want.byIndex(value)) == objects(got.byIndex(value))));
    }
  }
}

/// Codec is one packed cache under test: how objects are made, projected, indexed and packed.
template <typename T, typename Packed>
struct Codec {
  T (*make)(Gen&, const std::string&, const std::string&);
  T (*project)(T);
  std::string (*index)(const T&);
  Packed (*pack)(const T&);
  T (*unpack)(const Packed&);
  std::string (*packed_index)(const Packed&);
};

api::EndpointSlice makeSlice(Gen& g, const std::string& ns, const std::string& name) {
  return g.slice(ns, name);
}

api::ServiceBGPStatus makeStatus(Gen& g, const std::string& ns, const std::string& name) {
  return g.status(ns, name);
}

const Codec<api::EndpointSlice, PackedSlice> kSlices{makeSlice, projectedSlice, sliceService,
                                                     packSlice, unpackSlice,    packedSliceService};
const Codec<api::ServiceBGPStatus, PackedBgpStatus> kStatuses{makeStatus,      projectedStatus,
                                                              statusService,   packBgpStatus,
                                                              unpackBgpStatus, packedStatusService};

/// unpacksToProjection requires 500 random objects to unpack to their projection, with the
/// projection's index value.
template <typename T, typename Packed>
void unpacksToProjection(const Codec<T, Packed>& c, unsigned seed) {
  Gen gen(seed);
  for (int i = 0; i < 500; ++i) {
    const T obj = c.make(gen, "shop", "o" + std::to_string(i));
    const T want = c.project(obj);
    const Packed packed = c.pack(obj);
    BOOST_TEST_CONTEXT(i) {
      BOOST_TEST((c.unpack(packed) == want));
      BOOST_TEST(c.packed_index(packed) == c.index(want));
    }
  }
}

/// runSequence applies random adds, updates and deletes to a store of projected objects and to
/// a store of packed ones, and compares the views after each step.
template <typename T, typename Packed>
void runSequence(const Codec<T, Packed>& c,
                 unsigned seed,
                 const std::set<std::string>& index_values) {
  Gen gen(seed);
  k8s::Store<T> old_store(c.index);
  k8s::Store<Packed> new_store(c.packed_index);
  const CacheView<T> want(old_store);
  const CacheView<T> got(new_store, c.unpack);
  std::set<std::string> keys;
  for (int step = 0; step < 200; ++step) {
    const std::string ns = gen.pick<std::string>({"shop", "web"});
    const std::string name = "s" + std::to_string(gen.below(8));
    const std::string key = k8s::objectKey(ns, name);
    keys.insert(key);
    BOOST_TEST_CONTEXT("seed " << seed << " step " << step << " " << key) {
      if (gen.below(4) == 0) {
        old_store.erase(key);
        new_store.erase(key);
      } else {
        const T obj = c.make(gen, ns, name);
        old_store.upsert(key, {std::make_shared<const T>(c.project(obj)), "1"});
        new_store.upsert(key, {std::make_shared<const Packed>(c.pack(obj)), "1"});
      }
      sameView(want, got, keys, index_values);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compact_cache)

// Every field a projected slice keeps comes back from its packed record, addresses that are not
// canonical IP text included; the index is the projection's.
BOOST_AUTO_TEST_CASE(a_packed_slice_unpacks_to_its_projection) {
  unpacksToProjection(kSlices, 1);
}

// The same for this node's ServiceBGPStatus objects.
BOOST_AUTO_TEST_CASE(a_packed_bgp_status_unpacks_to_its_projection) {
  unpacksToProjection(kStatuses, 2);
}

// The packed projection keeps what the decisions read: the first address, node and conditions.
BOOST_AUTO_TEST_CASE(a_packed_endpoint_is_a_few_words) {
  api::EndpointSlice s;
  s.metadata.namespace_ = "shop";
  s.metadata.name = "checkout-abcde";
  s.metadata.labels["kubernetes.io/service-name"] = "checkout";
  s.address_type = "IPv6";
  s.endpoints.push_back({{"fc00::1", "fc00::2"}, {true, true, false}, "node1"});
  const PackedSlice packed = packSlice(s);
  BOOST_TEST(sizeof(PackedEndpoint) <= 32U);
  BOOST_TEST(packed.texts.empty());
  BOOST_TEST(packed.endpoints.front().node == intern("node1"));
  const api::EndpointSlice back = unpackSlice(packed);
  BOOST_TEST(back.endpoints.front().addresses == std::vector<std::string>{"fc00::1"});
  BOOST_TEST(sliceService(back) == "shop/checkout");
}

// Random event sequences: the reconciler's view of the packed slice cache is the projected one.
BOOST_AUTO_TEST_CASE(packed_slice_cache_reads_as_the_projected_one) {
  for (unsigned seed = 10; seed < 16; ++seed) {
    runSequence(kSlices, seed, {"shop/a", "shop/b", "shop/c", "web/a", "web/b", "web/c", "shop/"});
  }
}

// Random event sequences: the same for the ServiceBGPStatus cache.
BOOST_AUTO_TEST_CASE(packed_bgp_status_cache_reads_as_the_projected_one) {
  for (unsigned seed = 20; seed < 26; ++seed) {
    runSequence(kStatuses, seed, {"shop/a", "shop/b", "web/a", "web/b", "/a", "shop/", "/"});
  }
}

BOOST_AUTO_TEST_SUITE_END()
