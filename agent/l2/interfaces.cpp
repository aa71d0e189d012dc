// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/interfaces.h"

#include <fstream>
#include <net/if.h>
#include <sstream>

#include "common/json/value.h"
#include "common/yaml/reader.h"

namespace ingot::agent::l2 {

namespace {

constexpr const char* kExcludeKey = "announcedInterfacesToExclude";

}  // namespace

Result<ExcludeList> ExcludeList::parse(std::string_view yaml, std::string_view source) {
  ExcludeList out;
  auto root = yaml::parseFirstDocument(yaml, yaml::Scalars::Text);
  if (!root) {
    return invalidArgument(std::string(source) + ": not YAML: " + root.error().message);
  }
  if (root->isNull()) {
    return out;
  }
  const json::Value* list = root->find(kExcludeKey);
  if (!root->isObject() || (list != nullptr && !list->isNull() && !list->isArray())) {
    return invalidArgument(std::string(source) + ": " + kExcludeKey +
                           ": must be a list of regexes");
  }
  const size_t count = list != nullptr && list->isArray() ? list->size() : 0;
  for (size_t i = 0; i < count; ++i) {
    const std::string field =
        std::string(source) + ": " + kExcludeKey + "[" + std::to_string(i) + "]";
    const json::Value& item = list->items()[i];
    if (!item.isString()) {
      return invalidArgument(field + ": must be a string");
    }
    try {
      out.patterns_.emplace_back(item.text(), std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return invalidArgument(field + ": invalid regex \"" + item.text() + "\": " + e.what());
    }
  }
  return out;
}

Result<ExcludeList> ExcludeList::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return ExcludeList{};
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

bool ExcludeList::excludes(const std::string& name) const {
  for (const auto& re : patterns_) {
    if (std::regex_search(name, re)) {
      return true;
    }
  }
  return false;
}

std::vector<AnnounceInterface> selectInterfaces(const std::vector<InterfaceFacts>& facts,
                                                const ExcludeList& exclude) {
  std::vector<AnnounceInterface> out;
  for (const auto& f : facts) {
    if ((f.flags & IFF_UP) == 0 || f.enslaved || (f.flags & IFF_NOARP) != 0 ||
        exclude.excludes(f.name)) {
      continue;
    }
    AnnounceInterface a{f.name,
                        f.index,
                        f.mac,
                        (f.flags & IFF_BROADCAST) != 0,
                        f.link_local.has_value(),
                        f.link_local.value_or(Ip6{})};
    if (a.arp || a.ndp) {
      out.push_back(std::move(a));
    }
  }
  return out;
}

InterfaceRestriction restrictInterfaces(const std::vector<AnnounceInterface>& usable,
                                        const std::optional<std::set<std::string>>& names) {
  InterfaceRestriction r;
  if (!names) {
    r.selected = usable;
    return r;
  }
  for (const auto& name : *names) {
    bool found = false;
    for (const auto& a : usable) {
      if (a.name == name) {
        r.selected.push_back(a);
        found = true;
      }
    }
    if (!found) {
      r.missing.push_back(name);
    }
  }
  return r;
}

}  // namespace ingot::agent::l2
