// SPDX-License-Identifier: Apache-2.0
#include "agent/core/hold_down.h"

#include <algorithm>
#include <limits>

#include "agent/core/member_meta.h"

namespace ingot::agent {
namespace {

struct Joined {
  std::string name;
  int64_t joined_ms;
};

/// endOf is joined + hold without overflowing.
int64_t endOf(int64_t joined_ms, int64_t hold_ms) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  return joined_ms > kMax - hold_ms ? kMax : joined_ms + hold_ms;
}

}  // namespace

std::set<std::string> HoldDown::heldNames() const {
  std::set<std::string> out;
  for (const auto& [name, until] : held) {
    out.insert(name);
  }
  return out;
}

HoldDown holdDown(const std::map<std::string, std::string>& metadata, int64_t now_ms) {
  HoldDown out;
  std::vector<Joined> members;
  int64_t hold = std::numeric_limits<int64_t>::max();
  for (const auto& [name, text] : metadata) {
    const auto meta = parseMemberMeta(text);
    if (!meta || !meta->joined_ms || !meta->hold_down_ms) {
      out.off = "member " + name + " is not an Ingot agent";
      return out;
    }
    hold = std::min(hold, *meta->hold_down_ms);
    members.push_back({name, *meta->joined_ms});
  }
  if (members.empty() || hold == 0) {
    out.off = "disabled";
    return out;
  }
  out.hold_down_ms = hold;
  int64_t earliest = std::numeric_limits<int64_t>::max();
  for (const auto& m : members) {
    earliest = std::min(earliest, m.joined_ms);
  }
  for (const auto& m : members) {
    const int64_t ends = endOf(m.joined_ms, hold);
    // earliest <= joined - hold also implies the earliest member is another one (hold > 0).
    if (now_ms < ends && earliest <= m.joined_ms - hold) {
      out.held.emplace(m.name, ends);
      out.next_change_ms = std::min(out.next_change_ms.value_or(ends), ends);
    }
  }
  return out;
}

std::optional<std::string> holdDownOwner(const std::vector<std::string>& candidates,
                                         const std::set<std::string>& held) {
  for (const auto& c : candidates) {
    if (!held.contains(c)) {
      return c;
    }
  }
  if (candidates.empty()) {
    return std::nullopt;
  }
  return candidates.front();
}

}  // namespace ingot::agent
