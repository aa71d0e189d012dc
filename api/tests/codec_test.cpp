// SPDX-License-Identifier: Apache-2.0
#include "api/codec.h"

#include <boost/test/unit_test.hpp>

#include "api/tests/fixtures.h"
#include "common/json/json.h"

namespace api = ingot::api;
namespace fx = ingot::api::testing;

BOOST_AUTO_TEST_SUITE(codec)

BOOST_AUTO_TEST_CASE(every_kind_round_trips_through_json) {
  for (const auto& object : fx::allObjects()) {
    BOOST_TEST_CONTEXT(api::kindOf(object) << " " << api::apiVersionOf(object)) {
      const std::string json = api::encodeAny(object);
      const auto back = api::decodeAny(json);
      BOOST_REQUIRE_MESSAGE(back.has_value(), (back.has_value() ? "" : back.error().message));
      BOOST_TEST((*back == object));
      BOOST_TEST(api::encodeAny(*back) == json);
    }
  }
}

BOOST_AUTO_TEST_CASE(typed_entry_points_round_trip_and_agree_with_any) {
  const auto peer = fx::bgpPeer();
  const std::string json = api::encodeJson(peer);
  BOOST_TEST(json == api::encodeAny(peer));
  const auto back = api::decodeJson<api::BGPPeer>(json);
  BOOST_REQUIRE(back.has_value());
  BOOST_TEST((*back == peer));
  // Default-constructed objects round-trip too (everything omitted that can be).
  const auto empty = api::decodeJson<api::BGPPeer>(api::encodeJson(api::BGPPeer{}));
  BOOST_REQUIRE(empty.has_value());
  BOOST_TEST((*empty == api::BGPPeer{}));
}

BOOST_AUTO_TEST_CASE(encoding_uses_fixed_order_and_omits_empty_fields) {
  api::BGPPeer peer;
  peer.metadata.name = "p";
  peer.spec.my_asn = 64512;
  peer.spec.peer_address = "10.0.0.1";
  BOOST_TEST(api::encodeJson(peer) ==
             R"({"apiVersion":"metallb.io/v1beta2","kind":"BGPPeer","metadata":{"name":"p"},)"
             R"("spec":{"myASN":64512,"peerAddress":"10.0.0.1"}})");
  api::IPAddressPool pool;
  pool.metadata.name = "p";
  pool.spec.addresses = {"10.0.0.0/24"};
  pool.spec.auto_assign = false;
  BOOST_TEST(api::encodeJson(pool) ==
             R"({"apiVersion":"metallb.io/v1beta1","kind":"IPAddressPool","metadata":{"name":"p"},)"
             R"("spec":{"addresses":["10.0.0.0/24"],"autoAssign":false}})");
}

BOOST_AUTO_TEST_CASE(frr_neighbor_source_address_uses_the_lower_case_key) {
  const std::string json = api::encodeJson(fx::frrConfiguration());
  BOOST_TEST(json.find("\"sourceaddress\":\"172.18.0.2\"") != std::string::npos);
  BOOST_TEST(json.find("sourceAddress") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(decoding_reads_go_json_shapes) {
  const auto svc = api::decodeJson<api::Service>(R"({
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "web", "namespace": "default", "managedFields": [{"x": 1}],
                 "creationTimestamp": null},
    "spec": {"type": "LoadBalancer", "ports": [{"port": 80, "targetPort": 8080},
                                               {"port": 53, "protocol": "UDP", "targetPort": "dns"}],
             "sessionAffinity": "None", "externalTrafficPolicy": "Cluster"},
    "status": {"loadBalancer": {"ingress": [{"ip": "192.168.1.1", "ports": []}]}}})");
  BOOST_REQUIRE_MESSAGE(svc.has_value(), (svc.has_value() ? "" : svc.error().message));
  BOOST_TEST(svc->spec.ports.size() == 2u);
  BOOST_TEST(svc->spec.ports[0].protocol == "TCP");  // Kubernetes default
  BOOST_TEST(svc->spec.ports[0].target_port == "8080");
  BOOST_TEST(svc->spec.ports[1].target_port == "dns");
  BOOST_TEST(svc->status.ingress[0].ip == "192.168.1.1");
  BOOST_TEST(svc->metadata.creation_timestamp.empty());

  const auto peer = api::decodeJson<api::BGPPeer>(
      R"({"spec": {"myASN": 1, "peerASN": 2, "holdTime": "1m", "passwordSecret": {}}, "status": {}})");
  BOOST_REQUIRE(peer.has_value());
  BOOST_TEST(peer->spec.hold_time->nanoseconds == 60000000000);
  BOOST_TEST(peer->spec.hold_time->text == "1m");
  BOOST_TEST(peer->spec.password_secret.has_value());
}

BOOST_AUTO_TEST_CASE(decoding_errors_name_the_field) {
  struct Case {
    std::string desc;
    std::string json;
    std::string want;  // substring of the error
  };
  const std::vector<Case> cases = {
      {"string where int", R"({"spec": {"myASN": "64512"}})",
       "spec.myASN: expected number, got string"},
      {"negative uint", R"({"spec": {"myASN": -1}})",
       "spec.myASN: value -1 is out of range for uint32"},
      {"2^40 for uint32", R"({"spec": {"peerASN": 1099511627776}})",
       "spec.peerASN: value 1099511627776 is out of range for uint32"},
      {"float for int", R"({"spec": {"myASN": 1.5}})",
       "spec.myASN: expected an integer (uint32), got 1.5"},
      {"port over uint16", R"({"spec": {"peerPort": 70000}})",
       "spec.peerPort: value 70000 is out of range for uint16"},
      {"bad duration", R"({"spec": {"holdTime": "90"}})",
       "spec.holdTime: time: missing unit in duration \"90\""},
      {"duration as number", R"({"spec": {"holdTime": 90}})",
       "spec.holdTime: expected string, got number 90"},
      {"unknown spec field", R"({"spec": {"myAsn": 1}})", "spec.myAsn: unknown field \"myAsn\""},
      {"unknown top-level field", R"({"sepc": {}})", "sepc: unknown field \"sepc\""},
      {"unknown metadata field", R"({"metadata": {"nmae": "x"}})", "metadata.nmae: unknown field"},
      {"unknown selector field", R"({"spec": {"nodeSelectors": [{"matchLabel": {}}]}})",
       "spec.nodeSelectors[0].matchLabel: unknown field"},
      {"selector list not a list", R"({"spec": {"nodeSelectors": {"a": "b"}}})",
       "spec.nodeSelectors: expected array, got object"},
      {"label value not a string", R"({"metadata": {"labels": {"a": true}}})",
       "metadata.labels[a]: expected string, got boolean"},
      {"wrong kind", R"({"apiVersion": "metallb.io/v1beta2", "kind": "BGPAdvertisement"})",
       "kind: expected \"BGPPeer\", got \"BGPAdvertisement\""},
      {"wrong version", R"({"apiVersion": "metallb.io/v1beta1", "kind": "BGPPeer"})",
       "apiVersion: expected \"metallb.io/v1beta2\""},
      {"status with fields", R"({"status": {"x": 1}})", "status.x: unknown field"},
      {"not an object", R"([1, 2])", "expected object, got array"},
      {"null document", "null", "expected object, got null"},
      {"bad json", R"({"spec": )", "line 1, column 10"},
      {"duplicate field", R"({"spec": {"myASN": 1, "myASN": 2}})", "spec.myASN: duplicate field"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto got = api::decodeJson<api::BGPPeer>(c.json);
      BOOST_REQUIRE(!got.has_value());
      BOOST_TEST(got.error().message.find(c.want) != std::string::npos, got.error().message);
    }
  }
}

BOOST_AUTO_TEST_CASE(core_kinds_ignore_unknown_fields_but_check_known_ones) {
  BOOST_TEST(
      api::decodeJson<api::Node>(
          R"({"spec": {"podCIDR": "10.0.0.0/24", "taints": []}, "status": {"nodeInfo": {}}})")
          .has_value());
  const auto bad = api::decodeJson<api::Node>(R"({"spec": {"unschedulable": "yes"}})");
  BOOST_REQUIRE(!bad.has_value());
  BOOST_TEST(bad.error().message == "spec.unschedulable: expected boolean, got string");
}

// Drain-awareness reads spec.taints; a Node round-trips them.
BOOST_AUTO_TEST_CASE(node_reads_taints) {
  const auto node = api::decodeJson<api::Node>(
      R"({"metadata": {"name": "n1"}, "spec": {"unschedulable": true, "taints": [
          {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
          {"key": "example.com/maintenance", "value": "kernel", "effect": "NoExecute"}]}})");
  BOOST_REQUIRE(node.has_value());
  BOOST_REQUIRE(node->taints.size() == 2u);
  BOOST_TEST(node->taints[0].key == "node.kubernetes.io/unschedulable");
  BOOST_TEST(node->taints[1].value == "kernel");
  BOOST_TEST(node->taints[1].effect == "NoExecute");
  const auto again = api::decodeJson<api::Node>(api::encodeJson(*node));
  BOOST_REQUIRE(again.has_value());
  BOOST_TEST((again->taints == node->taints));
}

// The agent's memberlist seeds come from status.podIP; a Pod round-trips those fields.
BOOST_AUTO_TEST_CASE(pod_reads_node_phase_and_addresses) {
  const auto pod = api::decodeJson<api::Pod>(
      R"({"metadata": {"name": "speaker-a", "namespace": "metallb-system",
          "labels": {"app": "metallb"}},
          "spec": {"nodeName": "n1", "containers": []},
          "status": {"phase": "Running", "podIP": "10.0.0.5",
                     "podIPs": [{"ip": "10.0.0.5"}, {"ip": "fd00::5"}],
                     "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": null},
                                    {"type": "PodScheduled", "status": "True"}]}})");
  BOOST_REQUIRE(pod.has_value());
  BOOST_TEST(pod->ready);  // the controller's liveness of an agent
  BOOST_TEST(pod->node_name == "n1");
  BOOST_TEST(pod->phase == "Running");
  BOOST_TEST(pod->pod_ip == "10.0.0.5");
  BOOST_TEST(pod->pod_ips == (std::vector<std::string>{"10.0.0.5", "fd00::5"}),
             boost::test_tools::per_element());
  BOOST_TEST(pod->metadata.labels.at("app") == "metallb");
  const auto back = api::decodeJson<api::Pod>(api::encodeJson(*pod));
  BOOST_REQUIRE(back.has_value());
  BOOST_TEST((*back == *pod));
  const auto unready = api::decodeJson<api::Pod>(
      R"({"status": {"conditions": [{"type": "Ready", "status": "False"}]}})");
  BOOST_REQUIRE(unready.has_value());
  BOOST_TEST(!unready->ready);
  const auto bad = api::decodeJson<api::Pod>(R"({"status": {"podIP": 5}})");
  BOOST_REQUIRE(!bad.has_value());
  BOOST_TEST(bad.error().message.find("status.podIP") != std::string::npos, bad.error().message);
}

BOOST_AUTO_TEST_CASE(decode_any_dispatches_on_api_version_and_kind) {
  struct Case {
    std::string json;
    std::string kind;  // "" = error
  };
  const std::vector<Case> cases = {
      {R"({"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer"})", "BGPPeer"},
      {R"({"apiVersion": "metallb.io/v1beta1", "kind": "BGPPeer"})", "BGPPeer"},
      {R"({"apiVersion": "frrk8s.metallb.io/v1beta1", "kind": "FRRConfiguration"})",
       "FRRConfiguration"},
      {R"({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice"})", "EndpointSlice"},
      {R"({"apiVersion": "apps/v1", "kind": "Deployment"})", ""},
      {R"({"kind": "Service"})", ""},
      {R"("text")", ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.json) {
      const auto got = api::decodeAny(c.json);
      BOOST_TEST(got.has_value() == !c.kind.empty());
      if (got.has_value()) {
        BOOST_TEST(api::kindOf(*got) == c.kind);
      }
    }
  }
  const auto v1 = api::decodeAny(R"({"apiVersion": "metallb.io/v1beta1", "kind": "BGPPeer"})");
  BOOST_TEST(std::holds_alternative<api::BGPPeerV1beta1>(*v1));
}

BOOST_AUTO_TEST_CASE(int_or_string_target_port_keeps_its_type) {
  auto svc = fx::service();
  svc.spec.ports = {{"a", "TCP", 80, "8080", 0},
                    {"b", "TCP", 81, "http", 0},
                    {"c", "TCP", 82, "08080", 0},
                    {"d", "TCP", 83, "99999999999", 0}};
  const std::string json = api::encodeJson(svc);
  BOOST_TEST(json.find(R"("targetPort":8080)") != std::string::npos);
  BOOST_TEST(json.find(R"("targetPort":"http")") != std::string::npos);
  BOOST_TEST(json.find(R"("targetPort":"08080")") != std::string::npos);
  BOOST_TEST(json.find(R"("targetPort":"99999999999")") != std::string::npos);
  BOOST_TEST((*api::decodeJson<api::Service>(json) == svc));
}

BOOST_AUTO_TEST_SUITE_END()
