// SPDX-License-Identifier: Apache-2.0
// The controller's packed caches (PackedService, k8s::PackedSlice, PackedReport) against the
// caches of projected objects they replace: over random sequences of adds, updates and deletes,
// what the reconciler reads (get, keys, list, byIndex by Service, size) is the same from both.
#include "controller/compact_cache.h"

#include <array>
#include <random>
#include <set>

#include <boost/test/unit_test.hpp>

#include "controller/core/projections.h"
#include "controller/core/unannounced.h"
#include "kube/api_client.h"
#include "kube/compact_cache.h"

using namespace ingot;
using namespace ingot::controller;

namespace {

/// Draw picks from small universes, so that sequences update and delete what they added; every
/// object also carries what the projections drop.
struct Draw {
  std::mt19937 rng;
  explicit Draw(unsigned seed) : rng(seed) {}

  size_t upTo(size_t n) { return std::uniform_int_distribution<size_t>(0, n)(rng); }
  bool coin() { return upTo(1) == 0; }
  template <size_t N>
  std::string of(const std::array<const char*, N>& choices) {
    return choices.at(upTo(N - 1));
  }

  std::optional<bool> tri() {
    const size_t v = upTo(2);
    return v == 0 ? std::nullopt : std::optional<bool>(v == 2);
  }

  /// metadata: name and namespace, plus what no projection keeps.
  api::ObjectMeta metadata(const std::string& ns, const std::string& name) {
    api::ObjectMeta m;
    m.namespace_ = ns;
    m.name = name;
    m.uid = "u" + std::to_string(upTo(99));
    m.resource_version = std::to_string(upTo(9999));
    m.generation = static_cast<int64_t>(upTo(3));
    m.creation_timestamp = "2026-12-05T08:00:00Z";
    if (upTo(1) == 0) m.labels["team"] = of(std::array{"a", "b"});
    if (upTo(1) == 0) m.annotations["note"] = "x";
    if (upTo(2) == 0) m.owner_references.push_back({"v1", "Service", name, "u", true, true});
    return m;
  }

  api::EndpointSlice slice(const std::string& ns, const std::string& name) {
    api::EndpointSlice s;
    s.metadata = metadata(ns, name);
    if (upTo(4) != 0) {
      s.metadata.labels["kubernetes.io/service-name"] = of(std::array{"web", "db", "", "api"});
    }
    s.address_type = of(std::array{"IPv4", "IPv6", "FQDN"});
    for (size_t n = upTo(3); n > 0; --n) {
      api::Endpoint e;
      for (size_t a = upTo(2); a > 0; --a) {
        e.addresses.push_back(of(std::array{"10.1.0.7", "fd00::7", "FD00::7", "10.01.0.7",
                                            "db.local", "", "::ffff:10.1.0.7", "10.1.0.8"}));
      }
      e.conditions = {tri(), tri(), tri()};
      if (upTo(3) != 0) e.node_name = of(std::array{"n1", "n2", ""});
      s.endpoints.push_back(std::move(e));
    }
    if (upTo(1) == 0) s.ports.push_back({"https", "TCP", 443});
    return s;
  }

  api::Service service(const std::string& ns, const std::string& name) {
    api::Service s;
    s.metadata = metadata(ns, name);
    if (upTo(1) == 0) s.metadata.labels["app"] = name;
    if (upTo(1) == 0) s.metadata.annotations["metallb.io/loadBalancerIPs"] = "192.0.2.7";
    if (upTo(2) == 0) s.metadata.annotations["metallb.universe.tf/address-pool"] = "p1";
    s.spec.type = of(std::array{"LoadBalancer", "ClusterIP", "NodePort", ""});
    s.spec.cluster_ip = of(std::array{"10.96.0.7", "fd00::a:7", "", "None"});
    for (size_t i = upTo(2); i > 0; --i) {
      s.spec.cluster_ips.push_back(of(std::array{"10.96.0.7", "fd00::a:7"}));
    }
    for (size_t i = upTo(2); i > 0; --i) {
      s.spec.ip_families.push_back(of(std::array{"IPv4", "IPv6"}));
    }
    if (upTo(1) == 0) s.spec.ip_family_policy = of(std::array{"SingleStack", "RequireDualStack"});
    s.spec.load_balancer_ip = of(std::array{"", "192.0.2.8"});
    if (upTo(2) == 0) s.spec.load_balancer_class = of(std::array{"ingot", ""});
    s.spec.external_traffic_policy = of(std::array{"Local", "Cluster", ""});
    if (upTo(1) == 0) s.spec.selector["app"] = name;
    for (size_t i = upTo(2); i > 0; --i) {
      s.spec.ports.push_back({of(std::array{"http", ""}), of(std::array{"TCP", "UDP", "SCTP"}),
                              static_cast<int32_t>(upTo(3) * 80), "8080",
                              static_cast<int32_t>(upTo(1) * 30080)});
    }
    for (size_t i = upTo(2); i > 0; --i) {
      s.status.ingress.push_back({of(std::array{"192.0.2.7", "fd00::7", ""}),
                                  of(std::array{"", "lb.example"}),
                                  upTo(1) == 0 ? std::optional<std::string>("VIP") : std::nullopt});
    }
    if (upTo(2) == 0) {
      s.status.conditions.push_back({"ingot.dev/Announced", "False", "NoAnnouncingNode", "m",
                                     "2026-12-05T08:00:00Z", static_cast<int64_t>(upTo(3))});
    }
    return s;
  }

  template <typename T>
  T report(const std::string& ns, const std::string& name) {
    T r;
    r.metadata = metadata(ns, name);
    r.status.node = of(std::array{"n1", "n2", "n3", ""});
    r.status.service_name = of(std::array{"web", "db", ""});
    r.status.service_namespace = of(std::array{"prod", "dev", ""});
    return r;
  }
};

/// Kind is one cache under test: how its objects are drawn, projected (the old cache) and
/// packed (the new one), and the index of each.
template <typename T, typename Packed>
struct Kind {
  T (*draw)(Draw&, const std::string&, const std::string&);
  void (*project)(T&);
  std::string (*index)(const T&);
  Packed (*pack)(const T&);
  T (*unpack)(const Packed&);
  std::string (*packed_index)(const Packed&);
};

/// sameObjects requires two reads to return equal objects in the same order.
template <typename T>
void sameObjects(const std::vector<std::shared_ptr<const T>>& want,
                 const std::vector<std::shared_ptr<const T>>& got,
                 const std::string& what) {
  BOOST_TEST_REQUIRE(want.size() == got.size(), what);
  for (size_t i = 0; i < want.size(); ++i) {
    BOOST_TEST((*want[i] == *got[i]), what << " #" << i);
  }
}

/// replay applies `steps` random events to both caches and requires, after each, the same reads
/// (size, keys, list, get of every key seen, byIndex of every index value seen).
template <typename T, typename Packed>
void replay(const Kind<T, Packed>& kind, unsigned seed, int steps) {
  Draw draw(seed);
  k8s::Store<T> old_cache(kind.index);
  k8s::Store<Packed> new_cache(kind.packed_index);
  const k8s::StoreView<T> want(old_cache);
  const k8s::StoreView<T> got(new_cache, kind.unpack);
  std::set<std::string> keys;
  std::set<std::string> services{""};
  for (int step = 0; step < steps; ++step) {
    const std::string ns = draw.of(std::array{"prod", "dev"});
    const std::string key = k8s::objectKey(ns, "o" + std::to_string(draw.upTo(9)));
    keys.insert(key);
    BOOST_TEST_CONTEXT("seed " << seed << ", step " << step << ", " << key) {
      if (draw.upTo(4) == 0) {
        old_cache.erase(key);
        new_cache.erase(key);
      } else {
        T obj = kind.draw(draw, ns, key.substr(ns.size() + 1));
        new_cache.upsert(key, {std::make_shared<const Packed>(kind.pack(obj)), "7"});
        kind.project(obj);
        services.insert(kind.index(obj));
        old_cache.upsert(key, {std::make_shared<const T>(std::move(obj)), "7"});
      }
      BOOST_TEST(want.size() == got.size());
      BOOST_TEST((want.keys() == got.keys()));
      sameObjects(want.list(), got.list(), "list");
      for (const auto& k : keys) {
        const auto w = want.get(k);
        const auto g = got.get(k);
        BOOST_TEST((w == nullptr) == (g == nullptr), k);
        if (w && g) BOOST_TEST((*w == *g), k);
      }
      for (const auto& s : services) {
        sameObjects(want.byIndex(s), got.byIndex(s), "Service " + s);
      }
    }
  }
}

api::EndpointSlice drawSlice(Draw& d, const std::string& ns, const std::string& name) {
  return d.slice(ns, name);
}
template <typename T>
T drawReport(Draw& d, const std::string& ns, const std::string& name) {
  return d.report<T>(ns, name);
}

api::Service drawService(Draw& d, const std::string& ns, const std::string& name) {
  return d.service(ns, name);
}

/// serviceKey indexes the Service stores of the test so that byIndex is compared too (the
/// daemon's Service store has no index).
std::string serviceKey(const api::Service& s) {
  return s.metadata.namespace_ + "/" + s.metadata.name;
}
std::string packedServiceKey(const PackedService& s) {
  return *s.namespace_ + "/" + s.name;
}

const Kind<api::Service, PackedService> kServices{drawService, projectService, serviceKey,
                                                  packService, unpackService,  packedServiceKey};
const Kind<api::EndpointSlice, k8s::PackedSlice> kSlices{drawSlice,        projectEndpointSlice,
                                                         sliceServiceKey,  k8s::packSlice,
                                                         k8s::unpackSlice, k8s::packedSliceService};
const Kind<api::ServiceBGPStatus, PackedReport> kBgpReports{drawReport<api::ServiceBGPStatus>,
                                                            projectServiceBGPStatus,
                                                            bgpStatusServiceKey,
                                                            packBgpReport,
                                                            unpackBgpReport,
                                                            reportServiceKey};
const Kind<api::ServiceL2Status, PackedReport> kL2Reports{drawReport<api::ServiceL2Status>,
                                                          projectServiceL2Status,
                                                          l2StatusServiceKey,
                                                          packL2Report,
                                                          unpackL2Report,
                                                          reportServiceKey};

/// takeOneField copies field number `which` of what the Service projection keeps from `from`.
void takeOneField(api::Service& to, const api::Service& from, size_t which) {
  switch (which) {
    case 0:
      to.metadata.uid = from.metadata.uid;
      break;
    case 1:
      to.metadata.generation = from.metadata.generation;
      break;
    case 2:
      to.metadata.labels = from.metadata.labels;
      break;
    case 3:
      to.metadata.annotations = from.metadata.annotations;
      break;
    case 4:
      to.spec.type = from.spec.type;
      break;
    case 5:
      to.spec.cluster_ip = from.spec.cluster_ip;
      break;
    case 6:
      to.spec.cluster_ips = from.spec.cluster_ips;
      break;
    case 7:
      to.spec.ip_families = from.spec.ip_families;
      break;
    case 8:
      to.spec.ip_family_policy = from.spec.ip_family_policy;
      break;
    case 9:
      to.spec.load_balancer_ip = from.spec.load_balancer_ip;
      break;
    case 10:
      to.spec.load_balancer_class = from.spec.load_balancer_class;
      break;
    case 11:
      to.spec.external_traffic_policy = from.spec.external_traffic_policy;
      break;
    case 12:
      to.spec.selector = from.spec.selector;
      break;
    case 13:
      to.status.ingress = from.status.ingress;
      break;
    case 14:
      to.status.conditions = from.status.conditions;
      break;
    default:
      to.spec.ports = from.spec.ports;
      break;
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compact_cache)

// The EndpointSlice cache: packed slices read back as the projected ones, by key, in order and
// by Service (the check's slicesOf), addresses in non-canonical text included.
BOOST_AUTO_TEST_CASE(packed_slices_read_as_projected_slices) {
  for (unsigned seed = 1; seed <= 8; ++seed) replay(kSlices, seed, 150);
}

// The ServiceBGPStatus and ServiceL2Status caches: the node and Service of each report, by key
// and by Service (the check's truthOf and truthIndex).
BOOST_AUTO_TEST_CASE(packed_reports_read_as_projected_statuses) {
  for (unsigned seed = 11; seed <= 16; ++seed) {
    replay(kBgpReports, seed, 150);
    replay(kL2Reports, seed + 100, 150);
  }
}

// The Service cache: packed Services read back as the projected ones, by key and in order (the
// full pass's snapshot), whatever the fields the projection drops.
BOOST_AUTO_TEST_CASE(packed_services_read_as_projected_services) {
  for (unsigned seed = 31; seed <= 38; ++seed) replay(kServices, seed, 150);
}

// The informer's update filter: two packed versions are "the same" exactly when their
// projections are (sameProjectedService), for random pairs of versions of one Service.
BOOST_AUTO_TEST_CASE(packed_service_update_filter_is_the_projected_one) {
  Draw draw(41);
  for (int i = 0; i < 1000; ++i) {
    api::Service a = draw.service("prod", "web");
    api::Service b = draw.coin() ? a : draw.service("prod", "web");
    if (draw.coin()) {
      b = a;  // one field from another random version
      takeOneField(b, draw.service("prod", "web"), draw.upTo(15));
    }
    b.metadata.resource_version = "99";
    if (draw.coin()) b.spec.ports = {{"renamed", "TCP", 1, "9090", 31000}};
    const bool packed = samePackedService(packService(a), packService(b));
    projectService(a);
    projectService(b);
    BOOST_TEST(packed == sameProjectedService(a, b), "pair " << i);
  }
}

// A report is five words and two short strings, whatever the status carried.
BOOST_AUTO_TEST_CASE(a_report_keeps_node_and_service_only) {
  api::ServiceBGPStatus s;
  s.metadata.name = "web-n1";
  s.metadata.namespace_ = "metallb-system";
  s.metadata.uid = "u";
  s.metadata.resource_version = "3";
  s.status = {"n1", "web", "prod", {"peer-a", "peer-b"}};
  const PackedReport p = packBgpReport(s);
  BOOST_TEST(p.node == k8s::intern("n1"));
  BOOST_TEST(reportServiceKey(p) == "prod/web");
  BOOST_TEST((unpackBgpReport(p).status == api::ServiceBGPStatusStatus{"n1", "web", "prod", {}}));
}

BOOST_AUTO_TEST_SUITE_END()
