// SPDX-License-Identifier: Apache-2.0
#include "agent/core/prefix_limit.h"

namespace ingot::agent {

PrefixStep limitNewPrefixes(const std::vector<Announcement>& desired,
                            const std::set<std::string>& applied,
                            size_t max_new) {
  max_new = max_new == 0 ? 1 : max_new;
  std::set<std::string> fresh;
  for (const auto& a : desired) {
    std::string p = a.prefix.toString();
    if (!applied.contains(p)) fresh.insert(std::move(p));
  }
  std::set<std::string> admitted;
  for (const auto& p : fresh) {
    if (admitted.size() == max_new) break;
    admitted.insert(p);
  }
  PrefixStep step;
  step.deferred = fresh.size() - admitted.size();
  for (const auto& a : desired) {
    std::string p = a.prefix.toString();
    if (applied.contains(p) || admitted.contains(p)) {
      step.announcements.push_back(a);
      step.prefixes.insert(std::move(p));
    }
  }
  return step;
}

}  // namespace ingot::agent
