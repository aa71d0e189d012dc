// SPDX-License-Identifier: Apache-2.0
// render: Model → frr.conf text for FRR 8.4 and later (frr-k8s' frr.tmpl), in the shape FRR's own
// `show running-config` uses (one-space indents, `exit` after each block, one address-family block
// per family), so that frr-reload.py computes small, exact deltas.
//
// Differences from frr-k8s' templates, each for a measured reason (docs/compatibility.md):
// - No `ip forwarding` line of either polarity: forwarding belongs to the node (Kubernetes nodes
//   forward), and zebra would write the sysctls. FRR shows no forwarding line while forwarding is
//   on, so on such a node frr-reload.py has nothing to change there.
// - `bgp route-map delay-timer` defaults to 1 s, not FRR's 5 s (every policy change would reach
//   the peer ~5 s late) and not 0: with 0, bgpd never re-evaluates outbound policy for routes it
//   already has, and frr-reload.py applies new lines of existing contexts (a `network` under the
//   existing `address-family`) before new single-line contexts (each `ip prefix-list` entry), so
//   a newly announced prefix stays unadvertised; a changed community or a peer removed from a
//   prefix would also never reach the ToR. With 1 s bgpd re-evaluates after every change whatever
//   the order of application.
// - Sequence numbers are stable per entry (policy.h), so one changed prefix changes one line;
//   route-map entries follow frr-k8s' counter instead when the file carries raw text.
// - BFD profile lines equal to FRR's defaults (300/300 ms, multiplier 3, echo 50 ms, minimum TTL
//   254) are left out, as FRR's running config leaves them out; same effect, no diff noise.
// - Timers, connect time and a port other than 179 are written whenever set (merge.h keeps them).
// - Prefix-list selectors print `ge` before `le`, and `ebgp-multihop` carries its TTL (255), as
//   FRR 8.4's running config shows them.
// - The BFD block comes before the routers that reference its profiles.
#pragma once

#include <cstdint>
#include <string>

#include "common/util/result.h"
#include "frrgen/model.h"

namespace ingot::frrgen {

struct RenderOptions {
  std::string log_level = "informational";  ///< `log stdout <level>`
  /// hostname, when set, becomes a `hostname` line. Leave it empty unless it equals the host's
  /// UTS name: FRR shows the UTS name and frr-reload.py would try to remove any other on every
  /// reload.
  std::string hostname;
  uint32_t route_map_delay_timer = 1;  ///< seconds, 0-600; see the header comment
};

/// kMaxRouteMapDelayTimer is the largest route_map_delay_timer FRR accepts.
inline constexpr uint32_t kMaxRouteMapDelayTimer = 600;

/// render returns the frr.conf for the model. Deterministic: equal models give equal text. A
/// model with raw text (spec.raw) numbers route-map entries as frr-k8s does (policy.h's
/// Numbering::FrrK8s), so that the raw snippets, appended last, extend the same entries they
/// extend under frr-k8s.
/// Errors: a neighbor whose lists cannot be numbered (more than 65000 attribute lists), or a
/// delay timer outside 0-600.
Result<std::string> render(const Model& model, const RenderOptions& options);

}  // namespace ingot::frrgen
