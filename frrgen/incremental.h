// SPDX-License-Identifier: Apache-2.0
// incremental: the FRRConfiguration `metallb-<node>` kept up to date across announcement changes
// instead of rebuilt whole (frrgen::build) on each. A changed announcement patches the sorted
// lists it lands in (a router's prefixes, a neighbor's allowed prefixes, its withCommunity /
// withLocalPref / withBandwidth groups); the rest of the object is not touched. The result is
// always equal to what frrgen::build returns for the same input (incremental_test.cpp checks this
// over random change sequences).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/frrk8s.h"
#include "common/util/result.h"
#include "config/announcement.h"
#include "config/config.h"
#include "frrgen/build.h"

namespace ingot::frrgen {

/// IncrementalBuild holds the node's FRRConfiguration and the announcements it was built from,
/// by Service ("namespace/name", Announcement::service). update compares the new announcements
/// with the held ones Service by Service and patches the object for the Services whose
/// announcements differ: O(changed × log N) list edits plus one pass over the Services to find
/// them. patch is handed the changed Services alone and skips that pass. A different
/// configuration (another ConfigSharedPtr), node or options builds afresh with frrgen::build.
/// Cost per update at 10,000 Services: docs/performance.md.
///
/// Every list a prefix lands in is a Slot: which list (List) of which router or neighbor, and
/// for the grouped lists the group (community text, or the local preference / bandwidth value).
/// A new per-prefix attribute is one more List with its group key (slots() and list()).
class IncrementalBuild {
 public:
  /// update makes result() what frrgen::build(*config, node, announcements, options) returns.
  /// It returns whether result() changed (true when there was none). On error (build's errors)
  /// result() is left as it was and the next update builds afresh.
  Result<bool> update(const config::ConfigSharedPtr& config,
                      const std::string& node,
                      const std::vector<config::Announcement>& announcements,
                      const BuildOptions& options);

  /// patch makes result() what update returns for the held announcements with those of the
  /// Services in changes replaced (a Service named twice: the last wins), without looking at the
  /// other Services: O(changed × log N). It returns whether result() changed, or nullopt,
  /// changing nothing, where update
  /// would build afresh or fail: no result yet or after an error, another configuration, node
  /// or options, more changed announcements than a patch is worth, an announcement whose
  /// `service` is not its change's, too many communities; then call update with every
  /// announcement.
  std::optional<bool> patch(const config::ConfigSharedPtr& config,
                            const std::string& node,
                            const std::vector<config::ServiceAnnouncements>& changes,
                            const BuildOptions& options);

  /// result is the FRRConfiguration of the last successful update (nullopt before).
  const std::optional<api::FRRConfiguration>& result() const { return out_; }

  /// Encoder is the JSON codec of the object (api::encodeJson; frrgen links no codec).
  using Encoder = std::function<std::string(const api::FRRConfiguration&)>;

  /// encode returns encoder's text of object with result()'s spec (object's own spec is
  /// replaced), equal to encoder(that object) for a compact JSON encoder. encoder sees the
  /// object with each prefix list cut to a marker; the lists are written from a cache of their
  /// encoded text, kept per list and dropped when an update edits the list, so an encode after a
  /// change re-encodes only the lists the change touched. Requires result().
  std::string encode(api::FRRConfiguration object, const Encoder& encoder);

  /// rebuilds counts the updates that built afresh (the first, and each of a new configuration).
  uint64_t rebuilds() const { return rebuilds_; }

  /// patches counts the successful calls of patch.
  uint64_t patches() const { return patches_; }

 private:
  enum class List : uint8_t { RouterPrefixes, Allowed, Community, LocalPref, Bandwidth };
  struct Slot {
    List list;
    uint32_t router = 0;
    uint32_t neighbor = 0;
    std::string community;  ///< List::Community: the withCommunity text
    uint32_t value = 0;     ///< List::LocalPref / List::Bandwidth: the group's value
  };
  /// Session is one BGPPeer of this node: its router, and its neighbor unless an earlier peer
  /// with the same session key took the neighbor (build keeps the first; the router still gets
  /// the prefixes of both).
  struct Session {
    const config::Peer* peer = nullptr;
    uint32_t router = 0;
    std::optional<uint32_t> neighbor;
  };
  struct Group {
    std::vector<config::Announcement> announcements;
    uint64_t epoch = 0;  ///< the update that last saw this Service
  };

  /// patchLimit is how many announcements (old and new) a patch may move when total are
  /// announced; beyond it update builds afresh.
  static size_t patchLimit(size_t total) { return 32 + total / 256; }
  Result<bool> rebuild(const config::ConfigSharedPtr& config,
                       const std::string& node,
                       const std::vector<config::Announcement>& announcements,
                       const BuildOptions& options);
  /// slots calls f(slot) for every list announcement a lands in, with repeats (a peer named
  /// twice lands twice).
  template <typename F>
  void slots(const config::Announcement& a, F&& f) const;
  /// list returns the list of slot (creating its group when create is set, else nullptr when
  /// the group does not exist).
  std::vector<std::string>* list(const Slot& slot, bool create);
  /// dropEmptyGroup removes the group of slot once its last prefix is gone (build writes no
  /// empty group).
  void dropEmptyGroup(const Slot& slot);
  static std::string slotKey(const Slot& slot);
  static std::string extraKey(const Slot& slot, const std::string& prefix);
  void add(const config::Announcement& a);
  void remove(const config::Announcement& a);

  config::ConfigSharedPtr config_;  ///< nullptr: the next update builds afresh
  std::string node_;
  BuildOptions options_;
  std::optional<api::FRRConfiguration> out_;
  std::unordered_map<std::string, Session> sessions_;  ///< by BGPPeer name, this node's only
  std::unordered_map<std::string, Group> services_;    ///< by Announcement::service
  /// extra_ counts the landings of a prefix in a slot beyond the first (two Services on one IP,
  /// a peer named twice), keyed by extraKey; absent = landed once. Only such prefixes are here.
  std::unordered_map<std::string, uint32_t> extra_;
  /// fragments_ is the encoded text of a list ("a","b"), by slotKey; RouterPrefixes and Allowed
  /// lists are keyed as their Slot, a group's by its Slot with its key.
  std::unordered_map<std::string, std::string> fragments_;
  size_t held_ = 0;  ///< the announcements in services_
  uint64_t epoch_ = 0;
  uint64_t rebuilds_ = 0;
  uint64_t patches_ = 0;
  bool changed_ = false;  ///< the update in progress edited a list
};

}  // namespace ingot::frrgen
