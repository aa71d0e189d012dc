// SPDX-License-Identifier: Apache-2.0
// The reconciler against hand-filled stores and the fake API client: debounce, FRRConfiguration
// writes, ServiceBGPStatus, Events, ConfigurationState and the frr-mode loop.
#include <boost/test/unit_test.hpp>

#include "agent/backends/backend_l2.h"
#include "agent/reconcile/writes.h"
#include "agent/tests/daemon/fixtures.h"
#include "api/codec.h"
#include "frrgen/served.h"

namespace ingot::agent {
namespace {

using testing::contains;
using testing::DesiredProbe;
using testing::firstPass;
using testing::Harness;
using testing::node1;
using testing::startWithL2Service;
using testing::TempFile;

/// bgpStatusPatches returns the status patches of ServiceBGPStatus objects (named bgp-…).
std::vector<k8s::testing::Write> bgpStatusPatches(const Harness& h) {
  std::vector<k8s::testing::Write> out;
  for (const auto& w : h.writes("patchStatus")) {
    if (w.name.rfind("bgp-", 0) == 0) {
      out.push_back(w);
    }
  }
  return out;
}

std::vector<k8s::testing::Write> frrWrites(const Harness& h) {
  std::vector<k8s::testing::Write> out;
  for (const auto& w : h.api.writes()) {
    if ((w.verb == "create" || w.verb == "update") && contains(w.body, "\"FRRConfiguration\"")) {
      out.push_back(w);
    }
  }
  return out;
}

BOOST_AUTO_TEST_CASE(first_desired_configuration_is_written_at_once) {
  Harness h(node1());
  firstPass(h);
  const auto writes = frrWrites(h);
  BOOST_REQUIRE_EQUAL(writes.size(), 1u);
  BOOST_TEST(writes[0].verb == "create");
  BOOST_TEST(writes[0].ns == "metallb-system");
  BOOST_TEST(contains(writes[0].body, "\"name\":\"metallb-node1\""));
  BOOST_TEST(h.metrics.frrConfigurationWrites() == 1u);
}

api::IPAddressPool overlappingPool() {
  api::IPAddressPool bad;
  bad.metadata.name = "bad";
  bad.metadata.namespace_ = "metallb-system";
  bad.spec.addresses = {"198.51.100.0/25"};
  return bad;
}

BOOST_AUTO_TEST_CASE(nothing_is_written_for_bgp_before_a_configuration_parses) {
  Harness h(node1());
  const TempFile file(testing::examples());
  testing::loadInto(h, file.path());
  testing::World::upsert(h.world.pools, overlappingPool());
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(frrWrites(h).empty());
  BOOST_TEST(h.writes("remove").empty());
  BOOST_TEST(!h.desired().has_value());
  BOOST_TEST(!h.reconciler.ready());
  const auto patches = h.writes("patchStatus");
  BOOST_REQUIRE(!patches.empty());
  BOOST_TEST(patches.back().name == "speaker-node1");
  BOOST_TEST(contains(patches.back().body, "\"result\":\"Invalid\""));
  BOOST_TEST(contains(patches.back().body, "\"reason\":\"ConfigurationError\""));
  BOOST_TEST(contains(patches.back().body, "configuration error: "));
  BOOST_TEST(contains(h.metrics.render(), "metallb_k8s_client_config_stale_bool 1"));
}

BOOST_AUTO_TEST_CASE(cooldown_coalesces_a_burst_into_one_write) {
  Harness h(node1());
  firstPass(h);
  const std::string first = frrWrites(h).at(0).body;
  // The live object as the server holds it now.
  h.api.gets.push_back(first);
  // Two changes in a row: the checkout Service goes away, then its endpoints do.
  h.world.services.erase("shop/checkout");
  h.queue.add(std::string(keys::kSync));
  h.drain();
  h.world.endpoint_slices.erase("shop/checkout-abcde");
  h.queue.add(std::string(keys::kSync));
  h.drain();
  BOOST_TEST(frrWrites(h).size() == 1u);  // still only the first: the cool-down holds the change
  BOOST_TEST(h.queue.delayedLen() == 1u);
  // The first write cost nothing on the fake clock: the cool-down is its 20 ms floor.
  h.clock.advance(std::chrono::milliseconds(19));
  h.drain();
  BOOST_TEST(frrWrites(h).size() == 1u);
  h.clock.advance(std::chrono::milliseconds(1));
  h.drain();
  const auto writes = frrWrites(h);
  BOOST_REQUIRE_EQUAL(writes.size(), 2u);
  BOOST_TEST(writes[1].verb == "update");
  BOOST_TEST(!contains(writes[1].body, "198.51.100.0/32"));
}

BOOST_AUTO_TEST_CASE(frrconfiguration_equal_to_the_cache_is_not_touched) {
  Harness h(node1());
  firstPass(h);
  testing::World::upsert(h.world.frr_configurations, *h.desired());
  const size_t writes = h.api.writes().size();
  const int gets = h.api.getCalls();
  h.queue.add(std::string(keys::kBgp));
  h.drain();
  BOOST_TEST(h.api.writes().size() == writes);
  BOOST_TEST(h.api.getCalls() == gets);
}

BOOST_AUTO_TEST_CASE(frrconfiguration_with_server_defaults_is_not_rewritten) {
  Harness h(node1());
  firstPass(h);
  // What the API server stores: the CRD defaults filled in, MetalLB's empty structs present.
  api::FRRConfiguration stored = *h.desired();
  stored.spec = frrgen::servedSpec(stored.spec);
  stored.metadata.resource_version = "8";
  BOOST_TEST_REQUIRE(!(stored.spec == h.desired()->spec));
  testing::World::upsert(h.world.frr_configurations, stored, "8");
  const size_t writes = h.api.writes().size();
  const int gets = h.api.getCalls();
  for (int pass = 0; pass < 3; ++pass) {
    h.queue.add(std::string(keys::kBgp));
    h.drain();
  }
  BOOST_TEST(h.api.writes().size() == writes);
  BOOST_TEST(h.api.getCalls() == gets);
}

/// withoutSessions is the examples with node1 selected by no BGPPeer and, unless keep_bfd, no
/// BFDProfile.
std::string withoutSessions(bool keep_bfd) {
  std::string yaml = testing::replaced(testing::examples(),
                                       "    ingot.example/bgp-speaker: \"true\"\n"
                                       "    ingot.example/l2-speaker",
                                       "    ingot.example/l2-speaker");
  if (keep_bfd) {
    return yaml;
  }
  yaml = testing::replaced(yaml, "  bfdProfile: fast\n", "");
  return testing::replaced(yaml,
                           "apiVersion: metallb.io/v1beta1\n"
                           "kind: BFDProfile\n"
                           "metadata:\n"
                           "  name: fast\n"
                           "  namespace: metallb-system\n"
                           "spec:\n"
                           "  receiveInterval: 100\n"
                           "  transmitInterval: 100\n"
                           "  detectMultiplier: 3\n"
                           "  echoMode: false\n"
                           "  passiveMode: false\n"
                           "---\n",
                           "");
}

BOOST_AUTO_TEST_CASE(a_node_without_sessions_and_profiles_has_no_frrconfiguration) {
  Harness h(node1());
  firstPass(h, withoutSessions(false));
  BOOST_REQUIRE(h.desired().has_value());
  BOOST_TEST(frrWrites(h).empty());
  BOOST_TEST(h.writes("remove").empty());  // nothing in the cache: nothing to delete
  // One that exists (left by an earlier configuration) is deleted.
  api::FRRConfiguration old;
  old.metadata.name = "metallb-node1";
  old.metadata.namespace_ = "metallb-system";
  old.spec.node_selector.match_labels = {{"kubernetes.io/hostname", "node1"}};
  testing::World::upsert(h.world.frr_configurations, old, "3");
  h.queue.add(std::string(keys::kBgp));
  h.drain();
  const auto removes = h.writes("remove");
  BOOST_REQUIRE_EQUAL(removes.size(), 1u);
  BOOST_TEST(removes[0].name == "metallb-node1");
  BOOST_TEST(removes[0].ns == "metallb-system");
  BOOST_TEST(frrWrites(h).empty());
}

BOOST_AUTO_TEST_CASE(a_node_with_only_bfd_profiles_still_gets_its_frrconfiguration) {
  Harness h(node1());
  firstPass(h, withoutSessions(true));
  const auto writes = frrWrites(h);
  BOOST_REQUIRE_EQUAL(writes.size(), 1u);
  BOOST_TEST(contains(writes[0].body, "\"bfdProfiles\""));
  BOOST_TEST(!contains(writes[0].body, "\"routers\""));
}

BOOST_AUTO_TEST_CASE(an_edited_frrconfiguration_is_restored) {
  Harness h(node1());
  firstPass(h);
  api::FRRConfiguration edited = *h.desired();
  edited.spec.bfd_profiles.clear();
  edited.metadata.resource_version = "7";
  testing::World::upsert(h.world.frr_configurations, edited, "7");
  h.api.gets.push_back(api::encodeJson(edited));
  h.queue.add(std::string(keys::kBgp));
  h.drain();
  const auto writes = frrWrites(h);
  BOOST_REQUIRE_EQUAL(writes.size(), 2u);
  BOOST_TEST(writes[1].verb == "update");
  auto body = api::decodeJson<api::FRRConfiguration>(writes[1].body);
  BOOST_REQUIRE(body);
  BOOST_TEST((body->spec == h.desired()->spec));
  BOOST_TEST(body->metadata.resource_version == "7");
}

BOOST_AUTO_TEST_CASE(announced_service_gets_one_service_bgp_status_and_one_event) {
  Harness h(node1());
  firstPass(h);
  const auto creates = h.writes("create");
  const auto status_create = std::find_if(creates.begin(), creates.end(), [](const auto& w) {
    return contains(w.body, "\"ServiceBGPStatus\"");
  });
  BOOST_REQUIRE(status_create != creates.end());
  const std::string name = statusObjectName("bgp-", "node1", "shop", "checkout");
  BOOST_TEST(contains(status_create->body, "\"name\":\"" + name + "\""));
  BOOST_TEST(contains(status_create->body, "\"metallb.io/node\":\"node1\""));
  BOOST_TEST(contains(status_create->body, "\"metallb.io/service-name\":\"checkout\""));
  BOOST_TEST(contains(status_create->body, "\"metallb.io/service-namespace\":\"shop\""));
  const auto patches = bgpStatusPatches(h);
  BOOST_REQUIRE(!patches.empty());
  BOOST_TEST(patches[0].name == name);
  BOOST_TEST(
      patches[0].body ==
      R"({"status":{"node":"node1","serviceName":"checkout","serviceNamespace":"shop","peers":["tor1"]}})");
  BOOST_REQUIRE_EQUAL(h.events.events.size(), 1u);
  BOOST_TEST(h.events.events[0].reason == "nodeAssigned");
  BOOST_TEST(h.events.events[0].message == "announcing from node \"node1\" with protocol \"bgp\"");
  BOOST_TEST(h.events.events[0].object.kind == "Service");
  // Another pass with nothing changed: no new write, no new Event.
  const size_t writes = h.api.writes().size();
  h.queue.add(std::string(keys::kSync));
  h.drain();
  BOOST_TEST(h.api.writes().size() == writes);
  BOOST_TEST(h.events.events.size() == 1u);
}

BOOST_AUTO_TEST_CASE(service_bgp_status_is_updated_and_deleted) {
  Harness h(node1());
  api::ServiceBGPStatus old;
  old.metadata.name = "bgp-old";
  old.metadata.namespace_ = "metallb-system";
  old.metadata.labels = {{"metallb.io/node", "node1"},
                         {"metallb.io/service-name", "checkout"},
                         {"metallb.io/service-namespace", "shop"}};
  old.status = {"node1", "checkout", "shop", {"tor0"}};
  testing::World::upsert(h.world.bgp_statuses, old);
  firstPass(h);
  BOOST_TEST(h.writes("create").size() == 2u);  // the ConfigurationState and FRRConfiguration
  auto patches = bgpStatusPatches(h);
  BOOST_REQUIRE(!patches.empty());
  BOOST_TEST(patches[0].name == "bgp-old");
  BOOST_TEST(contains(patches[0].body, "\"peers\":[\"tor1\"]"));
  // The cache catches up with the write, then the Service goes away.
  old.status.peers = {"tor1"};
  testing::World::upsert(h.world.bgp_statuses, old, "2");
  h.world.services.erase("shop/checkout");
  h.queue.add(std::string(keys::kSync));
  h.drain();
  const auto removes = h.writes("remove");
  BOOST_REQUIRE_EQUAL(removes.size(), 1u);
  BOOST_TEST(removes[0].name == "bgp-old");
  BOOST_TEST(!contains(h.metrics.render(), "service=\"shop/checkout\""));
}

/// stateWrites returns the ConfigurationState writes with the given verb.
std::vector<k8s::testing::Write> stateWrites(const Harness& h, const std::string& verb) {
  std::vector<k8s::testing::Write> out;
  for (const auto& w : h.writes(verb)) {
    if (w.name == "speaker-node1" || contains(w.body, "\"kind\":\"ConfigurationState\"")) {
      out.push_back(w);
    }
  }
  return out;
}

BOOST_AUTO_TEST_CASE(configuration_state_is_created_once_while_the_cache_lags) {
  // The cache has not shown speaker-node1 yet (its watch can start after the create).
  Harness h(node1());
  firstPass(h);
  BOOST_TEST(stateWrites(h, "create").size() == 1u);
  BOOST_TEST(stateWrites(h, "patchStatus").size() == 1u);
  // A configuration change that leaves the state as it was: no write.
  api::Community unused;
  unused.metadata.name = "resync";
  unused.metadata.namespace_ = "metallb-system";
  unused.communities = {{"unused", "65535:65281"}};
  testing::World::upsert(h.world.communities, unused);
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  BOOST_TEST(stateWrites(h, "create").size() == 1u);
  BOOST_TEST(stateWrites(h, "patchStatus").size() == 1u);
  // A change of the state is a patch of the object created before, not a second create.
  testing::World::upsert(h.world.pools, overlappingPool());
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  BOOST_TEST(stateWrites(h, "create").size() == 1u);
  BOOST_REQUIRE_EQUAL(stateWrites(h, "patchStatus").size(), 2u);
  BOOST_TEST(contains(stateWrites(h, "patchStatus").back().body, "\"result\":\"Invalid\""));
  // Once the cache has held the object, its absence is a deletion: it is created again.
  api::ConfigurationState state;
  state.metadata.name = "speaker-node1";
  state.metadata.namespace_ = "metallb-system";
  testing::World::upsert(h.world.states, state, "7");
  h.queue.add(std::string(keys::kState));
  h.drain();
  h.world.states.erase("metallb-system/speaker-node1");
  h.queue.add(std::string(keys::kState));
  h.drain();
  BOOST_TEST(stateWrites(h, "create").size() == 2u);
  BOOST_TEST(stateWrites(h, "patchStatus").size() == 3u);
}

BOOST_AUTO_TEST_CASE(invalid_configuration_keeps_the_last_good_one_and_recovers) {
  Harness h(node1());
  firstPass(h);
  const auto desired = *h.desired();
  testing::World::upsert(h.world.pools, overlappingPool());
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(frrWrites(h).size() == 1u);
  BOOST_TEST((*h.desired() == desired));
  auto patches = h.writes("patchStatus");
  BOOST_TEST(contains(patches.back().body, "\"result\":\"Invalid\""));
  BOOST_TEST(contains(patches.back().body, "overlap"), patches.back().body);
  BOOST_TEST(contains(h.metrics.render(), "metallb_k8s_client_config_stale_bool 1"));
  h.world.pools.erase("metallb-system/bad");
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  patches = h.writes("patchStatus");
  BOOST_TEST(contains(patches.back().body, "\"result\":\"Valid\""));
  BOOST_TEST(contains(patches.back().body, "\"reason\":\"Reconciled\""));
  BOOST_TEST(contains(h.metrics.render(), "metallb_k8s_client_config_stale_bool 0"));
}

/// brokenAdvertisement names a Community alias nobody defines and selects the nodes labelled
/// rack=rack.
api::BGPAdvertisement brokenAdvertisement(const std::string& rack) {
  api::BGPAdvertisement ad;
  ad.metadata.name = "broken";
  ad.metadata.namespace_ = "metallb-system";
  ad.spec.communities = {"no-such-alias"};
  ad.spec.node_selectors = {api::LabelSelector{{{"rack", rack}}, {}}};
  return ad;
}

// MetalLB's speaker drops the BGPAdvertisements that do not select its node before parsing
// (filterBGPAdvertisementsByNode): one broken elsewhere leaves this agent's configuration alone.
BOOST_AUTO_TEST_CASE(an_advertisement_broken_on_another_node_is_not_parsed_here) {
  Harness h(node1());
  firstPass(h);
  const auto desired = *h.desired();
  testing::World::upsert(h.world.bgp_advertisements, brokenAdvertisement("r2"));
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  BOOST_REQUIRE(!stateWrites(h, "patchStatus").empty());
  BOOST_TEST(contains(stateWrites(h, "patchStatus").back().body, "\"result\":\"Valid\""));
  BOOST_TEST((*h.desired() == desired));

  // node1 joins rack r2: it now parses the advertisement and rejects its configuration.
  auto node = *h.world.nodes.get("node1");
  node.metadata.labels["rack"] = "r2";
  testing::World::upsert(h.world.nodes, node, "2");
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  const auto body = stateWrites(h, "patchStatus").back().body;
  BOOST_TEST(contains(body, "\"result\":\"Invalid\""), body);
  BOOST_TEST(contains(body, "no-such-alias"), body);
  BOOST_TEST((*h.desired() == desired));  // the last good configuration is kept
}

/// FakeApply records the texts and fails while `failures` > 0; verify() reports `drift` once.
/// Each apply advances `clock` (when set) by `cost`.
class FakeApply final : public frr::FrrPort {
 public:
  Result<frr::FastApplyReport> verify() override {
    ++verifies;
    frr::FastApplyReport r;
    if (!drift.empty()) {
      r.path = frr::ApplyPath::FullReload;
      r.drift = std::exchange(drift, "");
    }
    return r;
  }
  Result<frr::FastApplyReport> apply(const frrgen::CompactModel& model,
                                     const frrgen::RenderOptions& render) override {
    auto r = frr::FrrPort::apply(model, render);
    if (r && as_delta) {
      r->path = frr::ApplyPath::Delta;
    }
    if (r) {
      r->rejected = rejected;
    }
    return r;
  }
  Result<frr::ApplyReport> reload(const std::string& text) override {
    texts.push_back(text);
    if (on_apply) {
      on_apply();
    }
    if (clock) {
      clock->advance(cost);
    }
    if (failures > 0) {
      --failures;
      return Error{ErrorCode::Unavailable, "frr-reload.py --reload exited 1: boom"};
    }
    return frr::ApplyReport{1, 3, 0, std::chrono::milliseconds(5)};
  }
  std::vector<std::string> texts;
  int failures = 0;
  int verifies = 0;
  std::string drift;
  bool as_delta = false;  ///< report applies as deltas (read back once changes go quiet)
  std::vector<frr::RejectedSession> rejected;  ///< sessions every apply reports FRR refused
  testing::HookClock* clock = nullptr;
  k8s::Duration cost{};
  std::function<void()> on_apply;  ///< called at every apply, before its outcome
};

ReconcilerOptions frrMode() {
  ReconcilerOptions o = node1();
  o.dialect = config::Backend::Frr;
  return o;
}

size_t eventCount(const Harness& h, const std::string& reason) {
  return std::count_if(h.events.events.begin(), h.events.events.end(),
                       [&](const auto& ev) { return ev.reason == reason; });
}

std::string speakerState(const Harness& h) {
  std::string state;
  for (const auto& w : h.writes("patchStatus")) {
    if (w.name == "speaker-node1") state = w.body;
  }
  return state;
}

BOOST_AUTO_TEST_CASE(frr_mode_reports_a_failed_reload_and_retries_with_backoff) {
  FakeApply frr;
  frr.failures = 1;
  ReconcilerOptions o = frrMode();
  o.hostname = "node1-host";
  Harness h(o, &frr);
  firstPass(h);
  BOOST_REQUIRE_EQUAL(frr.texts.size(), 1u);
  BOOST_TEST(contains(frr.texts[0], "hostname node1-host"));
  BOOST_TEST(contains(frr.texts[0], "198.51.100.0/32"));
  const ReconcileResult& bgp_result = h.results.at(std::string(keys::kBgp));
  BOOST_TEST((bgp_result.kind == ReconcileResult::Kind::RequeueAfter));
  BOOST_TEST((bgp_result.delay == frr::retryDelay(1)));
  BOOST_TEST(frrWrites(h).empty());
  const auto& ev = h.events.events.back();
  BOOST_TEST(ev.reason == "FRRReloadFailed");
  BOOST_TEST((ev.type == k8s::EventType::Warning));
  BOOST_TEST(ev.object.kind == "Node");
  h.drain();  // the state key queued by the failure
  BOOST_TEST(contains(h.writes("patchStatus").back().body, "\"reason\":\"UnknownError\""));
  BOOST_TEST(contains(h.metrics.render(), "ingot_agent_frr_reloads_total{result=\"failure\"} 1"));
  BOOST_TEST(
      contains(h.metrics.render(), "ingot_agent_frr_apply_failures_total{reason=\"other\"} 1"));
  BOOST_TEST(contains(h.metrics.render(), "ingot_agent_frr_apply_consecutive_failures 1"));
  BOOST_TEST(contains(h.metrics.render(), "ingot_agent_frr_last_success_timestamp_seconds 0"));
  BOOST_TEST(contains(h.writes("patchStatus").back().body, "boom"));
  BOOST_TEST(contains(ev.message, "applying to FRR failed (other)"), ev.message);
  // No retry counter or delay in the message: the same failure makes the same message, which
  // the Event recorder folds into one Event (kube/events.cpp).
  BOOST_TEST(!contains(ev.message, "retry 1"), ev.message);
  BOOST_TEST(!contains(ev.message, " ms"), ev.message);
  // The retry (the manager re-adds the key after the delay) succeeds and clears the condition.
  h.queue.add(std::string(keys::kBgp));
  h.drain();
  BOOST_TEST(frr.texts.size() == 2u);
  // The ConfigurationState's patch (the ServiceBGPStatus writes now follow the apply that took
  // their announcements, so the state's is not necessarily the last patch).
  BOOST_TEST(contains(speakerState(h), "\"frrReloadValid\",\"status\":\"True\""));
  BOOST_TEST(contains(h.metrics.render(), "ingot_agent_frr_apply_consecutive_failures 0"));
  BOOST_TEST(!contains(h.metrics.render(), "ingot_agent_frr_last_success_timestamp_seconds 0\n"));
}

size_t bgpStatusCount(const Harness& h, const std::string& verb) {
  size_t n = 0;
  for (const auto& w : h.writes(verb)) {
    n += verb == "create" ? contains(w.body, "\"ServiceBGPStatus\"") : w.name.rfind("bgp-", 0) == 0;
  }
  return n;
}

// FRR refused the only session (tor1's): everything else applied, and nothing claims a route to
// tor1: no ServiceBGPStatus stays, metallb_speaker_announced has no BGP sample, the
// ConfigurationState is Invalid with the reason in errorSummary, one Warning Event on the Node.
// Once the peer changes and FRR takes it, every status comes back.
// Retries of one failure record the same Event message, so the recorder folds them.
BOOST_AUTO_TEST_CASE(frr_mode_retries_of_one_failure_record_one_message) {
  FakeApply frr;
  frr.failures = 3;
  Harness h(frrMode(), &frr);
  firstPass(h);
  for (int i = 0; i < 2; ++i) {
    h.queue.add(std::string(keys::kBgp));
    h.drain();
  }
  std::vector<std::string> messages;
  for (const auto& ev : h.events.events) {
    if (ev.reason == "FRRReloadFailed") messages.push_back(ev.message);
  }
  BOOST_TEST_REQUIRE(messages.size() == 3u);
  BOOST_TEST(messages[0] == messages[1]);
  BOOST_TEST(messages[1] == messages[2]);
}

BOOST_AUTO_TEST_CASE(frr_mode_statuses_follow_the_sessions_frr_refused) {
  FakeApply frr;
  frr.rejected = {{"", "10.99.0.1", "% Invalid value", false}};
  Harness h(frrMode(), &frr);
  firstPass(h);
  h.drain();
  BOOST_TEST(bgpStatusCount(h, "create") == bgpStatusCount(h, "remove"));
  BOOST_TEST(!contains(h.metrics.render(), "protocol=\"bgp\""), h.metrics.render());
  std::string state;
  for (const auto& w : h.writes("patchStatus")) {
    if (w.name == "speaker-node1") state = w.body;
  }
  BOOST_TEST(contains(state, "\"result\":\"Invalid\""), state);
  BOOST_TEST(contains(state,
                      "\"errorSummary\":\"FRR refused BGPPeer tor1 (session 10.99.0.1), "
                      "which is left out; every other change applied. FRR said: % "
                      "Invalid value\""),
             state);
  BOOST_TEST(contains(state, "\"reason\":\"ConfigurationError\""), state);
  size_t refusals = 0;
  for (const auto& ev : h.events.events) {
    refusals += ev.reason == "FRRPeerRejected";
  }
  BOOST_TEST(refusals == 1u);
  // A new Service while tor1 stays refused: no nodeAssigned, no status object.
  const size_t assigned = std::count_if(h.events.events.begin(), h.events.events.end(),
                                        [](const auto& ev) { return ev.reason == "nodeAssigned"; });
  const size_t created = bgpStatusCount(h, "create");
  auto svc = *h.world.services.list().front();
  svc.metadata.name = "another";
  svc.metadata.uid = "another-uid";
  h.world.put(svc);
  h.queue.add(keys::service(svc.metadata.namespace_ + "/another"));
  h.drain();
  BOOST_TEST(std::count_if(h.events.events.begin(), h.events.events.end(), [](const auto& ev) {
               return ev.reason == "nodeAssigned";
             }) == static_cast<long>(assigned));
  BOOST_TEST(bgpStatusCount(h, "create") == created);
  // The peer changes and FRR takes it: statuses, the gauge and a clean state come back.
  frr.rejected.clear();
  auto peer = *h.world.peers.list().front();
  peer.spec.hold_time = api::Duration{30000000000, "30s"};
  h.world.put(peer);
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(bgpStatusCount(h, "create") > created);
  BOOST_TEST(contains(h.metrics.render(), "protocol=\"bgp\""));
  std::string last_state;
  for (const auto& w : h.writes("patchStatus")) {
    if (w.name == "speaker-node1") last_state = w.body;
  }
  BOOST_TEST(contains(last_state, "\"result\":\"Valid\""), last_state);
  BOOST_TEST(contains(last_state, "\"errorSummary\":\"\""), last_state);
}

// The first pass claims nothing before FRR took it: when the first apply runs, no
// ServiceBGPStatus exists and no nodeAssigned Event was recorded; both follow the apply.
BOOST_AUTO_TEST_CASE(frr_mode_first_pass_claims_nothing_before_the_first_apply) {
  FakeApply frr;
  Harness h(frrMode(), &frr);
  std::optional<std::pair<size_t, size_t>> at_apply;  // (creates, nodeAssigned) then
  frr.on_apply = [&] {
    if (!at_apply) at_apply = {bgpStatusCount(h, "create"), eventCount(h, "nodeAssigned")};
  };
  firstPass(h);
  h.drain();
  BOOST_TEST_REQUIRE(at_apply.has_value());
  BOOST_TEST(at_apply->first == 0u);
  BOOST_TEST(at_apply->second == 0u);
  BOOST_TEST(bgpStatusCount(h, "create") > 0u);
  BOOST_TEST(eventCount(h, "nodeAssigned") > 0u);
  BOOST_TEST(bgpStatusCount(h, "remove") == 0u);
}

// While every apply fails (FRR down, vtysh unreachable), nothing claims an announcement FRR does
// not hold: no ServiceBGPStatus, no nodeAssigned, no metallb_speaker_announced sample, also for
// a Service added meanwhile; the ConfigurationState carries the failure. Once FRR takes the
// configuration, all of it appears.
BOOST_AUTO_TEST_CASE(frr_mode_claims_nothing_while_every_apply_fails) {
  FakeApply frr;
  frr.failures = 1000;
  Harness h(frrMode(), &frr);
  firstPass(h);
  h.drain();
  auto svc = *h.world.services.get("shop/checkout");
  svc.metadata.name = "another";
  svc.metadata.uid = "another-uid";
  h.world.put(svc);
  auto slice = *h.world.endpoint_slices.list().front();  // checkout's endpoint on node1
  slice.metadata.name = "another-abcde";
  slice.metadata.labels["kubernetes.io/service-name"] = "another";
  h.world.put(slice);
  h.queue.add(keys::service(svc.metadata.namespace_ + "/another"));
  h.drain();
  for (int i = 0; i < 2; ++i) {
    h.queue.add(std::string(keys::kBgp));  // the retries the manager runs after their delay
    h.drain();
  }
  BOOST_TEST(frr.texts.size() >= 3u);
  BOOST_TEST(bgpStatusCount(h, "create") == 0u);
  BOOST_TEST(eventCount(h, "nodeAssigned") == 0u);
  BOOST_TEST(!contains(h.metrics.render(), "protocol=\"bgp\""), h.metrics.render());
  BOOST_TEST(contains(speakerState(h), "\"frrReloadValid\",\"status\":\"False\""), speakerState(h));
  BOOST_TEST(contains(speakerState(h), "boom"), speakerState(h));
  // FRR is back: the next retry applies, and the statuses, Events and gauge follow.
  frr.failures = 0;
  h.queue.add(std::string(keys::kBgp));
  h.drain();
  size_t another = 0;
  for (const auto& w : h.writes("create")) {
    another += contains(w.body, "\"ServiceBGPStatus\"") && contains(w.body, "another");
  }
  BOOST_TEST(another == 1u);
  BOOST_TEST(eventCount(h, "nodeAssigned") >= 2u);
  BOOST_TEST(contains(h.metrics.render(), "service=\"" + svc.metadata.namespace_ + "/another\""),
             h.metrics.render());
  BOOST_TEST(contains(speakerState(h), "\"frrReloadValid\",\"status\":\"True\""), speakerState(h));
}

BOOST_AUTO_TEST_CASE(frr_mode_reads_a_delta_back_once_changes_go_quiet) {
  FakeApply frr;
  frr.as_delta = true;
  const ReconcilerOptions o = frrMode();
  Harness h(o, &frr);
  firstPass(h);
  BOOST_REQUIRE_EQUAL(frr.texts.size(), 1u);
  BOOST_TEST(frr.verifies == 0);  // not on the apply's path
  h.clock.advance(std::chrono::milliseconds(500));
  h.drain();
  BOOST_TEST(frr.verifies == 0);
  // A change within the quiet period pushes the read-back out.
  api::Service svc = *h.world.services.get("shop/checkout");
  svc.status.ingress = {{"198.51.100.9", "", std::nullopt}};
  testing::World::upsert(h.world.services, svc, "2");
  h.queue.add(std::string(keys::kSync));
  h.drain();
  BOOST_REQUIRE_EQUAL(frr.texts.size(), 2u);  // the leading edge: at once
  h.clock.advance(std::chrono::milliseconds(900));
  h.drain();
  BOOST_TEST(frr.verifies == 0);
  h.clock.advance(std::chrono::milliseconds(100));
  h.drain();
  BOOST_TEST(frr.verifies == 1);
  // Then only the periodic one.
  h.clock.advance(std::chrono::seconds(5));
  h.drain();
  BOOST_TEST(frr.verifies == 1);
}

BOOST_AUTO_TEST_CASE(frr_mode_applies_the_compact_shape_and_reads_back_periodically) {
  FakeApply frr;
  const ReconcilerOptions o = frrMode();
  Harness h(o, &frr);
  firstPass(h);
  BOOST_REQUIRE_EQUAL(frr.texts.size(), 1u);
  // One line per prefix, pointing at its class's route-map.
  BOOST_TEST(contains(frr.texts[0], " network 198.51.100.0/32 route-map ingot-adv-"), frr.texts[0]);
  BOOST_TEST(frr.texts[0].find("198.51.100.0/32") == frr.texts[0].rfind("198.51.100.0/32"));
  BOOST_TEST(frr.verifies == 0);
  // Nothing changed: the re-armed key reads FRR back once the interval has passed, not before.
  h.clock.advance(o.frr_verify_interval - std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(frr.verifies == 0);
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(frr.verifies == 1);
  BOOST_TEST(frr.texts.size() == 1u);
  // Drift found by the read-back is reported as an Event and a metric.
  frr.drift = "network 198.51.100.0/32: missing";
  h.clock.advance(o.frr_verify_interval);
  h.drain();
  BOOST_TEST(frr.verifies == 2);
  const auto& ev = h.events.events.back();
  BOOST_TEST(ev.reason == "FRRConfigDrift");
  BOOST_TEST((ev.type == k8s::EventType::Warning));
  BOOST_TEST(contains(ev.message, "198.51.100.0/32: missing"), ev.message);
  BOOST_TEST(contains(h.metrics.render(), "ingot_agent_frr_drift_total 1"));
  BOOST_TEST(contains(h.metrics.render(), "ingot_agent_frr_applies_total{path=\"full_reload\"} 2"),
             h.metrics.render());
}

/// setIngress gives shop/checkout one ingress IP 198.51.100.<last> (resourceVersion <last>) and
/// syncs.
void setIngress(Harness& h, int last) {
  api::Service svc = *h.world.services.get("shop/checkout");
  svc.status.ingress = {{"198.51.100." + std::to_string(last), "", std::nullopt}};
  testing::World::upsert(h.world.services, svc, std::to_string(last));
  h.queue.add(std::string(keys::kSync));
  h.drain();
}

BOOST_AUTO_TEST_CASE(cooldown_applies_a_lone_change_at_once_and_coalesces_what_follows) {
  using namespace std::chrono_literals;
  FakeApply frr;
  const ReconcilerOptions o = frrMode();  // --bgp-debounce-timeout 200 ms
  Harness h(o, &frr);
  frr.clock = &h.clock;
  frr.cost = 10ms;  // each apply: 10 ms, then a 30 ms cool-down
  firstPass(h);
  BOOST_REQUIRE_EQUAL(frr.texts.size(), 1u);
  // A lone change after the 30 ms cool-down (well within the 200 ms debounce): applied at once.
  h.clock.advance(30ms);
  setIngress(h, 9);
  BOOST_REQUIRE_EQUAL(frr.texts.size(), 2u);
  BOOST_TEST(contains(frr.texts[1], "198.51.100.9/32"));
  // Changes within the cool-down wait for its end and go out in one apply.
  setIngress(h, 10);
  h.clock.advance(10ms);
  setIngress(h, 11);
  h.clock.advance(19ms);
  h.drain();
  BOOST_TEST(frr.texts.size() == 2u);
  h.clock.advance(1ms);
  h.drain();
  BOOST_REQUIRE_EQUAL(frr.texts.size(), 3u);
  BOOST_TEST(contains(frr.texts[2], "198.51.100.11/32"));
  BOOST_TEST(!contains(frr.texts[2], "198.51.100.10/32"));
  // Expensive applies stretch the cool-down, up to the debounce.
  frr.cost = 100ms;
  h.clock.advance(30ms);
  setIngress(h, 12);
  BOOST_REQUIRE_EQUAL(frr.texts.size(), 4u);
  setIngress(h, 13);
  h.clock.advance(199ms);
  h.drain();
  BOOST_TEST(frr.texts.size() == 4u);
  h.clock.advance(1ms);
  h.drain();
  BOOST_REQUIRE_EQUAL(frr.texts.size(), 5u);
  BOOST_TEST(contains(frr.texts[4], "198.51.100.13/32"));
}

BOOST_AUTO_TEST_CASE(service_bgp_status_writes_do_not_hold_back_the_frrconfiguration) {
  // The status writes run under their own key, queued behind the BGP write: the FRRConfiguration
  // goes first, then one status write per pass.
  ReconcilerOptions options = node1();
  options.status_writes_per_pass = 1;
  Harness h(options);
  firstPass(h, testing::examples() + "\n---\n" +
                   testing::readFile(testing::sourceDir() + "/examples/bgp/storefront.yaml"));
  std::vector<std::string> order;
  for (const auto& w : h.api.writes()) {
    if (w.verb != "create") continue;
    if (contains(w.body, "\"FRRConfiguration\"")) order.push_back("frr");
    if (contains(w.body, "\"ServiceBGPStatus\"")) order.push_back("status");
  }
  const std::vector<std::string> expected = {"frr", "status", "status"};
  BOOST_TEST(order == expected, boost::test_tools::per_element());
  // Nothing is left over: another pass writes nothing.
  const size_t writes = h.api.writes().size();
  h.queue.add(std::string(keys::kSync));
  h.drain();
  BOOST_TEST(h.api.writes().size() == writes);
}

std::vector<std::string> layer2Lines(const Harness& h, const std::string& key) {
  std::vector<std::string> out;
  for (const auto& line : h.logs) {
    if (contains(line, "\"op\":\"layer2\"") && contains(line, "\"key\":\"" + key + "\"")) {
      out.push_back(line);
    }
  }
  return out;
}

BOOST_AUTO_TEST_CASE(layer2_decision_is_logged_per_service_when_it_changes) {
  Harness h(node1());
  const std::string dir = testing::sourceDir() + "/examples/";
  firstPass(h, testing::examples() + testing::readFile(dir + "l2/pool.yaml") + "\n---\n" +
                   testing::readFile(dir + "l2/service.yaml"));
  // No EndpointSlice for web/frontend: every Node counts as live, but nobody may announce.
  auto lines = layer2Lines(h, "web/frontend");
  BOOST_REQUIRE_EQUAL(lines.size(), 1u);
  BOOST_TEST(contains(lines[0], "\"serviceReason\":\"noActiveEndpoint\""), lines[0]);
  BOOST_TEST(contains(lines[0], "\"winner\":\"\""), lines[0]);
  // BGP-only Services get no Layer 2 line.
  for (const auto& line : h.logs) {
    BOOST_TEST(!(contains(line, "\"op\":\"layer2\"") && contains(line, "shop/")), line);
  }
  // An unchanged decision is not logged again.
  h.queue.add(std::string(keys::kSync));
  h.drain();
  BOOST_TEST(layer2Lines(h, "web/frontend").size() == 1u);

  // A ready endpoint: the election names a winner among the nodes l2-adv selects.
  api::EndpointSlice slice;
  slice.metadata.name = "frontend-abc";
  slice.metadata.namespace_ = "web";
  slice.metadata.labels["kubernetes.io/service-name"] = "frontend";
  slice.address_type = "IPv4";
  api::Endpoint ep;
  ep.addresses = {"10.244.1.5"};
  ep.conditions.ready = true;
  ep.node_name = "node1";
  slice.endpoints.push_back(ep);
  testing::World::upsert(h.world.endpoint_slices, slice);
  h.queue.add(std::string(keys::kSync));
  h.drain();
  lines = layer2Lines(h, "web/frontend");
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  BOOST_TEST(contains(lines[1], "\"serviceReason\":\"\""), lines[1]);
  BOOST_TEST(!contains(lines[1], "\"winner\":\"\""), lines[1]);
}

struct L2Case {
  std::string desc;
  std::string ads;  ///< L2Advertisements (YAML documents)
  std::optional<std::set<std::string>> interfaces;
};

BOOST_AUTO_TEST_CASE(layer2_part_of_desired_carries_the_won_services_and_their_interfaces) {
  const std::string ad = R"(
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: NAME, namespace: metallb-system}
spec:
  ipAddressPools: [l2-pool]
)";
  // Only node1 carries ingot.example/l2-speaker, so it is the only candidate and wins.
  const std::string node1_only =
      "  nodeSelectors: [{matchLabels: {ingot.example/l2-speaker: 'true'}}]\n";
  auto named = [&](const std::string& name, const std::string& extra, const std::string& selector) {
    return "---" + testing::replaced(ad, "NAME", name) + extra + "\n" + selector;
  };
  const std::string nobody = "  nodeSelectors: [{matchLabels: {none: x}}]\n";
  const std::vector<L2Case> cases = {
      {"union_of_lists",
       named("a", "  interfaces: [eth1]", node1_only) +
           named("b", "  interfaces: [eth0]", node1_only),
       std::set<std::string>{"eth0", "eth1"}},
      {"one_without_list_means_all",
       named("a", "  interfaces: [eth1]", node1_only) + named("b", "", node1_only), std::nullopt},
      {"ads_not_selecting_this_node_do_not_count",
       named("a", "  interfaces: [eth1]", node1_only) + named("b", "", nobody),
       std::set<std::string>{"eth1"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      std::vector<L2Announcement> seen;
      Harness h(node1(), nullptr,
                [&seen](const BackendContext&) { return std::make_unique<DesiredProbe>(seen); });
      startWithL2Service(h, c.ads);
      BOOST_REQUIRE_EQUAL(seen.size(), 1u);
      BOOST_TEST(seen[0].key() == "web/frontend");
      BOOST_REQUIRE_EQUAL(seen[0].ips.size(), 1u);
      BOOST_TEST(seen[0].ips[0].toString() == "192.168.10.1");
      BOOST_TEST((seen[0].interfaces == c.interfaces));
    }
  }
}

/// wonBy renders the Layer 2 part of a Desired as "namespace/name|ip,ip" per Service.
std::set<std::string> wonBy(const std::vector<L2Announcement>& seen) {
  std::set<std::string> out;
  for (const auto& a : seen) {
    std::string line = a.key() + "|";
    for (const auto& ip : a.ips) {
      line += (line.back() == '|' ? "" : ",") + ip.toString();
    }
    out.insert(line);
  }
  return out;
}

// Every node's agent hands its responder exactly the dual-stack Services it wins on the first
// status address (as MetalLB's speaker elects), with both addresses in status order; a status
// listed the other way round moves the Service to the node elected on its new first address.
// The Services and the Go oracle's orders are in cli/tests/testdata/dual-stack-order.yaml.
BOOST_AUTO_TEST_CASE(layer2_owner_of_a_dual_stack_service_is_elected_on_its_first_address) {
  const std::string file = testing::sourceDir() + "/cli/tests/testdata/dual-stack-order.yaml";
  const std::map<std::string, std::set<std::string>> want = {
      {"k8s-control-plane", {}},
      {"k8s-worker", {"apps/fresh|203.0.113.1,fd00::", "apps/migrated|fd00::1,203.0.113.7"}},
      {"k8s-worker2",
       {"apps/requested|2001:db8::a,203.0.113.10", "apps/upgraded|fd00::2,203.0.113.0"}},
      {"k8s-worker3", {}},
  };
  std::map<std::string, std::vector<L2Announcement>> seen;
  std::map<std::string, std::unique_ptr<Harness>> agents;
  for (const auto& [node, services] : want) {
    ReconcilerOptions o;
    o.node = node;
    auto& mine = seen[node];
    agents[node] = std::make_unique<Harness>(o, nullptr, [&mine](const BackendContext&) {
      return std::make_unique<DesiredProbe>(mine);
    });
    Harness& h = *agents[node];
    testing::loadInto(h, file);
    h.queue.add(std::string(keys::kConfig));
    h.queue.add(std::string(keys::kSync));
    h.drain();
    BOOST_TEST(wonBy(mine) == services, node);
  }
  // The status of apps/migrated as an IPv4-first controller would rewrite it.
  for (auto& [node, h] : agents) {
    auto svc = *h->world.services.get(k8s::objectKey("apps", "migrated"));
    BOOST_REQUIRE_EQUAL(svc.status.ingress.size(), 2u);
    std::swap(svc.status.ingress[0], svc.status.ingress[1]);
    testing::World::upsert(h->world.services, svc, "99");
    h->queue.add(keys::service("apps/migrated"));
    h->drain();
  }
  BOOST_TEST(wonBy(seen["k8s-worker"]) == std::set<std::string>{"apps/fresh|203.0.113.1,fd00::"});
  BOOST_TEST(wonBy(seen["k8s-worker2"]) ==
             (std::set<std::string>{"apps/migrated|203.0.113.7,fd00::1",
                                    "apps/requested|2001:db8::a,203.0.113.10",
                                    "apps/upgraded|fd00::2,203.0.113.0"}));
  BOOST_TEST(wonBy(seen["k8s-control-plane"]).empty());
  BOOST_TEST(wonBy(seen["k8s-worker3"]).empty());
}

BOOST_AUTO_TEST_CASE(a_responder_that_cannot_start_is_reported_in_configuration_state) {
  int starts = 0;
  // failing registers a Layer2Backend whose responder never starts, counting the attempts.
  const Harness::ExtraBackend failing = [&starts](const BackendContext& context) {
    return std::make_unique<Layer2Backend>(
        context, [&starts]() -> Result<std::unique_ptr<L2Responder>> {
          ++starts;
          return Error{ErrorCode::Forbidden, "socket(AF_PACKET): Operation not permitted"};
        });
  };
  Harness h(node1(), nullptr, failing);
  startWithL2Service(h, "");  // examples/l2's own advertisement is replaced by none...
  BOOST_TEST(starts == 0);    // ...so nothing is answered and the responder is not needed
  const std::string node1_ad = R"(---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: a, namespace: metallb-system}
spec:
  ipAddressPools: [l2-pool]
  nodeSelectors: [{matchLabels: {ingot.example/l2-speaker: 'true'}}]
)";
  Harness g(node1(), nullptr, failing);
  startWithL2Service(g, node1_ad);
  BOOST_TEST(starts == 1);
  const auto patches = g.writes("patchStatus");
  BOOST_REQUIRE(!patches.empty());
  const std::string& last = patches.back().body;
  BOOST_TEST(contains(last, R"("type":"layer2ResponderValid","status":"False")"), last);
  BOOST_TEST(contains(last, "Operation not permitted"), last);
  BOOST_TEST(contains(last, R"("result":"Valid")"), last);  // BGP and the configuration are fine
  // The retry waits for its delay: nothing else is started meanwhile.
  BOOST_TEST(starts == 1);
}

}  // namespace
}  // namespace ingot::agent
