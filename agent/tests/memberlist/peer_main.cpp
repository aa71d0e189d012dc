// SPDX-License-Identifier: Apache-2.0
// ingot-memberlist-peer: one Ingot gossip member driven over stdin/stdout, for the interop
// tests against hashicorp/memberlist and the timing benchmark. Prints "port N" once bound.
// Commands (one per line): members | all | join HOST:PORT | leave | counters | quit.
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "agent/core/hold_down.h"
#include "agent/memberlist/transport.h"

namespace ml = ingot::agent::memberlist;

namespace {

const char* stateName(ml::NodeState s) {
  switch (s) {
    case ml::NodeState::Alive:
      return "alive";
    case ml::NodeState::Suspect:
      return "suspect";
    case ml::NodeState::Dead:
      return "dead";
    case ml::NodeState::Left:
      return "left";
  }
  return "?";
}

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

struct Args {
  ml::TransportConfig cfg;
  std::vector<std::string> join;
  bool ok = true;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const std::string v = argv[i + 1];
    if (k == "--name") {
      a.cfg.name = v;
    } else if (k == "--bind") {
      a.cfg.bind_addr = v;
    } else if (k == "--port") {
      a.cfg.port = static_cast<uint16_t>(std::stoi(v));
    } else if (k == "--join") {
      a.join.push_back(v);
    } else if (k == "--secret-file") {
      const std::string s = readFile(v);
      a.cfg.keyring = *ml::Keyring::create(
          {ml::deriveMetalLbKey({reinterpret_cast<const uint8_t*>(s.data()), s.size()})});
    } else if (k == "--meta") {
      a.cfg.meta.assign(v.begin(), v.end());
    } else if (k == "--timing") {
      a.cfg.timing = v == "lan" ? ml::Timing::lan() : ml::Timing::fast();
    } else if (k == "--probe-interval-ms") {
      // Scales the fast timing: timeout, gossip and suspicion follow the interval.
      const int ms = std::stoi(v);
      a.cfg.timing.probe_interval = ml::Duration{ms};
      a.cfg.timing.probe_timeout = ml::Duration{ms / 2};
      a.cfg.timing.gossip_interval = ml::Duration{std::max(10, ms / 2)};
    } else if (k == "--suspicion-mult") {
      a.cfg.timing.suspicion_mult = std::stoi(v);
    } else {
      std::cerr << "unknown flag " << k << "\n";
      a.ok = false;
    }
  }
  return a;
}

void printMembers(const ml::Node& node, bool all) {
  std::ostringstream line;
  line << (all ? "all" : "members");
  for (const ml::MemberView& m : node.members()) {
    const bool live = m.state == ml::NodeState::Alive || m.state == ml::NodeState::Suspect;
    if (all) {
      line << " " << m.name << ":" << stateName(m.state) << ":" << m.incarnation;
    } else if (live) {
      line << " " << m.name;
    }
  }
  std::cout << line.str() << std::endl;
}

/// printHoldDown prints "holddown held=<names,...> off=<reason>": the Layer 2 hold-down rule
/// over the live members' metadata (this member's own included) at now_ms.
void printHoldDown(const ml::Node& node, const ml::TransportConfig& self, int64_t now_ms) {
  std::map<std::string, std::string> metadata;
  for (const ml::MemberView& m : node.members()) {
    if (m.state == ml::NodeState::Alive || m.state == ml::NodeState::Suspect) {
      metadata[m.name] = std::string(m.meta.begin(), m.meta.end());
    }
  }
  metadata[self.name] = std::string(self.meta.begin(), self.meta.end());
  const auto h = ingot::agent::holdDown(metadata, now_ms);
  std::string held;
  for (const auto& name : h.heldNames()) {
    held += (held.empty() ? "" : ",") + name;
  }
  std::cout << "holddown held=" << held << " off=" << h.off << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  Args args = parse(argc, argv);
  if (!args.ok || args.cfg.name.empty()) {
    std::cerr << "usage: ingot-memberlist-peer --name N [--bind IP] [--port P] [--join H:P]"
                 " [--secret-file F] [--timing fast|lan] [--meta TEXT]\n";
    return 2;
  }
  ingot::log::Logger logger(ingot::log::Level::Warn);
  auto node = ml::Node::start(args.cfg, &logger, [](const ml::Outbox::Event& e) {
    static constexpr const char* kEventNames[] = {"join", "leave", "update"};
    std::cout << "event " << kEventNames[static_cast<int>(e.kind)] << " " << e.name << std::endl;
  });
  if (!node) {
    std::cerr << node.error().message << "\n";
    return 1;
  }
  std::cout << "port " << (*node)->port() << std::endl;
  if (!args.join.empty()) {
    (*node)->join(args.join);
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "members" || line == "all") {
      printMembers(**node, line == "all");
    } else if (line.rfind("join ", 0) == 0) {
      (*node)->join({line.substr(5)});
    } else if (line.rfind("holddown ", 0) == 0) {
      printHoldDown(**node, args.cfg, std::stoll(line.substr(9)));
    } else if (line == "leave") {
      (*node)->leave(std::chrono::milliseconds(1000));
      std::cout << "left" << std::endl;
    } else if (line == "counters") {
      const auto c = (*node)->counters();
      const auto m = (*node)->membershipCounters();
      std::cout << "counters udp_in=" << c.udp_in << " udp_out=" << c.udp_out
                << " udp_bytes_in=" << c.udp_bytes_in << " udp_bytes_out=" << c.udp_bytes_out
                << " suspicions=" << m.suspicions << " deaths=" << m.deaths
                << " refutations=" << m.refutations;
      for (const auto& [k, v] : c.drops) {
        std::cout << " drop_" << k << "=" << v;
      }
      std::cout << std::endl;
    } else if (line == "quit") {
      break;
    }
  }
  return 0;
}
