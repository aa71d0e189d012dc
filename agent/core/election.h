// SPDX-License-Identifier: Apache-2.0
// The Layer 2 election: which node answers ARP/NDP for a Service's addresses. It reproduces
// MetalLB v0.16.1's layer2 ShouldAnnounce so that Ingot and MetalLB speakers agree on the owner:
// an active endpoint must exist; the pool's L2Advertisements are narrowed to those whose
// serviceSelectors match the Service; the candidates are the live agents' nodes that are not
// NetworkUnavailable, do not carry the exclude-from-external-load-balancers label (unless
// --ignore-exclude-lb) and are selected by one of those advertisements; with
// externalTrafficPolicy Local only candidates hosting a serving endpoint remain; the candidates
// are ordered by ascending sha256(node + "#" + ip), ip being the first ingress IP as Go's
// net.IP.String() writes it, and the first one wins.
// Pure: no I/O; the only state is the hash context a caller passes in.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "agent/core/announce.h"
#include "api/types.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "config/config.h"

// OpenSSL's opaque types, so that this header does not pull in <openssl/evp.h>.
struct evp_md_st;
struct evp_md_ctx_st;

namespace ingot::agent {

/// goIpString parses an ingress IP as Go's net.ParseIP does and returns it as Go's
/// net.IP.String() writes it: an IPv4-mapped IPv6 address as a dotted quad, other IPv6 in
/// lower-case hex with the first longest run of two or more zero groups compressed and no dotted
/// tail ("::c000:201"). That text is what MetalLB hashes. Errors name the text that did not parse.
Result<std::string> goIpString(std::string_view text);

/// L2Digest is sha256(node + "#" + ip).
using L2Digest = std::array<uint8_t, 32>;

/// L2Hasher computes election digests with one reused OpenSSL EVP context. Not thread-safe: use
/// one per thread.
class L2Hasher {
 public:
  L2Hasher();
  ~L2Hasher();
  L2Hasher(const L2Hasher&) = delete;
  L2Hasher& operator=(const L2Hasher&) = delete;

  /// digest returns sha256(node + "#" + ip).
  L2Digest digest(std::string_view node, std::string_view ip);
  /// count is the number of digests computed so far (for benchmarks and cache tests).
  uint64_t count() const { return count_; }

 private:
  evp_md_st* md_ = nullptr;
  evp_md_ctx_st* ctx_ = nullptr;
  std::string buf_;
  uint64_t count_ = 0;
};

/// rankL2 returns names in election order for ip: ascending digest, each name hashed exactly
/// once. Equal digests (never seen for distinct names) fall back to the name, so the order is
/// deterministic.
std::vector<std::string> rankL2(const std::vector<std::string>& names,
                                std::string_view ip,
                                L2Hasher& hasher);

/// L2Reason is why a Service has no Layer 2 winner (Ingot's per-Service vocabulary; the names
/// returned by l2ReasonName are part of `ingotctl plan --output json`).
enum class L2Reason {
  None,                          ///< "": there is a winner
  NoActiveEndpoint,              ///< "noActiveEndpoint": no endpoint anywhere can serve
  NoMatchingAdvertisement,       ///< "noMatchingAdvertisement": no L2Advertisement of the pool
                                 ///< matches the Service's labels
  NoCandidateNode,               ///< "noCandidateNode": no live node passes the node filters
  NoCandidateWithLocalEndpoint,  ///< "noCandidateWithLocalEndpoint": externalTrafficPolicy
                                 ///< Local and no candidate hosts a serving endpoint
};

/// l2ReasonName returns the JSON/log name of a reason ("" for None).
std::string_view l2ReasonName(L2Reason reason);

/// L2Verdict is MetalLB's per-node answer to "should this node announce?".
enum class L2Verdict {
  Announce,                 ///< "": this node is the winner
  NotOwner,                 ///< "notOwner": another node wins, or nobody does
  NoMatchingAdvertisement,  ///< "noMatchingAdvertisement": no advertisement matching the
                            ///< Service selects this node
};

/// l2VerdictReason returns MetalLB's reason string for a verdict ("" for Announce).
std::string_view l2VerdictReason(L2Verdict verdict);

/// L2Membership is the cluster side of the election: the names of the nodes with a live agent
/// that pass the node filters (not NetworkUnavailable, not excluded), sorted.
struct L2Membership {
  std::vector<std::string> eligible;
};

/// l2Membership filters the live node names. A live name without a Node object counts as
/// available and not excluded (MetalLB reads a missing node so); it can still only be a
/// candidate if an advertisement selects it, and advertisements select Node objects. With
/// drain-awareness on, a node whose Node object shows a drain trigger (nodeDrainReason) leaves
/// the membership too, as a NetworkUnavailable node does: every agent reads the same Node, so
/// every Ingot agent still elects the same owner.
L2Membership l2Membership(const std::vector<api::Node>& nodes,
                          const std::set<std::string>& live,
                          bool ignore_exclude_lb,
                          const DrainOptions& drain = {});

/// L2Subject is the Service side of the election, independent of membership.
struct L2Subject {
  std::string ip;  ///< election key: the first ingress IP as goIpString writes it
  /// ads are the pool's L2Advertisements whose serviceSelectors match (pointers into Config).
  std::vector<const config::L2Advertisement*> ads;
  bool active_endpoint = false;          ///< some endpoint of the Service can serve
  bool local = false;                    ///< externalTrafficPolicy Local
  std::set<std::string> endpoint_nodes;  ///< nodeName of every serving endpoint
};

/// l2Interfaces is where node answers for a Service whose Layer 2 election it won: the union of
/// the `interfaces` lists of the subject's advertisements that select node; nullopt when one of
/// them lists none (every usable interface), as MetalLB's ipAdvertisementFor.
std::optional<std::set<std::string>> l2Interfaces(const L2Subject& subject,
                                                  const std::string& node);

/// l2AdsOfPool returns the Config's L2Advertisements that apply to the pool, in name order.
std::vector<const config::L2Advertisement*> l2AdsOfPool(const config::Config& config,
                                                        const std::string& pool);

/// l2Subject builds the Service side from the pool's advertisements and the EndpointSlices;
/// slices of other Services are ignored. An endpoint can serve when ready is unset or true, or
/// serving is true (MetalLB v0.16.1's activeEndpointExists: no address-level vote).
L2Subject l2Subject(const api::Service& service,
                    std::string ip,
                    const std::vector<const config::L2Advertisement*>& pool_ads,
                    const std::vector<api::EndpointSlice>& slices);

/// L2Election is the outcome for one Service.
struct L2Election {
  std::optional<std::string> winner;  ///< candidates[0] when reason is None
  /// candidates are every node that passes the filters, in election order. They are listed even
  /// when there is no active endpoint: that is the order once an endpoint is ready.
  std::vector<std::string> candidates;
  L2Reason reason = L2Reason::None;

  /// verdictFor returns what MetalLB's speaker on node answers, in its order of checks:
  /// no active endpoint → NotOwner; no matching advertisement selects node →
  /// NoMatchingAdvertisement; node is the winner → Announce; else NotOwner.
  L2Verdict verdictFor(const L2Subject& subject, std::string_view node) const;
};

/// electL2 runs the election. Deterministic: every node computes the same result from the same
/// inputs. Each candidate is hashed once.
L2Election electL2(const L2Subject& subject, const L2Membership& membership, L2Hasher& hasher);

/// L2Decision is the agent's Layer 2 verdict for one Service on one node.
struct L2Decision {
  std::optional<BgpSkip> gate;  ///< set when the common gate withdrew the Service
  std::string pool;             ///< pool holding the IPs (empty when the gate failed earlier)
  bool l2_pool = false;         ///< the pool has at least one L2Advertisement
  L2Subject subject;
  L2Election election;
  L2Verdict verdict = L2Verdict::NotOwner;
  bool announced() const { return !gate && verdict == L2Verdict::Announce; }
  /// reason is the withdrawal reason MetalLB would log: the gate's, else the verdict's ("" when
  /// announced).
  std::string_view reason() const;
};

/// prepareL2 runs the common gate (gateService) into decision and, when it passes, fills pool,
/// l2_pool and subject. Returns whether the election should run.
bool prepareL2(const config::Config& config,
               const api::Service& service,
               const std::vector<api::EndpointSlice>& slices,
               const AnnounceOptions& options,
               L2Decision& decision);

/// decideL2 decides whether node_name announces service over Layer 2: the common gate
/// (gateService), then the election over membership. slices may hold other Services' slices.
L2Decision decideL2(const config::Config& config,
                    const std::string& node_name,
                    const api::Service& service,
                    const std::vector<api::EndpointSlice>& slices,
                    const L2Membership& membership,
                    const AnnounceOptions& options,
                    L2Hasher& hasher);

/// logL2Decision writes the agent's per-Service line for a decision, at info level: op
/// "layer2", event "serviceAnnounced" on the winner and "serviceNotAnnounced" elsewhere, with
/// the fields key, pool, winner ("" when none), reason (MetalLB's per-node reason, "" when
/// announced), serviceReason (l2ReasonName) and candidates (their number).
void logL2Decision(log::Logger& logger, const std::string& key, const L2Decision& decision);

}  // namespace ingot::agent
