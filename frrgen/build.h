// SPDX-License-Identifier: Apache-2.0
// build: the node's BGP sessions and announcements → the FRRConfiguration `metallb-<node>` that
// MetalLB's frr-k8s backend writes (its internal/bgp/frrk8s), plus two documented
// fixes: sourceAddress and localASN are passed through.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/frrk8s.h"
#include "common/util/result.h"
#include "config/announcement.h"
#include "config/config.h"

namespace ingot::frrgen {

/// BuildOptions are the speaker flags that shape the object.
struct BuildOptions {
  std::string frrk8s_namespace = "metallb-system";   ///< --frrk8s-namespace
  std::string metallb_namespace = "metallb-system";  ///< the speaker's namespace
  bool secret_passthrough = false;                   ///< --frrk8s-secret-passthrough
};

/// configName returns the object name for a node: "metallb-<node>".
std::string configName(const std::string& node);

/// goDurationText renders nanoseconds as Go's time.Duration.String() ("1m30s", "3s", "500ms"),
/// the text metav1.Duration serialises to.
std::string goDurationText(int64_t nanoseconds);

/// communityText renders a community as FRRConfiguration's withCommunity spells it: "A:B" or
/// "large:A:B:C".
std::string communityText(const config::BgpCommunity& c);

/// build returns the FRRConfiguration for node. Sessions are the BGPPeers whose resolved node set
/// contains node. Routers are keyed "myASN@routerID@vrf" and sorted by that key; neighbors sorted
/// by the session key "peerASN|dynamicASN@address|interface-myASN@sourceAddress[/vrf]". A session
/// gets the announcements naming it whose prefix family it carries (its address family; both for
/// interface or dualStackAddressFamily sessions); allowed prefixes, withCommunity (by community
/// string) and withLocalPref (by value, non-zero only) are sorted and de-duplicated; a router's
/// prefixes are the union over its neighbors. Every BFD profile is copied, sorted by name, with
/// echoMode/passiveMode explicit. Passwords: the plain password and the secret reference pass
/// through when the frr-k8s namespace is the speaker's or secret_passthrough is set; otherwise the
/// secret's content is written as the plain password. Errors: a session with both a password and a
/// secret reference (MetalLB: "invalid session with password and secret set"); an announcement
/// with more than 63 communities (MetalLB: "max supported communities is 63, got N").
Result<api::FRRConfiguration> build(const config::Config& config,
                                    const std::string& node,
                                    const std::vector<config::Announcement>& announcements,
                                    const BuildOptions& options);

}  // namespace ingot::frrgen
