// SPDX-License-Identifier: Apache-2.0
// The frr-mode reload step limit. One frr-reload.py run that adds several hundred prefixes at once
// stalls FRR 8.4's bfdd long enough to drop BFD and reset BGP sessions (measured at ≥ 300), so
// the agent converges in steps: every reload adds at most `max_new` prefixes that FRR does not
// announce yet; withdrawals are never held back. Pure.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "agent/core/announcement.h"

namespace ingot::agent {

/// PrefixStep is what the next reload should announce.
struct PrefixStep {
  /// announcements: every desired announcement whose prefix is already applied, plus those of
  /// the first `max_new` new prefixes (in prefix text order), in the input order.
  std::vector<Announcement> announcements;
  std::set<std::string> prefixes;  ///< the prefixes of `announcements` (text form)
  size_t deferred = 0;             ///< new prefixes left for a later step
  bool complete() const { return deferred == 0; }
};

/// limitNewPrefixes returns the next step from the prefixes FRR holds now (`applied`, text form
/// "198.51.100.7/32") towards `desired`. Prefixes of `applied` not desired are simply absent
/// (withdrawn at once). max_new 0 is treated as 1 so that every step makes progress.
PrefixStep limitNewPrefixes(const std::vector<Announcement>& desired,
                            const std::set<std::string>& applied,
                            size_t max_new);

}  // namespace ingot::agent
