// SPDX-License-Identifier: Apache-2.0
#include "frrgen/yang_data.h"

#include "common/util/quote.h"

namespace ingot::frrgen {

namespace {

constexpr uint64_t kMicrosPerMilli = 1000;

// Members joins "key": value pairs of one JSON object.
class Members {
 public:
  Members& add(const std::string& key, const std::string& raw_value) {
    text_ += (text_.empty() ? "" : ",") + jsonQuote(key) + ":" + raw_value;
    return *this;
  }
  std::string object() const { return "{" + text_ + "}"; }

 private:
  std::string text_;
};

std::string array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]";
}

std::string prefixEntry(const PrefixListEntry& e, net::Family f) {
  Members m;
  m.add("sequence", std::to_string(e.seq));
  m.add("action", jsonQuote(e.action == Action::Permit ? "permit" : "deny"));
  if (e.prefix.empty()) {
    m.add("any", "[null]");
    return m.object();
  }
  const std::string fam = f == net::Family::V4 ? "ipv4" : "ipv6";
  m.add(fam + "-prefix", jsonQuote(e.prefix));
  if (e.ge) m.add(fam + "-prefix-length-greater-or-equal", std::to_string(*e.ge));
  if (e.le) m.add(fam + "-prefix-length-lesser-or-equal", std::to_string(*e.le));
  return m.object();
}

std::string prefixList(const PrefixList& list) {
  std::vector<std::string> entries;
  for (const auto& e : list.entries) entries.push_back(prefixEntry(e, list.family));
  return Members()
      .add("type", jsonQuote(list.family == net::Family::V4 ? "ipv4" : "ipv6"))
      .add("name", jsonQuote(list.name))
      .add("entry", array(entries))
      .object();
}

// bandwidthAction is `set extcommunity bandwidth N` (transitive: two-octet-as-specific unset).
std::string bandwidthAction(const RouteMapEntry& e) {
  return Members()
      .add("action", jsonQuote("frr-bgp-route-map:set-extcommunity-lb"))
      .add("rmap-set-action", Members()
                                  .add("frr-bgp-route-map:extcommunity-lb",
                                       Members()
                                           .add("lb-type", jsonQuote("explicit-bandwidth"))
                                           .add("bandwidth", e.set_value)
                                           .object())
                                  .object())
      .object();
}

std::string setAction(const RouteMapEntry& e) {
  std::string identity;
  std::string leaf;
  switch (e.set) {
    case SetKind::LocalPreference:
      identity = "set-local-preference";
      leaf = "local-pref";
      break;
    case SetKind::Community:
      identity = "set-community";
      leaf = "community-string";
      break;
    case SetKind::LargeCommunity:
      identity = "set-large-community";
      leaf = "large-community-string";
      break;
    case SetKind::Bandwidth:
      return bandwidthAction(e);
    case SetKind::None:
      return "";
  }
  const std::string value = e.set == SetKind::LocalPreference ? e.set_value
                            : e.set == SetKind::Community
                                ? frrCommunityText(e.set_value) + " additive"
                                : e.set_value + " additive";
  return Members()
      .add("action", jsonQuote("frr-bgp-route-map:" + identity))
      .add("rmap-set-action", Members().add("frr-bgp-route-map:" + leaf, jsonQuote(value)).object())
      .object();
}

std::string routeMapEntry(const RouteMapEntry& e) {
  const std::string condition = e.match_family == net::Family::V4
                                    ? "frr-route-map:ipv4-prefix-list"
                                    : "frr-route-map:ipv6-prefix-list";
  Members m;
  m.add("sequence", std::to_string(e.seq));
  m.add("action", jsonQuote(e.action == Action::Permit ? "permit" : "deny"));
  if (e.on_match_next) m.add("exit-policy", jsonQuote("next"));
  m.add("match-condition",
        array({Members()
                   .add("condition", jsonQuote(condition))
                   .add("rmap-match-condition",
                        Members().add("list-name", jsonQuote(e.match_list)).object())
                   .object()}));
  if (e.set != SetKind::None) m.add("set-action", array({setAction(e)}));
  return m.object();
}

std::string routeMap(const RouteMap& map) {
  std::vector<std::string> entries;
  for (const auto& e : map.entries) entries.push_back(routeMapEntry(e));
  return Members().add("name", jsonQuote(map.name)).add("entry", array(entries)).object();
}

void optionalNumber(Members& m,
                    const std::string& key,
                    const std::optional<uint32_t>& v,
                    uint64_t scale) {
  if (v) m.add(key, std::to_string(static_cast<uint64_t>(*v) * scale));
}

std::string bfdProfile(const BfdProfile& p) {
  Members m;
  m.add("name", jsonQuote(p.name));
  optionalNumber(m, "detection-multiplier", p.detect_multiplier, 1);
  optionalNumber(m, "desired-transmission-interval", p.transmit_interval, kMicrosPerMilli);
  optionalNumber(m, "required-receive-interval", p.receive_interval, kMicrosPerMilli);
  m.add("passive-mode", p.passive_mode ? "true" : "false");
  m.add("echo-mode", p.echo_mode ? "true" : "false");
  optionalNumber(m, "desired-echo-transmission-interval", p.echo_interval, kMicrosPerMilli);
  optionalNumber(m, "required-echo-receive-interval", p.echo_interval, kMicrosPerMilli);
  optionalNumber(m, "minimum-ttl", p.minimum_ttl, 1);
  return m.object();
}

}  // namespace

std::string yangInstanceJson(const std::vector<NeighborPolicy>& policy,
                             const std::vector<BfdProfile>& bfd_profiles) {
  std::vector<std::string> lists;
  std::vector<std::string> maps;
  for (const auto& p : policy) {
    for (const auto& l : p.prefix_lists) lists.push_back(prefixList(l));
    maps.push_back(routeMap(p.out));
    maps.push_back(routeMap(p.in));
  }
  std::vector<std::string> profiles;
  profiles.reserve(bfd_profiles.size());
  for (const auto& b : bfd_profiles) profiles.push_back(bfdProfile(b));
  Members doc;
  if (!lists.empty()) {
    doc.add("frr-filter:lib", Members().add("prefix-list", array(lists)).object());
  }
  if (!maps.empty()) doc.add("frr-route-map:lib", Members().add("route-map", array(maps)).object());
  if (!profiles.empty()) {
    doc.add("frr-bfdd:bfdd",
            Members().add("bfd", Members().add("profile", array(profiles)).object()).object());
  }
  return doc.object();
}

}  // namespace ingot::frrgen
