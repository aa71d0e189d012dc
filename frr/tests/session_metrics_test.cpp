// SPDX-License-Identifier: Apache-2.0
// The session metrics' parsers and families on FRR 8.4.4's own JSON (testdata/show.*.json, see
// testdata/README.md), on malformed answers, and SessionMetrics over a fake vtysh.
#include "frr/session_metrics.h"

#include <map>
#include <tuple>

#include <boost/test/unit_test.hpp>

#include "frr/tests/testdata.h"

namespace ingot::frr {
namespace {

std::string testdata(const std::string& name) {
  return testing::readTestdata(name);
}

// sample finds the value of family name with exactly these labels, or -1.
double sample(const std::vector<daemon::MetricFamily>& families,
              const std::string& name,
              const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const auto& f : families) {
    if (f.name != name) {
      continue;
    }
    for (const auto& s : f.samples) {
      if (s.labels == labels) {
        return s.value;
      }
    }
  }
  return -1;
}

using L = std::vector<std::pair<std::string, std::string>>;
using Want = std::tuple<std::string, L, double>;  // family name, labels, value

// expectSamples checks that each wanted sample is in families with its value.
void expectSamples(const std::vector<daemon::MetricFamily>& families,
                   const std::vector<Want>& want) {
  for (const auto& [name, labels, value] : want) {
    BOOST_TEST_CONTEXT(name << " " << labels.front().second) {
      BOOST_TEST(sample(families, name, labels) == value);
    }
  }
}

BOOST_AUTO_TEST_SUITE(session_metrics)

BOOST_AUTO_TEST_CASE(vrf_names_are_the_keys) {
  auto v = parseVrfNames(testdata("show.node.vrfs.json"));
  BOOST_TEST_REQUIRE(v.has_value(), (v ? "" : v.error().message));
  BOOST_TEST(*v == std::vector<std::string>{"default"});
  auto two = parseVrfNames(R"({"red": {}, "default": {}})");
  BOOST_TEST_REQUIRE(two.has_value());
  BOOST_TEST(*two == (std::vector<std::string>{"default", "red"}));
}

struct NeighborCase {
  const char* file;
  const char* address;
  bool established;
  int64_t port;
  uint64_t sent_prefixes, updates_sent, updates_received, opens_sent, total_sent;
};

BOOST_AUTO_TEST_CASE(neighbors_from_real_frr) {
  const std::vector<NeighborCase> cases = {
      {"show.node.neighbors.json", "10.99.8.1", true, 179, 3167, 333, 1, 1, 374},
      {"show.tor.neighbors.json", "10.99.8.11", true, 59412, 0, 1, 387, 1, 0},
      {"show.tor.neighbors.json", "10.99.8.12", true, 37126, 0, 1, 402, 1, 0},
      {"show.down.neighbors.json", "192.168.250.2", false, -1, 0, 0, 0, 0, 0},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.file << " " << c.address) {
      auto ns = parseBgpNeighbors(testdata(c.file), "default");
      BOOST_TEST_REQUIRE(ns.has_value(), (ns ? "" : ns.error().message));
      const BgpNeighborStats* n = nullptr;
      for (const auto& x : *ns) {
        n = x.address == c.address ? &x : n;
      }
      BOOST_TEST_REQUIRE(n != nullptr);
      BOOST_TEST(n->vrf == "default");
      BOOST_TEST(n->established == c.established);
      BOOST_TEST(n->port == c.port);
      BOOST_TEST(n->sent_prefixes == c.sent_prefixes);
      BOOST_TEST(n->updates_sent == c.updates_sent);
      BOOST_TEST(n->updates_received == c.updates_received);
      BOOST_TEST(n->opens_sent == c.opens_sent);
      if (c.total_sent != 0) {
        BOOST_TEST(n->total_sent == c.total_sent);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(bfd_peers_are_joined_with_their_counters) {
  auto peers = parseBfdPeers(testdata("show.tor.bfd_peers.json"),
                             testdata("show.tor.bfd_counters.json"), "default");
  BOOST_TEST_REQUIRE(peers.has_value(), (peers ? "" : peers.error().message));
  BOOST_TEST_REQUIRE(peers->size() == 2U);
  const BfdPeerStats& p = (*peers)[1];
  BOOST_TEST(p.peer == "10.99.8.12");
  BOOST_TEST(p.up);
  BOOST_TEST(p.has_counters);
  BOOST_TEST(p.control_packet_input == 547U);
  BOOST_TEST(p.control_packet_output == 545U);
  BOOST_TEST(p.session_up_events == 1U);
  BOOST_TEST(p.session_down_events == 0U);
  BOOST_TEST(p.zebra_notifications == 2U);

  // A peer the counters do not list (it went away between the two commands) has no counters,
  // and a status other than "up" is down.
  std::string down = testdata("show.node.bfd_peers.json");
  down.replace(down.find("\"up\""), 4, "\"down\"");
  auto alone = parseBfdPeers(down, "[]", "default");
  BOOST_TEST_REQUIRE(alone.has_value());
  BOOST_TEST_REQUIRE(alone->size() == 1U);
  BOOST_TEST(!(*alone)[0].up);
  BOOST_TEST(!(*alone)[0].has_counters);
}

BOOST_AUTO_TEST_CASE(malformed_answers_are_errors_naming_the_field) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"% Unknown command: show bgp vrf default neighbors json", "not JSON"},
      {"[]", "want an object"},
      {R"({"10.0.0.1": {"messageStats": {"updatesSent": -3}}})",
       "neighbor 10.0.0.1.messageStats.updatesSent: want a non-negative integer"},
      {R"({"10.0.0.1": {"messageStats": {"updatesSent": "7"}}})",
       "neighbor 10.0.0.1.messageStats.updatesSent: want a non-negative integer, got string"},
      {R"({"10.0.0.1": {"portForeign": 1.5}})", "neighbor 10.0.0.1.portForeign"},
      {R"({"10.0.0.1": {"addressFamilyInfo": {"ipv4Unicast": {"sentPrefixCounter": true}}}})",
       "addressFamilyInfo.ipv4Unicast.sentPrefixCounter"},
  };
  for (const auto& [text, want] : cases) {
    BOOST_TEST_CONTEXT(text) {
      auto r = parseBgpNeighbors(text, "default");
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error().message.find(want) != std::string::npos, r.error().message);
    }
  }
  auto bfd = parseBfdPeers(R"([{"status": "up"}])", "[]", "default");
  BOOST_TEST_REQUIRE(!bfd.has_value());
  BOOST_TEST(bfd.error().message.find("BFD peer [0]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(families_carry_metallb_names_labels_and_values) {
  SessionSnapshot snap;
  auto ns = parseBgpNeighbors(testdata("show.node.neighbors.json"), "default");
  auto down = parseBgpNeighbors(testdata("show.down.neighbors.json"), "default");
  auto bfd = parseBfdPeers(testdata("show.node.bfd_peers.json"),
                           testdata("show.node.bfd_counters.json"), "default");
  BOOST_TEST_REQUIRE((ns && down && bfd));
  snap.bgp = *ns;
  snap.bgp.push_back(down->front());
  snap.bfd = *bfd;
  const auto f = sessionFamilies(snap, kMetalLbSessions);
  const L up{{"peer", "10.99.8.1:179"}, {"vrf", "default"}};
  const L gone{{"peer", "192.168.250.2:-1"}, {"vrf", "default"}};
  const L bfd_peer{{"peer", "10.99.8.1"}, {"vrf", "default"}};
  const std::vector<Want> want = {
      {"metallb_bgp_session_up", up, 1},
      {"metallb_bgp_session_up", gone, 0},
      {"metallb_bgp_announced_prefixes_total", up, 3167},
      {"metallb_bgp_updates_total", up, 333},
      {"metallb_bgp_updates_total_received", up, 1},
      {"metallb_bgp_keepalives_sent", up, 39},
      {"metallb_bgp_route_refresh_sent", up, 1},
      {"metallb_bgp_total_received", up, 43},
      {"metallb_bfd_session_up", bfd_peer, 1},
      {"metallb_bfd_control_packet_input", bfd_peer, 479},
      {"metallb_bfd_control_packet_output", bfd_peer, 480},
      {"metallb_bfd_session_down_events", bfd_peer, 0},
      {"metallb_bfd_zebra_notifications", bfd_peer, 4},
  };
  expectSamples(f, want);
  std::map<std::string, daemon::MetricType> types;
  for (const auto& x : f) {
    types[x.name] = x.type;
  }
  BOOST_TEST(types.size() == 20U);  // 12 BGP, 8 BFD families, each once
  BOOST_TEST((types["metallb_bgp_session_up"] == daemon::MetricType::Gauge));
  BOOST_TEST((types["metallb_bgp_updates_total"] == daemon::MetricType::Counter));
  // No sessions at all: every family is still declared, with no samples.
  const auto empty = sessionFamilies({}, kMetalLbSessions);
  BOOST_TEST(empty.size() == 20U);
  for (const auto& x : empty) {
    BOOST_TEST(x.samples.empty());
  }
}

// frr-k8s' style (ingot-frr): frrk8s_ names, the BGP peer label without the port, and the
// received prefixes summed over the address families right after the announced ones.
BOOST_AUTO_TEST_CASE(families_in_frr_k8s_style) {
  const std::string text = R"({
      "192.168.1.1": {"remoteAs": 64512, "bgpState": "Established", "portForeign": 179,
        "messageStats": {"updatesSent": 7, "updatesRecv": 2},
        "addressFamilyInfo": {"ipv4Unicast": {"acceptedPrefixCounter": 3, "sentPrefixCounter": 5},
                              "ipv6Unicast": {"acceptedPrefixCounter": 1, "sentPrefixCounter": 2}}},
      "fd00::1": {"bgpState": "Active", "portForeign": -1, "addressFamilyInfo": {}}})";
  auto ns = parseBgpNeighbors(text, "red");
  auto bfd = parseBfdPeers(R"([{"peer": "192.168.1.1", "status": "down"}])", "[]", "red");
  BOOST_TEST_REQUIRE((ns && bfd));
  BOOST_TEST_REQUIRE(ns->size() == 2U);
  BOOST_TEST(ns->front().received_prefixes == 4U);
  const auto f = sessionFamilies({*ns, *bfd}, kFrrK8sSessions);
  const L peer{{"peer", "192.168.1.1"}, {"vrf", "red"}};
  const L idle{{"peer", "fd00::1"}, {"vrf", "red"}};
  const std::vector<Want> want = {
      {"frrk8s_bgp_session_up", peer, 1},
      {"frrk8s_bgp_session_up", idle, 0},
      {"frrk8s_bgp_announced_prefixes_total", peer, 7},
      {"frrk8s_bgp_received_prefixes_total", peer, 4},
      {"frrk8s_bgp_received_prefixes_total", idle, 0},
      {"frrk8s_bgp_updates_total", peer, 7},
      {"frrk8s_bgp_updates_total_received", peer, 2},
      {"frrk8s_bfd_session_up", peer, 0},
  };
  expectSamples(f, want);
  BOOST_TEST_REQUIRE(f.size() == 21U);  // MetalLB's 20 and the received prefixes
  BOOST_TEST(f[2].name == "frrk8s_bgp_received_prefixes_total");
  for (const auto& x : f) {
    BOOST_TEST(x.name.rfind("frrk8s_", 0) == 0U, x.name);
  }
  // MetalLB's style has no received-prefixes family.
  BOOST_TEST(sample(sessionFamilies({*ns, *bfd}, kMetalLbSessions),
                    "metallb_bgp_received_prefixes_total",
                    {{"peer", "192.168.1.1:179"}, {"vrf", "red"}}) == -1);
}

// FakeShow answers show commands from a table; anything else is an error.
class FakeShow final : public VtyshPort {
 public:
  std::map<std::string, std::string> answers;
  std::vector<std::string> asked;
  Result<void> configure(const std::vector<std::string>& /*commands*/) override {
    return invalidArgument("not expected");
  }
  Result<std::string> show(const std::string& command) override {
    asked.push_back(command);
    auto it = answers.find(command);
    if (it == answers.end()) {
      return Error{ErrorCode::Unavailable, "vtysh: no answer to " + command};
    }
    return it->second;
  }
  void reset() override {}
};

BOOST_AUTO_TEST_CASE(session_metrics_reads_every_vrf_and_reports_errors) {
  FakeShow fake;
  fake.answers = {
      {"show bgp vrf all json", R"({"default": {}, "red": {}})"},
      {"show bgp vrf default neighbors json", testdata("show.node.neighbors.json")},
      {"show bfd vrf default peers json", testdata("show.node.bfd_peers.json")},
      {"show bfd vrf default peers counters json", testdata("show.node.bfd_counters.json")},
      {"show bgp vrf red neighbors json", testdata("show.down.neighbors.json")},
      {"show bfd vrf red peers json", "[\n]\n"},
      {"show bfd vrf red peers counters json", "[\n]\n"},
  };
  SessionMetrics m(fake, kMetalLbSessions);
  auto snap = m.read();
  BOOST_TEST_REQUIRE(snap.has_value(), (snap ? "" : snap.error().message));
  BOOST_TEST_REQUIRE(snap->bgp.size() == 2U);
  BOOST_TEST(snap->bgp[1].vrf == "red");
  BOOST_TEST(snap->bfd.size() == 1U);
  BOOST_TEST(!m.families().empty());
  BOOST_TEST(m.lastError().empty());

  fake.answers.erase("show bfd vrf red peers json");
  BOOST_TEST(m.families().empty());
  BOOST_TEST(m.lastError().find("show bfd vrf red peers json") != std::string::npos, m.lastError());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace ingot::frr
