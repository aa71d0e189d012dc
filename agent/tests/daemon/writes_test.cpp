// SPDX-License-Identifier: Apache-2.0
#include "agent/reconcile/writes.h"

#include <boost/test/unit_test.hpp>

#include "api/codec.h"

namespace ingot::agent {
namespace {

BOOST_AUTO_TEST_CASE(service_bgp_status_object_carries_labels_owner_and_sorted_peers) {
  const auto status = bgpStatus("node1", "shop", "checkout", {"tor2", "tor1", "tor2"});
  BOOST_TEST(status.peers == (std::vector<std::string>{"tor1", "tor2"}),
             boost::test_tools::per_element());
  api::OwnerReference owner{"v1", "Pod", "speaker-abc", "uid-1", true, std::nullopt};
  auto obj =
      api::decodeJson<api::ServiceBGPStatus>(bgpStatusObject("metallb-system", status, owner));
  BOOST_REQUIRE(obj);
  BOOST_TEST(obj->metadata.generate_name.empty());
  BOOST_TEST(obj->metadata.name == "bgp-b09a3f409425c10eb8b2");  // sha256("node1#shop/checkout")
  BOOST_TEST(obj->metadata.namespace_ == "metallb-system");
  BOOST_TEST(obj->metadata.labels.at("metallb.io/node") == "node1");
  BOOST_TEST(obj->metadata.labels.at("metallb.io/service-name") == "checkout");
  BOOST_TEST(obj->metadata.labels.at("metallb.io/service-namespace") == "shop");
  BOOST_REQUIRE_EQUAL(obj->metadata.owner_references.size(), 1u);
  BOOST_TEST(obj->metadata.owner_references[0].name == "speaker-abc");
  BOOST_TEST((obj->status == status));
  auto no_owner = api::decodeJson<api::ServiceBGPStatus>(bgpStatusObject("ns", status, {}));
  BOOST_REQUIRE(no_owner);
  BOOST_TEST(no_owner->metadata.owner_references.empty());
}

// One name per (node, Service): the same inputs always give it, any other input another one, so
// a repeated create meets AlreadyExists and two nodes never share an object.
BOOST_AUTO_TEST_CASE(status_object_names_follow_from_node_and_service_only) {
  struct Case {
    const char* desc;
    std::string prefix, node, ns, name;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"bgp", "bgp-", "node1", "shop", "checkout", "bgp-b09a3f409425c10eb8b2"},
      {"another node", "bgp-", "node2", "shop", "checkout", "bgp-86f915bbc72c9c903c45"},
      {"another service", "bgp-", "node1", "shop", "cart", "bgp-59d132e3e96a9c2b7f4f"},
      {"l2", "l2-", "node1", "web", "a", "l2-8922f16a6fe2389978d1"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(statusObjectName(c.prefix, c.node, c.ns, c.name) == c.want);
    }
  }
  // "/" separates namespace and name, which cannot contain it: no two Services collide.
  BOOST_TEST(statusObjectName("l2-", "n", "a-b", "c") != statusObjectName("l2-", "n", "a", "b-c"));
}

BOOST_AUTO_TEST_CASE(service_bgp_status_patch_is_the_whole_status) {
  BOOST_TEST(
      bgpStatusPatch(bgpStatus("n", "ns", "svc", {"b", "a"})) ==
      R"({"status":{"node":"n","serviceName":"svc","serviceNamespace":"ns","peers":["a","b"]}})");
  BOOST_TEST(bgpStatusPatch(bgpStatus("n", "ns", "svc", {})) ==
             R"({"status":{"node":"n","serviceName":"svc","serviceNamespace":"ns","peers":[]}})");
}

BOOST_AUTO_TEST_CASE(service_l2_status_object_carries_labels_owner_and_sorted_interfaces) {
  const auto status = l2Status("node1", "shop", "web", {"eth1", "eth0", "eth1"});
  BOOST_TEST(status.interfaces == (std::vector<std::string>{"eth0", "eth1"}),
             boost::test_tools::per_element());
  api::OwnerReference owner{"v1", "Pod", "speaker-abc", "uid-1", true, std::nullopt};
  auto obj = api::decodeJson<api::ServiceL2Status>(l2StatusObject("metallb-system", status, owner));
  BOOST_REQUIRE(obj);
  BOOST_TEST(obj->metadata.generate_name.empty());
  BOOST_TEST(obj->metadata.name == "l2-dda5e359419f15fd7784");  // sha256("node1#shop/web")
  BOOST_TEST(obj->metadata.labels.at("metallb.io/node") == "node1");
  BOOST_TEST(obj->metadata.labels.at("metallb.io/service-name") == "web");
  BOOST_TEST(obj->metadata.labels.at("metallb.io/service-namespace") == "shop");
  BOOST_REQUIRE_EQUAL(obj->metadata.owner_references.size(), 1u);
  BOOST_TEST((obj->status == status));
  BOOST_TEST(l2StatusPatch(l2Status("n", "ns", "svc", {})) ==
             R"({"status":{"node":"n","serviceName":"svc","serviceNamespace":"ns",)"
             R"("interfaces":null}})");
}

struct StateCase {
  std::string desc;
  StateInputs in;
  std::string result;
  std::vector<std::string> conditions;  ///< "type status reason message"
  std::string summary;
};

BOOST_AUTO_TEST_CASE(configuration_state_reflects_config_and_frr_outcomes) {
  const config::ConfigError e1{"IPAddressPool",     "metallb-system", "a",
                               "spec.addresses[0]", "overlaps",       false};
  const config::ConfigError e2{"BGPPeer", "metallb-system", "p", "spec.myASN", "missing", false};
  const std::vector<StateCase> cases = {
      {"valid_frr_k8s",
       {{}, std::nullopt, std::nullopt},
       "Valid",
       {"configReconcilerValid True Reconciled "},
       ""},
      {"invalid_joins_every_error",
       {{e1, e2}, std::nullopt, std::nullopt},
       "Invalid",
       {"configReconcilerValid False ConfigurationError configuration error: IPAddressPool "
        "metallb-system/a spec.addresses[0]: overlaps\nBGPPeer metallb-system/p spec.myASN: "
        "missing"},
       "configuration error: IPAddressPool metallb-system/a spec.addresses[0]: overlaps\nBGPPeer "
       "metallb-system/p spec.myASN: missing"},
      {"frr_applied",
       {{}, std::string(), std::nullopt},
       "Valid",
       {"configReconcilerValid True Reconciled ", "frrReloadValid True Reconciled "},
       ""},
      {"frr_reload_failed_is_unknown_error_not_invalid_and_summarised",
       {{}, std::string("boom"), std::nullopt},
       "Valid",
       {"configReconcilerValid True Reconciled ", "frrReloadValid False UnknownError boom"},
       "boom"},
      {"frr_refused_a_peer_is_a_configuration_error",
       {{}, std::string("FRR refused BGPPeer p"), std::nullopt, std::nullopt, true},
       "Invalid",
       {"configReconcilerValid True Reconciled ",
        "frrReloadValid False ConfigurationError FRR refused BGPPeer p"},
       "FRR refused BGPPeer p"},
      {"parse_errors_and_frr_refusals_are_both_summarised",
       {{e2}, std::string("FRR refused BGPPeer q"), std::nullopt, std::nullopt, true},
       "Invalid",
       {"configReconcilerValid False ConfigurationError configuration error: BGPPeer "
        "metallb-system/p spec.myASN: missing",
        "frrReloadValid False ConfigurationError FRR refused BGPPeer q"},
       "configuration error: BGPPeer metallb-system/p spec.myASN: missing\nFRR refused BGPPeer "
       "q"},
      {"applied_after_a_refusal_is_clean",
       {{}, std::string(), std::nullopt, std::nullopt, true},
       "Valid",
       {"configReconcilerValid True Reconciled ", "frrReloadValid True Reconciled "},
       ""},
      {"layer2_responder_running",
       {{}, std::nullopt, std::string()},
       "Valid",
       {"configReconcilerValid True Reconciled ", "layer2ResponderValid True Reconciled "},
       ""},
      {"layer2_responder_failed_next_to_bgp",
       {{}, std::string(), std::string("no CAP_NET_RAW")},
       "Valid",
       {"configReconcilerValid True Reconciled ", "frrReloadValid True Reconciled ",
        "layer2ResponderValid False ResponderUnavailable no CAP_NET_RAW"},
       ""},
      {"unserved_bgp_peers_are_reported_not_invalid",
       {{}, std::nullopt, std::string(), std::string("BGPPeer tor not served: Layer 2 only")},
       "Valid",
       {"configReconcilerValid True Reconciled ", "layer2ResponderValid True Reconciled ",
        "bgpBackendValid False BGPNotAvailable BGPPeer tor not served: Layer 2 only"},
       ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto s = configurationStateStatus(c.in, "2024-05-01T12:00:00Z");
      BOOST_TEST(s.result == c.result);
      BOOST_TEST(s.error_summary == c.summary);
      std::vector<std::string> got;
      for (const auto& cond : s.conditions) {
        got.push_back(cond.type + " " + cond.status + " " + cond.reason + " " + cond.message);
        BOOST_TEST(cond.last_transition_time == "2024-05-01T12:00:00Z");
      }
      BOOST_TEST(got == c.conditions, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(configuration_state_object_is_named_and_labelled_for_the_node) {
  auto obj = api::decodeJson<api::ConfigurationState>(
      configurationStateObject("metallb-system", "node1", {"v1", "Pod", "sp", "u", true, {}}));
  BOOST_REQUIRE(obj);
  BOOST_TEST(obj->metadata.name == "speaker-node1");
  BOOST_TEST(obj->metadata.labels.at("metallb.io/component-type") == "speaker");
  BOOST_TEST(obj->metadata.labels.at("metallb.io/node-name") == "node1");
  BOOST_TEST(obj->metadata.owner_references.size() == 1u);
}

BOOST_AUTO_TEST_CASE(frrconfiguration_update_keeps_metadata_and_takes_the_desired_spec) {
  api::FRRConfiguration current;
  current.metadata.name = "metallb-node1";
  current.metadata.namespace_ = "metallb-system";
  current.metadata.resource_version = "42";
  current.metadata.labels = {{"team", "net"}};
  current.spec.node_selector.match_labels = {{"kubernetes.io/hostname", "other"}};
  api::FRRConfiguration desired;
  desired.spec.node_selector.match_labels = {{"kubernetes.io/hostname", "node1"}};
  auto body = api::decodeJson<api::FRRConfiguration>(frrConfigurationUpdate(current, desired));
  BOOST_REQUIRE(body);
  BOOST_TEST(body->metadata.resource_version == "42");
  BOOST_TEST(body->metadata.labels.at("team") == "net");
  BOOST_TEST((body->spec == desired.spec));
}

}  // namespace
}  // namespace ingot::agent
