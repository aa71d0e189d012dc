// SPDX-License-Identifier: Apache-2.0
#include "frrgen/weight_raw.h"

#include <map>
#include <utility>
#include <vector>

#include "frrgen/convert.h"
#include "frrgen/policy.h"

namespace ingot::frrgen {

namespace {

using BandwidthLists = std::map<std::pair<net::Family, uint32_t>, std::vector<std::string>>;

const char* listKeyword(net::Family f) {
  return f == net::Family::V4 ? "ip" : "ipv6";
}

std::string bandwidthListName(const std::string& id, net::Family f, uint32_t bandwidth) {
  return id + "-" + std::to_string(bandwidth) + "-" + listKeyword(f) + "-bandwidth-prefixes";
}

BandwidthLists bandwidthLists(const Neighbor& n) {
  BandwidthLists lists;
  for (auto [family, out] :
       {std::pair{net::Family::V4, &n.outgoing_v4}, std::pair{net::Family::V6, &n.outgoing_v6}}) {
    for (const auto& o : *out) {
      if (o.bandwidth != 0) lists[{family, o.bandwidth}].push_back(o.prefix);
    }
  }
  return lists;
}

std::string mapEntry(const std::string& map, uint32_t seq, const std::string& body) {
  return "route-map " + map + " permit " + std::to_string(seq) + "\n" + body + "exit\n";
}

// neighborText is one neighbor's raw text ("" when it sends no bandwidth).
Result<std::string> neighborText(const Neighbor& n) {
  const BandwidthLists lists = bandwidthLists(n);
  if (lists.empty()) return std::string();
  if (kWeightSeqFirst + lists.size() > kAllowedV4Seq) {
    return invalidArgument("neighbor " + n.id() + ": " + std::to_string(lists.size()) +
                           " link-bandwidth values do not fit its outbound route-map");
  }
  const std::string id = n.id();
  const std::string map = id + "-out";
  std::string text;
  for (const auto& [key, prefixes] : lists) {
    const std::string name = bandwidthListName(id, key.first, key.second);
    auto seqs = assignSeqs(prefixes, kPrefixSeqMax);
    if (!seqs) return seqs.error();
    std::map<uint32_t, std::string> by_seq;
    for (size_t i = 0; i < prefixes.size(); ++i) by_seq.emplace((*seqs)[i], prefixes[i]);
    for (const auto& [seq, prefix] : by_seq) {
      text += std::string(listKeyword(key.first)) + " prefix-list " + name + " seq " +
              std::to_string(seq) + " permit " + prefix + "\n";
    }
  }
  const AllowedSeqs allowed = frrk8sAllowedSeqs(n);
  text += mapEntry(map, allowed.v4, " on-match next\n");
  text += mapEntry(map, allowed.v6, " on-match next\n");
  uint32_t seq = kWeightSeqFirst;
  for (const auto& [key, prefixes] : lists) {
    text += mapEntry(map, seq++,
                     " match " + std::string(listKeyword(key.first)) + " address prefix-list " +
                         bandwidthListName(id, key.first, key.second) +
                         "\n set extcommunity bandwidth " + std::to_string(key.second) + "\n");
  }
  text += mapEntry(map, kAllowedV4Seq, " match ip address prefix-list " + id + "-allowed-ipv4\n");
  text += mapEntry(map, kAllowedV6Seq, " match ipv6 address prefix-list " + id + "-allowed-ipv6\n");
  return text;
}

}  // namespace

Result<std::string> weightRawConfig(const api::FRRConfiguration& config) {
  api::FRRConfiguration plain = config;
  for (auto& r : plain.spec.routers) {
    for (auto& n : r.neighbors) {
      // Only the policy matters here: a passwordSecret would need the Secret to convert.
      n.password.clear();
      n.password_secret.reset();
    }
  }
  auto converted = convert(plain, {});
  if (!converted) return converted.error();
  return weightRawText(converted->routers);
}

Result<std::string> weightRawText(const std::vector<Router>& routers) {
  std::string text;
  for (const auto& r : routers) {
    for (const auto& n : r.neighbors) {
      auto t = neighborText(n);
      if (!t) return t.error();
      text += *t;
    }
  }
  return text;
}

bool hasBandwidth(const api::FRRConfiguration& config) {
  for (const auto& router : config.spec.routers) {
    for (const auto& neighbor : router.neighbors) {
      if (!neighbor.to_advertise.with_bandwidth.empty()) return true;
    }
  }
  return false;
}

Result<api::FRRConfiguration> forFrrK8s(api::FRRConfiguration config) {
  if (!hasBandwidth(config)) return config;
  auto text = weightRawConfig(config);
  if (!text) return text.error();
  for (auto& r : config.spec.routers) {
    for (auto& n : r.neighbors) n.to_advertise.with_bandwidth.clear();
  }
  if (!text->empty()) {
    config.spec.raw = api::FrrRawConfig{kWeightRawPriority, std::move(*text)};
  }
  return config;
}

}  // namespace ingot::frrgen
