// SPDX-License-Identifier: Apache-2.0
// merge: the FRRConfigurations selecting one node → one Model, with frr-k8s' merge rules and
// conflict errors, but without its default-stripping: explicit values equal to frr-k8s' defaults
// (port 179, hold 180 s, keepalive 60 s, connect 60 s) are kept, so `timers 60 180` and
// `timers connect 60` reach FRR instead of silently falling back to FRR's own defaults. That is
// what Ingot's own FRR mode applies. clearFrrK8sDefaults turns a merged Model into what frr-k8s
// itself applies (`ingotctl frr-k8s`).
#pragma once

#include <string>
#include <vector>

#include "api/frrk8s.h"
#include "api/types.h"
#include "common/util/result.h"
#include "frrgen/model.h"

namespace ingot::frrgen {

/// selectForNode returns the configurations of namespace_ whose nodeSelector matches the node's
/// labels (an empty selector matches every node), in input order. An invalid selector is an
/// error naming the object (frr-k8s records it as a conversion failure).
Result<std::vector<api::FRRConfiguration>> selectForNode(
    const std::vector<api::FRRConfiguration>& configs,
    const std::string& namespace_,
    const api::StringMap& node_labels);

/// merge converts every configuration (see convert.h) and merges them. Routers merge by VRF: same
/// ASN required ("different asns (A != B) specified for same vrf: V"), router ids equal when both
/// set (the set one wins), prefixes and imports unioned. Neighbors merge by id(): these must agree
/// — remote AS ("multiple asns specified for ID"), port with unset = 179 ("multiple ports"),
/// source address, password (after Secret resolution), BFD profile when both set, ebgp-multihop,
/// family ("conflicting advertiseDualStack"), hold / keepalive / connect time with unset = 180 /
/// 60 / 60 s ("multiple hold times" ...), localASN when both set ("multiple localASNs"); set values
/// win over unset ones. Graceful restart is on if any configuration turns it on. Advertised
/// prefixes are unioned per family with their communities; one prefix with two local prefs is
/// "multiple local prefs (A != B) specified for prefix P". Receive: all if any says all, else the
/// union of selectors. BFD profiles are unioned by name and must be identical where repeated.
/// Raw snippets are appended by (priority, object name). The result does not depend on the order
/// of configs (errors may name a different object first).
Result<Model> merge(const std::vector<api::FRRConfiguration>& configs,
                    const std::vector<api::Secret>& secrets);

/// clearFrrK8sDefaults applies frr-k8s v0.0.25's normalisation to every neighbor: port 179, hold
/// 180 s, keepalive 60 s and connect 60 s are each cleared on their own, whatever the other values.
/// Since `timers KEEPALIVE HOLD` is written only when both remain, a neighbor with hold 90 s and
/// keepalive 60 s gets no timers line at all (FRR's 60/180 apply) and connect 60 s leaves FRR's
/// 120 s connect-retry. Ingot's FRR mode does not call it: it keeps what the user wrote.
void clearFrrK8sDefaults(Model& model);

}  // namespace ingot::frrgen
