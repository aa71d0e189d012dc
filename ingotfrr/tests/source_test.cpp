// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/source.h"

#include <boost/test/unit_test.hpp>

#include "common/json/json.h"

namespace ingot::ingotfrr {
namespace {

std::string frrNs() {
  return "frr-k8s-system";
}

/// config returns an FRRConfiguration's JSON selecting `node` (none: every node).
std::string config(const std::string& name,
                   const std::string& node,
                   const std::string& bgp,
                   const std::string& extra_spec = "") {
  const std::string selector =
      node.empty()
          ? ""
          : R"("nodeSelector":{"matchLabels":{"kubernetes.io/hostname":")" + node + R"("}},)";
  return R"({"apiVersion":"frrk8s.metallb.io/v1beta1","kind":"FRRConfiguration",)"
         R"("metadata":{"name":")" +
         name + R"(","namespace":")" + frrNs() + R"("},"spec":{)" + selector + extra_spec +
         R"("bgp":)" + bgp + "}}";
}

/// metallb is what Ingot's agent (and MetalLB's speaker) writes for one node: one router, one
/// neighbor with port 179 and the prefix in allowed.prefixes and the router's prefixes.
std::string metallb(const std::string& node, const std::string& prefix) {
  return config("metallb-" + node, node,
                R"({"routers":[{"asn":64513,"neighbors":[{"address":"10.0.0.1","asn":64512,)"
                R"("port":179,"toAdvertise":{"allowed":{"prefixes":[")" +
                    prefix + R"("]}}}],"prefixes":[")" + prefix + R"("]}]})");
}

std::string neighbor(const std::string& fields) {
  return R"({"routers":[{"asn":64513,"neighbors":[{"address":"10.0.0.1",)" + fields + "}]}]}";
}

api::Secret secret(const std::string& name, const std::string& type) {
  api::Secret s;
  s.metadata.name = name;
  s.metadata.namespace_ = frrNs();
  s.type = type;
  s.data["password"] = "c2VjcmV0";  // "secret"
  return s;
}

struct Case {
  std::string desc;
  std::vector<std::string> objects;
  std::vector<api::Secret> secrets;
  std::string error;  ///< expected substring; "" = success
  std::vector<std::string> selected;
  std::function<void(const frrgen::Model&)> check;
};

std::vector<Case> cases() {
  const std::string basic = R"("asn":64512)";
  return {
      {"MetalLB's object for this node",
       {metallb("node1", "192.0.2.1/32")},
       {},
       "",
       {frrNs() + "/metallb-node1"},
       [](const frrgen::Model& m) {
         BOOST_TEST_REQUIRE(m.routers.size() == 1u);
         BOOST_TEST(m.routers[0].prefixes_v4 == std::vector<std::string>{"192.0.2.1/32"});
         BOOST_TEST(m.routers[0].neighbors.at(0).outgoing_v4.size() == 1u);
       }},
      {"another node's object is not selected",
       {metallb("node2", "192.0.2.2/32")},
       {},
       "",
       {},
       [](const frrgen::Model& m) { BOOST_TEST(m.routers.empty()); }},
      {"several objects merge: prefixes unioned, toReceive widened",
       {metallb("node1", "192.0.2.1/32"),
        config("user", "",
               neighbor(R"("asn":64512,"toReceive":{"allowed":{"mode":"filtered","prefixes":)"
                        R"([{"prefix":"10.1.0.0/16","le":24}]}})")),
        config("user-all", "node1",
               neighbor(R"("asn":64512,"toReceive":{"allowed":{"mode":"all"}})"))},
       {},
       "",
       {frrNs() + "/metallb-node1", frrNs() + "/user", frrNs() + "/user-all"},
       [](const frrgen::Model& m) {
         BOOST_TEST_REQUIRE(m.routers.at(0).neighbors.size() == 1u);
         BOOST_TEST(m.routers[0].neighbors[0].receive_all);
         BOOST_TEST(m.routers[0].neighbors[0].outgoing_v4.size() == 1u);
       }},
      {"conflicting peer ASN",
       {metallb("node1", "192.0.2.1/32"), config("user", "", neighbor(R"("asn":65000)"))},
       {},
       "multiple asns",
       {},
       nullptr},
      {"raw snippets are appended as frr-k8s does: by priority, then by name",
       {config("b-late", "node1", R"({"routers":[]})",
               R"("raw":{"priority":5,"rawConfig":"! b-late"},)"),
        config("a-late", "", R"({"routers":[]})",
               R"("raw":{"priority":5,"rawConfig":"! a-late"},)"),
        config("z-early", "node1", R"({"routers":[]})", R"("raw":{"rawConfig":"! z-early"},)")},
       {},
       "",
       {frrNs() + "/b-late", frrNs() + "/a-late", frrNs() + "/z-early"},
       [](const frrgen::Model& m) {
         BOOST_TEST(m.raw_config == "! z-early\n! a-late\n! b-late\n");
       }},
      {"evpn (newer frr-k8s) is refused",
       {config("evpn", "", R"({"routers":[{"asn":64513,"evpn":{"advertiseVNIs":"All"}}]})")},
       {},
       "spec.bgp.routers[0].evpn: not implemented",
       {},
       nullptr},
      {"nextHop is refused",
       {config("nh", "", neighbor(basic + R"(,"toAdvertise":{"nextHop":{"ipv4":"1.2.3.4"}})"))},
       {},
       "neighbors[0].toAdvertise.nextHop",
       {},
       nullptr},
      {"undecodable object selecting this node",
       {config("bad", "node1", neighbor(basic + R"(,"holdTime":"soon","keepaliveTime":"1s")"))},
       {},
       "FRRConfiguration frr-k8s-system/bad: does not decode",
       {},
       nullptr},
      {"undecodable object for another node is ignored",
       {metallb("node1", "192.0.2.1/32"), config("bad", "node2", R"({"routers":"x"})")},
       {},
       "",
       {frrNs() + "/metallb-node1"},
       nullptr},
      {"undecodable object with an unreadable selector counts as selecting",
       {R"({"metadata":{"name":"odd","namespace":"frr-k8s-system"},"spec":{"nodeSelector":)"
        R"({"matchExpressions":[]},"bgp":7}})"},
       {},
       "frr-k8s-system/odd",
       {},
       nullptr},
      {"not JSON", {"{"}, {}, "not JSON", {}, nullptr},
      {"missing Secret",
       {config("pw", "", neighbor(basic + R"(,"passwordSecret":{"name":"s"})"))},
       {},
       "s",
       {},
       nullptr},
      {"Secret of the wrong type",
       {config("pw", "", neighbor(basic + R"(,"passwordSecret":{"name":"s"})"))},
       {secret("s", "Opaque")},
       "basic-auth",
       {},
       nullptr},
      {"Secret resolved",
       {config("pw", "", neighbor(basic + R"(,"passwordSecret":{"name":"s"})"))},
       {secret("s", "kubernetes.io/basic-auth")},
       "",
       {frrNs() + "/pw"},
       [](const frrgen::Model& m) {
         BOOST_TEST(m.routers.at(0).neighbors.at(0).password == "secret");
       }},
      {"timers equal to frr-k8s' defaults are kept (frr-k8s drops hold 90 with keepalive 60)",
       {config("t", "",
               neighbor(basic + R"(,"holdTime":"90s","keepaliveTime":"60s",)"
                                R"("connectTime":"60s")"))},
       {},
       "",
       {frrNs() + "/t"},
       [](const frrgen::Model& m) {
         const auto& n = m.routers.at(0).neighbors.at(0);
         BOOST_TEST(n.hold_time.value_or(0) == 90u);
         BOOST_TEST(n.keepalive_time.value_or(0) == 60u);
         BOOST_TEST(n.connect_time.value_or(0) == 60u);
       }},
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(source)

BOOST_AUTO_TEST_CASE(select_refuse_and_merge) {
  const api::StringMap labels{{"kubernetes.io/hostname", "node1"}};
  for (const auto& c : cases()) {
    BOOST_TEST_CONTEXT(c.desc) {
      std::vector<Entry> entries;
      for (const auto& o : c.objects) {
        entries.push_back(decodeEntry(o));
      }
      auto got = desiredFor(entries, c.secrets, frrNs(), labels);
      if (!c.error.empty()) {
        BOOST_TEST_REQUIRE(!got.has_value());
        BOOST_TEST(got.error().message.find(c.error) != std::string::npos, got.error().message);
        continue;
      }
      BOOST_TEST_REQUIRE(got.has_value(), (got ? std::string() : got.error().message));
      BOOST_TEST(got->selected == c.selected, boost::test_tools::per_element());
      if (c.check) {
        c.check(got->model);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_missing_secret_is_transient) {
  auto e = decodeEntry(config("pw", "", neighbor(R"("asn":64512,"passwordSecret":{"name":"s"})")));
  auto got = desiredFor({e}, {}, frrNs(), {});
  BOOST_TEST_REQUIRE(!got.has_value());
  BOOST_TEST(static_cast<int>(got.error().code) == static_cast<int>(ErrorCode::Transient));
}

BOOST_AUTO_TEST_CASE(unsupported_fields_table) {
  struct Row {
    std::string json;
    std::vector<std::string> want;
  };
  const std::vector<Row> rows{
      {R"({"spec":{"raw":{"rawConfig":""}}})", {}},
      {R"({"spec":{"raw":{"priority":5}}})", {}},
      {R"({"spec":{"raw":{"rawConfig":"x"}}})", {}},  // implemented as in frr-k8s
      {R"({"spec":{"bgp":{"routers":[{"neighbors":[{},{"addressFamilies":["unicast"]}]}]}}})",
       {"spec.bgp.routers[0].neighbors[1].addressFamilies"}},
      {R"({"spec":{"bgp":{"routers":[{"evpn":{}},{"neighbors":[{"toAdvertise":{"nextHop":{}}}]}]}}})",
       {"spec.bgp.routers[0].evpn", "spec.bgp.routers[1].neighbors[0].toAdvertise.nextHop"}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.json) {
      auto tree = json::parse(r.json);
      BOOST_TEST_REQUIRE(tree.has_value());
      auto got = unsupportedFields(*tree);
      BOOST_TEST_REQUIRE(got.size() == r.want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        BOOST_TEST(got[i].rfind(r.want[i] + ":", 0) == 0u, got[i]);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::ingotfrr
