// SPDX-License-Identifier: Apache-2.0
// Tests of the index functions of the unannounced check's caches: the Service key each
// EndpointSlice, ServiceL2Status and ServiceBGPStatus is indexed under. A Service's check looks
// up only the objects under its key, so for every object and Service the key must match exactly
// when the full scan it replaces (agent::sliceOfService, the status's service fields) would
// have taken the object.
#include <boost/test/unit_test.hpp>

#include "agent/core/predicates.h"
#include "controller/core/unannounced.h"

namespace {

using namespace ingot;
using namespace ingot::controller;

api::EndpointSlice slice(const std::string& ns, const api::StringMap& labels) {
  api::EndpointSlice s;
  s.metadata.namespace_ = ns;
  s.metadata.name = "slice-" + std::to_string(labels.size());
  s.metadata.labels = labels;
  return s;
}

api::Service service(const std::string& ns, const std::string& name) {
  api::Service s;
  s.metadata.namespace_ = ns;
  s.metadata.name = name;
  return s;
}

struct SliceCase {
  std::string ns;
  api::StringMap labels;
  std::string key;
};

BOOST_AUTO_TEST_CASE(slice_index_is_the_service_label) {
  const std::vector<SliceCase> cases = {
      {"apps", {{"kubernetes.io/service-name", "web"}}, "apps/web"},
      {"apps",
       {{"kubernetes.io/service-name", "web"}, {"endpointslice.kubernetes.io/managed-by", "x"}},
       "apps/web"},
      {"db", {{"kubernetes.io/service-name", "web"}}, "db/web"},
      {"apps", {{"kubernetes.io/service-name", ""}}, ""},
      {"apps", {{"app", "web"}}, ""},
      {"apps", {}, ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.ns << " " << c.labels.size() << " labels") {
      BOOST_TEST(sliceServiceKey(slice(c.ns, c.labels)) == c.key);
    }
  }
}

BOOST_AUTO_TEST_CASE(slice_index_agrees_with_the_scan) {
  const std::vector<api::Service> services = {service("apps", "web"), service("apps", "db"),
                                              service("db", "web")};
  const std::vector<api::EndpointSlice> slices = {
      slice("apps", {{"kubernetes.io/service-name", "web"}}),
      slice("apps", {{"kubernetes.io/service-name", "db"}}),
      slice("db", {{"kubernetes.io/service-name", "web"}}),
      slice("db", {{"kubernetes.io/service-name", "other"}}),
      slice("apps", {{"app", "web"}}),
  };
  for (const auto& svc : services) {
    const std::string key = svc.metadata.namespace_ + "/" + svc.metadata.name;
    for (const auto& s : slices) {
      BOOST_TEST_CONTEXT(key << " slice in " << s.metadata.namespace_ << " "
                             << sliceServiceKey(s)) {
        BOOST_TEST((sliceServiceKey(s) == key) == agent::sliceOfService(s, svc));
      }
    }
  }
}

struct StatusCase {
  std::string ns;
  std::string name;
  std::string key;
};

BOOST_AUTO_TEST_CASE(status_index_is_the_service_the_status_names) {
  const std::vector<StatusCase> cases = {
      {"apps", "web", "apps/web"},
      {"db", "web", "db/web"},
      {"", "web", "web"},
      {"apps", "", ""},
      {"", "", ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.ns << "/" << c.name) {
      api::ServiceL2Status l2;
      l2.metadata.namespace_ = "metallb-system";
      l2.metadata.labels = {{"metallb.io/service-name", "elsewhere"}};
      l2.status.service_namespace = c.ns;
      l2.status.service_name = c.name;
      l2.status.node = "node1";
      api::ServiceBGPStatus bgp;
      bgp.metadata.namespace_ = "metallb-system";
      bgp.status.service_namespace = c.ns;
      bgp.status.service_name = c.name;
      bgp.status.node = "node2";
      BOOST_TEST(l2StatusServiceKey(l2) == c.key);
      BOOST_TEST(bgpStatusServiceKey(bgp) == c.key);
    }
  }
}

}  // namespace
