// SPDX-License-Identifier: Apache-2.0
#include "agent/memberlist/core/options.h"

#include <algorithm>
#include <cmath>

#include "common/json/json.h"

namespace ingot::agent::memberlist {

namespace {

Result<uint16_t> parsePort(std::string_view text, std::string_view what) {
  const std::string s(text);
  char* end = nullptr;
  const unsigned long v = std::strtoul(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v > 65535) {
    return invalidArgument(std::string(what) + ": \"" + s + "\" is not a port number");
  }
  return static_cast<uint16_t>(v);
}

Result<bool> parseBool(std::string_view text, std::string_view what) {
  if (text == "true" || text == "1" || text.empty()) {
    return true;
  }
  if (text == "false" || text == "0") {
    return false;
  }
  return invalidArgument(std::string(what) + ": \"" + std::string(text) + "\" is not a boolean");
}

}  // namespace

Result<bool> parseMembershipFlag(std::string_view flag,
                                 std::string_view value,
                                 MembershipOptions& out) {
  if (flag == "--ml-bindaddr") {
    out.bind_addr = value;
  } else if (flag == "--ml-bindport") {
    auto p = parsePort(value, flag);
    if (!p) {
      return p.error();
    }
    out.bind_port = *p;
  } else if (flag == "--ml-labels") {
    out.labels = value;
  } else if (flag == "--ml-secret-key-path") {
    out.secret_key_path = value;
  } else if (flag == "--ml-wan-config") {
    auto b = parseBool(value, flag);
    if (!b) {
      return b.error();
    }
    out.wan_config = *b;
  } else if (flag == "--ml-tuning-path") {
    out.tuning_path = value;
  } else {
    return false;
  }
  return true;
}

Result<MembershipOptions> membershipFromEnv(const Lookup& env) {
  MembershipOptions o;
  o.bind_addr = env("METALLB_ML_BIND_ADDR").value_or("");
  o.labels = env("METALLB_ML_LABELS").value_or("");
  o.secret_key_path = env("METALLB_ML_SECRET_KEY_PATH").value_or("");
  if (auto port = env("METALLB_ML_BIND_PORT"); port && !port->empty()) {
    auto p = parsePort(*port, "METALLB_ML_BIND_PORT");
    if (!p) {
      return p.error();
    }
    o.bind_port = *p;
  }
  return o;
}

Result<std::chrono::nanoseconds> goDuration(std::string_view text, std::string_view field) {
  auto bad = [&](const char* why) {
    return invalidArgument("memberlist tuning " + std::string(field) + ": \"" + std::string(text) +
                           "\" " + why);
  };
  static const std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
  if (text.empty()) {
    return bad("is empty");
  }
  if (text == "0") {
    return std::chrono::nanoseconds{0};
  }
  double total = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t num_end = text.find_first_not_of("0123456789.", pos);
    if (num_end == pos || num_end == std::string_view::npos) {
      return bad("is not a Go duration (e.g. 500ms, 1s, 1m30s)");
    }
    const double n = std::strtod(std::string(text.substr(pos, num_end - pos)).c_str(), nullptr);
    const size_t unit_end = text.find_first_of("0123456789.", num_end);
    const std::string_view unit = text.substr(num_end, unit_end - num_end);
    const auto* u = std::find_if(std::begin(kUnits), std::end(kUnits),
                                 [&](const auto& x) { return x.first == unit; });
    if (u == std::end(kUnits)) {
      return bad("has an unknown unit");
    }
    total += n * u->second;
    pos = unit_end == std::string_view::npos ? text.size() : unit_end;
  }
  if (total > 1e9 * 86400 * 365) {
    return bad("is too long");
  }
  return std::chrono::nanoseconds{static_cast<int64_t>(std::llround(total))};
}

Timing baseTiming(bool wan) {
  if (!wan) {
    return Timing::fast();
  }
  // Go's DefaultWANConfig().
  Timing t = Timing::lan();
  t.tcp_timeout = Duration{30000};
  t.suspicion_mult = 6;
  t.push_pull_interval = Duration{60000};
  t.probe_timeout = Duration{3000};
  t.probe_interval = Duration{5000};
  t.gossip_nodes = 4;
  t.gossip_interval = Duration{500};
  t.gossip_to_the_dead = Duration{60000};
  return t;
}

}  // namespace ingot::agent::memberlist
