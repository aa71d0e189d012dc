// SPDX-License-Identifier: Apache-2.0
// MetalLB's optional memberlist tuning file (JSON, Go field names) applied to a Timing.
#include <functional>
#include <map>

#include "agent/memberlist/core/options.h"
#include "common/json/json.h"

namespace ingot::agent::memberlist {

namespace {

using Apply = std::function<Result<void>(const json::Value&, const std::string&)>;

Error typeError(const std::string& key, const char* want) {
  return invalidArgument("memberlist tuning " + key + ": expected " + want);
}

Apply duration(Duration& out) {
  return [&out](const json::Value& v, const std::string& key) -> Result<void> {
    if (v.isNumber() && v.isInteger()) {  // Go's default time.Duration JSON: nanoseconds
      out = std::chrono::duration_cast<Duration>(std::chrono::nanoseconds{std::stoll(v.text())});
      return {};
    }
    if (!v.isString()) {
      return typeError(key, "a duration string such as \"500ms\"");
    }
    auto d = goDuration(v.text(), key);
    if (!d) {
      return d.error();
    }
    out = std::chrono::duration_cast<Duration>(*d);
    return {};
  };
}

Apply integer(int& out, int min) {
  return [&out, min](const json::Value& v, const std::string& key) -> Result<void> {
    if (!v.isNumber() || !v.isInteger() || std::stoll(v.text()) < min ||
        std::stoll(v.text()) > 1000000) {
      return typeError(key, min > 0 ? "a positive integer" : "a non-negative integer");
    }
    out = static_cast<int>(std::stoll(v.text()));
    return {};
  };
}

Apply boolean(bool& out) {
  return [&out](const json::Value& v, const std::string& key) -> Result<void> {
    if (!v.isBool()) {
      return typeError(key, "true or false");
    }
    out = v.boolValue();
    return {};
  };
}

}  // namespace

Result<Timing> parseTuning(std::string_view text, Timing base, std::vector<std::string>* ignored) {
  auto doc = json::parse(text);
  if (!doc) {
    return invalidArgument("memberlist tuning: " + doc.error().message);
  }
  if (!doc->isObject()) {
    return invalidArgument("memberlist tuning: expected a JSON object");
  }
  Timing t = base;
  int udp_buffer = static_cast<int>(t.udp_buffer_size);
  int unused_int = 0;
  bool unused_bool = false;
  Duration unused_duration{};
  const std::map<std::string, Apply> fields = {
      {"TCPTimeout", duration(t.tcp_timeout)},
      {"IndirectChecks", integer(t.indirect_checks, 0)},
      {"RetransmitMult", integer(t.retransmit_mult, 1)},
      {"SuspicionMult", integer(t.suspicion_mult, 1)},
      {"SuspicionMaxTimeoutMult", integer(t.suspicion_max_timeout_mult, 1)},
      {"PushPullInterval", duration(t.push_pull_interval)},
      {"ProbeTimeout", duration(t.probe_timeout)},
      {"ProbeInterval", duration(t.probe_interval)},
      {"DisableTcpPings", boolean(t.disable_tcp_pings)},
      {"AwarenessMaxMultiplier", integer(t.awareness_max_multiplier, 1)},
      {"GossipNodes", integer(t.gossip_nodes, 0)},
      {"GossipInterval", duration(t.gossip_interval)},
      {"GossipToTheDeadTime", duration(t.gossip_to_the_dead)},
      {"GossipVerifyIncoming", boolean(t.gossip_verify_incoming)},
      {"GossipVerifyOutgoing", boolean(unused_bool)},
      {"EnableCompression", boolean(unused_bool)},
      {"HandoffQueueDepth", integer(unused_int, 0)},
      {"UDPBufferSize", integer(udp_buffer, 512)},
      {"QueueCheckInterval", duration(unused_duration)},
  };
  for (size_t i = 0; i < doc->keys().size(); ++i) {
    const std::string& key = doc->keys()[i];
    auto it = fields.find(key);
    if (it == fields.end()) {
      return invalidArgument("memberlist tuning: unknown field " + key);
    }
    auto applied = it->second(doc->items()[i], key);
    if (!applied) {
      return applied.error();
    }
    if (ignored != nullptr && (key == "GossipVerifyOutgoing" || key == "EnableCompression" ||
                               key == "HandoffQueueDepth" || key == "QueueCheckInterval")) {
      ignored->push_back(key);
    }
  }
  if (t.probe_interval.count() <= 0 || t.probe_timeout.count() <= 0 ||
      t.gossip_interval.count() <= 0) {
    return invalidArgument(
        "memberlist tuning: ProbeInterval, ProbeTimeout and GossipInterval must be positive");
  }
  t.udp_buffer_size = static_cast<size_t>(udp_buffer);
  return t;
}

}  // namespace ingot::agent::memberlist
