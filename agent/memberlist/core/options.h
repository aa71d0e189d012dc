// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/memberlist/core/membership.h"
#include "common/util/result.h"

namespace ingot::agent::memberlist {

/// MembershipOptions are MetalLB's speaker memberlist settings (flags and environment).
struct MembershipOptions {
  std::string bind_addr;        ///< --ml-bindaddr / METALLB_ML_BIND_ADDR
  uint16_t bind_port = 7946;    ///< --ml-bindport / METALLB_ML_BIND_PORT
  std::string labels;           ///< --ml-labels / METALLB_ML_LABELS (speaker pod selector)
  std::string secret_key_path;  ///< --ml-secret-key-path / METALLB_ML_SECRET_KEY_PATH (a dir)
  bool wan_config = false;      ///< --ml-wan-config: MetalLB's WAN base timing
  /// tuning_path is the optional JSON file MetalLB mounts from ConfigMap
  /// metallb-memberlist-config (--ml-tuning-path in Ingot; MetalLB has it fixed).
  std::string tuning_path = "/etc/metallb/memberlist/config.json";

  /// enabled is MetalLB's rule: memberlist runs only with a bind address and labels.
  bool enabled() const { return !bind_addr.empty() && !labels.empty(); }
  /// secretFile is where the key lives: <secret_key_path>/secretkey.
  std::string secretFile() const { return secret_key_path + "/secretkey"; }
};

/// Lookup returns an environment variable's value, or nullopt when unset (tests pass a map).
using Lookup = std::function<std::optional<std::string>(const std::string&)>;

/// parseMembershipFlag applies one "--ml-..." flag (value already split off). Returns false
/// for flags it does not know, an error for a bad value (naming the flag).
Result<bool> parseMembershipFlag(std::string_view flag,
                                 std::string_view value,
                                 MembershipOptions& out);

/// membershipFromEnv fills defaults from MetalLB's environment names, before flags override.
Result<MembershipOptions> membershipFromEnv(const Lookup& env);

/// goDuration parses a Go duration string ("300ms", "1.5s", "1m30s"); errors name `field`.
Result<std::chrono::nanoseconds> goDuration(std::string_view text, std::string_view field);

/// parseTuning reads MetalLB's memberlist tuning JSON over `base`. Every key is optional;
/// an unknown key, a wrong type or a bad duration is an error naming the field. Keys Ingot
/// accepts without effect (HandoffQueueDepth, QueueCheckInterval, EnableCompression,
/// GossipVerifyOutgoing) are returned in `ignored` for a log line.
Result<Timing> parseTuning(std::string_view json,
                           Timing base,
                           std::vector<std::string>* ignored = nullptr);

/// baseTiming picks the timing before tuning: Ingot's fast default, or Go's WAN defaults
/// when --ml-wan-config is set (as MetalLB does).
Timing baseTiming(bool wan);

}  // namespace ingot::agent::memberlist
