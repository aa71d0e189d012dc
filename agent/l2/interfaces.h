// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "agent/l2/core/frame.h"
#include "common/util/result.h"

namespace ingot::agent::l2 {

/// InterfaceFacts is what the scan learns about one host interface (from rtnetlink).
struct InterfaceFacts {
  std::string name;
  int index = 0;
  unsigned flags = 0;     ///< IFF_* flags
  bool enslaved = false;  ///< has a master (bridge port, bond member, VRF member)
  Mac mac{};
  std::optional<Ip6> link_local;  ///< an fe80::/10 address, if any
};

/// AnnounceInterface is an interface the responder may answer on, and with which protocols.
struct AnnounceInterface {
  std::string name;
  int index = 0;
  Mac mac{};
  bool arp = false;  ///< BROADCAST interface: answer ARP
  bool ndp = false;  ///< has an IPv6 link-local address: answer NDP
  Ip6 link_local{};  ///< source of our Neighbor Advertisements (when ndp)
  friend bool operator==(const AnnounceInterface&, const AnnounceInterface&) = default;
};

/// ExcludeList is the set of interface-name regexes (any match excludes), as in the
/// `announcedInterfacesToExclude` list of an `excludel2.yaml` file.
class ExcludeList {
 public:
  /// parse reads the YAML text; `source` names it in errors.
  static Result<ExcludeList> parse(std::string_view yaml, std::string_view source);
  /// load reads a file; a missing file gives an empty list (nothing excluded).
  static Result<ExcludeList> load(const std::string& path);
  /// excludes reports whether an interface name matches one of the patterns.
  bool excludes(const std::string& name) const;
  /// size is the number of patterns.
  size_t size() const { return patterns_.size(); }

 private:
  std::vector<std::regex> patterns_;
};

/// selectInterfaces keeps the interfaces the responder may use: up, not enslaved, ARP-capable
/// (no IFF_NOARP), not excluded by name; ARP where BROADCAST, NDP where a link-local exists.
/// Interfaces with neither protocol are dropped.
std::vector<AnnounceInterface> selectInterfaces(const std::vector<InterfaceFacts>& facts,
                                                const ExcludeList& exclude);

/// InterfaceRestriction is the outcome of applying an `L2Advertisement.interfaces` list.
struct InterfaceRestriction {
  std::vector<AnnounceInterface> selected;  ///< usable interfaces the list names (or all)
  std::vector<std::string> missing;         ///< named interfaces not usable on this node
  /// noneExist is true when a list was given and none of its names is usable: the address
  /// cannot be announced here (MetalLB's `announceFailed` Warning event).
  bool noneExist() const { return selected.empty() && !missing.empty(); }
};

/// restrictInterfaces applies the union of the advertisements' interface names; nullopt means
/// some advertisement has no list, so every usable interface is selected.
InterfaceRestriction restrictInterfaces(const std::vector<AnnounceInterface>& usable,
                                        const std::optional<std::set<std::string>>& names);

/// scanInterfaces lists the host's interfaces with rtnetlink (links and IPv6 addresses) in the
/// calling thread's network namespace.
Result<std::vector<InterfaceFacts>> scanInterfaces();

}  // namespace ingot::agent::l2
