// SPDX-License-Identifier: Apache-2.0
// L2Elector keeps the Layer 2 election of many Services current while membership changes,
// without redoing it from scratch: per Service it caches the digests of the best few candidates,
// so a node leaving costs no hashing unless it empties that list, and a node joining costs one
// digest per Service it is a candidate of. Its winners are always those electL2 computes.
// Pure: no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/core/election.h"

namespace ingot::agent {

/// L2Elector is the incremental form of electL2 for a whole cluster. Subjects hold pointers to
/// L2Advertisements of one Config; when the Config changes, call clear() and add every Service
/// again (advertisement node sets are cached by address).
class L2Elector {
 public:
  /// keep is how many best candidates (with digests) are cached per Service; at least 1.
  explicit L2Elector(size_t keep = 8);

  /// setMembership replaces the eligible nodes and re-elects only what the difference touches.
  /// Returns the keys of the Services whose winner changed, sorted.
  std::vector<std::string> setMembership(const L2Membership& membership);

  /// setHeld replaces the nodes under hold-down (agent/core/hold_down.h): a Service's winner is
  /// then its first candidate that is not held, or its first candidate when every one is held.
  /// Returns the keys of the Services whose winner changed, sorted.
  std::vector<std::string> setHeld(const std::set<std::string>& held);

  /// setService adds or replaces a Service (key "namespace/name") and elects it.
  void setService(const std::string& key, const L2Subject& subject);

  /// removeService forgets a Service; unknown keys are ignored.
  void removeService(const std::string& key);

  /// clear forgets every Service and cached advertisement, keeping the membership.
  void clear();

  /// winner returns the Service's winner, or nullopt (no winner, or unknown key).
  std::optional<std::string> winner(const std::string& key) const;

  /// reason returns why the Service has no winner (None when it has one or is unknown).
  L2Reason reason(const std::string& key) const;

  /// head returns the cached start of the Service's candidate order (at most keep names; every
  /// candidate when there are no more), empty for unknown keys.
  std::vector<std::string> head(const std::string& key) const;

  /// hashes is the number of digests computed so far.
  uint64_t hashes() const { return hasher_.count(); }

 private:
  using Mask = std::vector<uint64_t>;
  struct Top {
    L2Digest digest;
    uint32_t node;
  };
  struct Entry {
    std::string ip;
    bool active = false;
    bool has_ads = false;
    Mask ads;               // nodes selected by the matching advertisements
    Mask candidates;        // ads, narrowed to endpoint nodes for externalTrafficPolicy Local
    std::vector<Top> top;   // the smallest digests among current candidates, ascending
    bool complete = false;  // top holds every current candidate
  };

  uint32_t intern(const std::string& name);
  const Mask& adMask(const config::L2Advertisement* ad);
  // diff lists the nodes that leave and join when the eligible set becomes next.
  void diff(const Mask& next, std::vector<uint32_t>& left, std::vector<uint32_t>& joined) const;
  void fill(Entry& e, size_t limit);
  // unheld makes sure the cached prefix holds a node that is not held, or every candidate.
  void unheld(Entry& e);
  bool isHeld(uint32_t node) const;
  struct Before {
    const std::string* key;
    const Entry* entry;
    std::optional<uint32_t> winner;
  };
  // winners returns every Service's winner, to compare after a change.
  std::vector<Before> winners() const;
  // changedSince returns the keys whose winner differs from before, sorted.
  std::vector<std::string> changedSince(const std::vector<Before>& before) const;
  void leave(Entry& e, uint32_t node);
  void join(Entry& e, uint32_t node);
  std::optional<uint32_t> winnerId(const Entry& e) const;

  size_t keep_;
  L2Hasher hasher_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
  Mask eligible_;
  Mask held_;  // nodes under hold-down
  std::unordered_map<const config::L2Advertisement*, Mask> ad_masks_;
  std::unordered_map<std::string, Entry> entries_;
  std::vector<Top> scratch_;
};

/// decideL2Cached is decideL2 for an agent that keeps an L2Elector across membership changes:
/// the common gate, then the Service is (re)elected in engine, whose membership the caller keeps
/// current with setMembership. winner, reason and verdict equal decideL2's; election.candidates
/// holds only engine.head(key). A Service the gate withdraws is removed from engine. When the
/// Config snapshot is replaced, call engine.clear() first and decide every Service again.
L2Decision decideL2Cached(const config::Config& config,
                          const std::string& node_name,
                          const api::Service& service,
                          const std::vector<api::EndpointSlice>& slices,
                          const AnnounceOptions& options,
                          L2Elector& engine);

}  // namespace ingot::agent
