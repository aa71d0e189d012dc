// SPDX-License-Identifier: Apache-2.0
#include "agent/core/election.h"

#include <algorithm>
#include <cstring>
#include <map>

#include <openssl/evp.h>

#include "agent/core/drain.h"
#include "agent/core/predicates.h"
#include "api/selector.h"
#include "common/net/ip.h"
#include "common/util/assert.h"

namespace ingot::agent {

namespace {

// Ranked pairs a candidate with its digest so that sorting never hashes.
struct Ranked {
  L2Digest digest;
  const std::string* name;
};

// selectedByAny reports whether one of the advertisements selects the node.
bool selectedByAny(const std::vector<const config::L2Advertisement*>& ads,
                   const std::string& node) {
  return std::any_of(ads.begin(), ads.end(), [&node](const config::L2Advertisement* ad) {
    return ad->nodes.contains(node);
  });
}

// rankNames orders names by ascending digest, hashing each once, and copies them out once.
std::vector<std::string> rankNames(const std::vector<const std::string*>& names,
                                   std::string_view ip,
                                   L2Hasher& hasher) {
  std::vector<Ranked> ranked;
  ranked.reserve(names.size());
  for (const auto* n : names) {
    ranked.push_back({hasher.digest(*n, ip), n});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    const int c = std::memcmp(a.digest.data(), b.digest.data(), a.digest.size());
    return c != 0 ? c < 0 : *a.name < *b.name;
  });
  std::vector<std::string> out;
  out.reserve(ranked.size());
  for (const auto& r : ranked) {
    out.push_back(*r.name);
  }
  return out;
}

// selectedMask marks the eligible nodes that one of the advertisements selects. When eligible is
// strictly increasing (as l2Membership makes it) each advertisement's sorted node set is merged
// with it in one pass instead of one lookup per node.
std::vector<char> selectedMask(const std::vector<const config::L2Advertisement*>& ads,
                               const std::vector<std::string>& eligible) {
  std::vector<char> sel(eligible.size(), 0);
  const bool increasing = std::adjacent_find(eligible.begin(), eligible.end(),
                                             [](const std::string& a, const std::string& b) {
                                               return a >= b;
                                             }) == eligible.end();
  for (const auto* ad : ads) {
    if (!increasing) {
      for (size_t i = 0; i < eligible.size(); ++i) {
        sel[i] = static_cast<char>(sel[i] || ad->nodes.contains(eligible[i]));
      }
      continue;
    }
    auto it = ad->nodes.begin();
    for (size_t i = 0; i < eligible.size() && it != ad->nodes.end();) {
      const int c = eligible[i].compare(*it);
      if (c == 0) {
        sel[i] = 1;
      }
      if (c <= 0) {
        ++i;
      }
      if (c >= 0) {
        ++it;
      }
    }
  }
  return sel;
}

// reasonWithoutCandidates names why the candidate list is empty.
L2Reason reasonWithoutCandidates(const L2Subject& subject, bool any_before_local) {
  if (subject.ads.empty()) {
    return L2Reason::NoMatchingAdvertisement;
  }
  return any_before_local ? L2Reason::NoCandidateWithLocalEndpoint : L2Reason::NoCandidateNode;
}

}  // namespace

Result<std::string> goIpString(std::string_view text) {
  auto ip = net::IpAddress::parse(text);
  if (!ip) {
    return ip.error();
  }
  return ip->toString();
}

L2Hasher::L2Hasher() : md_(EVP_MD_fetch(nullptr, "SHA256", nullptr)), ctx_(EVP_MD_CTX_new()) {
  if (md_ == nullptr || ctx_ == nullptr) {
    EVP_MD_free(md_);
    EVP_MD_CTX_free(ctx_);
    throw std::runtime_error("OpenSSL has no SHA-256 digest available");
  }
}

L2Hasher::~L2Hasher() {
  EVP_MD_CTX_free(ctx_);
  EVP_MD_free(md_);
}

L2Digest L2Hasher::digest(std::string_view node, std::string_view ip) {
  buf_.assign(node);
  buf_ += '#';
  buf_ += ip;
  L2Digest out{};
  unsigned int len = 0;
  // A fetched SHA-256 cannot fail on these calls; a failure is a broken libcrypto.
  const bool ok = EVP_DigestInit_ex(ctx_, md_, nullptr) == 1 &&
                  EVP_DigestUpdate(ctx_, buf_.data(), buf_.size()) == 1 &&
                  EVP_DigestFinal_ex(ctx_, out.data(), &len) == 1 && len == out.size();
  INGOT_RELEASE_ASSERT(ok);
  ++count_;
  return out;
}

std::vector<std::string> rankL2(const std::vector<std::string>& names,
                                std::string_view ip,
                                L2Hasher& hasher) {
  std::vector<const std::string*> ptrs;
  ptrs.reserve(names.size());
  for (const auto& n : names) {
    ptrs.push_back(&n);
  }
  return rankNames(ptrs, ip, hasher);
}

std::string_view l2ReasonName(L2Reason reason) {
  switch (reason) {
    case L2Reason::None:
      return "";
    case L2Reason::NoActiveEndpoint:
      return "noActiveEndpoint";
    case L2Reason::NoMatchingAdvertisement:
      return "noMatchingAdvertisement";
    case L2Reason::NoCandidateNode:
      return "noCandidateNode";
    case L2Reason::NoCandidateWithLocalEndpoint:
      return "noCandidateWithLocalEndpoint";
  }
  return "unknown";
}

std::string_view l2VerdictReason(L2Verdict verdict) {
  switch (verdict) {
    case L2Verdict::Announce:
      return "";
    case L2Verdict::NotOwner:
      return "notOwner";
    case L2Verdict::NoMatchingAdvertisement:
      return "noMatchingAdvertisement";
  }
  return "unknown";
}

L2Membership l2Membership(const std::vector<api::Node>& nodes,
                          const std::set<std::string>& live,
                          bool ignore_exclude_lb,
                          const DrainOptions& drain) {
  std::map<std::string_view, const api::Node*> by_name;
  for (const auto& n : nodes) {
    by_name.emplace(n.metadata.name, &n);
  }
  L2Membership m;
  for (const auto& name : live) {
    auto it = by_name.find(name);
    const api::Node* node = it == by_name.end() ? nullptr : it->second;
    if (nodeNetworkUnavailable(node) || (!ignore_exclude_lb && nodeExcludedFromBalancers(node)) ||
        nodeDrainReason(node, drain) != DrainReason::None) {
      continue;
    }
    m.eligible.push_back(name);
  }
  return m;
}

std::optional<std::set<std::string>> l2Interfaces(const L2Subject& subject,
                                                  const std::string& node) {
  std::set<std::string> out;
  for (const auto* ad : subject.ads) {
    if (!ad->nodes.contains(node)) {
      continue;
    }
    if (ad->interfaces.empty()) {
      return std::nullopt;
    }
    out.insert(ad->interfaces.begin(), ad->interfaces.end());
  }
  return out;
}

std::vector<const config::L2Advertisement*> l2AdsOfPool(const config::Config& config,
                                                        const std::string& pool) {
  std::vector<const config::L2Advertisement*> out;
  for (const auto& ad : config.l2_advertisements) {
    if (ad.pools.contains(pool)) {
      out.push_back(&ad);
    }
  }
  return out;
}

L2Subject l2Subject(const api::Service& service,
                    std::string ip,
                    const std::vector<const config::L2Advertisement*>& pool_ads,
                    const std::vector<api::EndpointSlice>& slices) {
  L2Subject s;
  s.ip = std::move(ip);
  for (const auto* ad : pool_ads) {
    if (ad->service_selectors.empty() ||
        api::matchesAny(ad->service_selectors, service.metadata.labels)) {
      s.ads.push_back(ad);
    }
  }
  s.local = service.spec.external_traffic_policy == "Local";
  for (const auto& slice : slices) {
    if (!sliceOfService(slice, service)) {
      continue;
    }
    for (const auto& ep : slice.endpoints) {
      if (!endpointCanServe(ep.conditions)) {
        continue;
      }
      s.active_endpoint = true;
      if (ep.node_name) {
        s.endpoint_nodes.insert(*ep.node_name);
      }
    }
  }
  return s;
}

L2Verdict L2Election::verdictFor(const L2Subject& subject, std::string_view node) const {
  if (!subject.active_endpoint) {
    return L2Verdict::NotOwner;
  }
  if (!selectedByAny(subject.ads, std::string(node))) {
    return L2Verdict::NoMatchingAdvertisement;
  }
  return winner == node ? L2Verdict::Announce : L2Verdict::NotOwner;
}

L2Election electL2(const L2Subject& subject, const L2Membership& membership, L2Hasher& hasher) {
  const auto selected = selectedMask(subject.ads, membership.eligible);
  std::vector<const std::string*> names;
  bool any_before_local = false;
  for (size_t i = 0; i < membership.eligible.size(); ++i) {
    const std::string& name = membership.eligible[i];
    if (selected[i] == 0) {
      continue;
    }
    any_before_local = true;
    if (subject.local && !subject.endpoint_nodes.contains(name)) {
      continue;
    }
    names.push_back(&name);
  }
  L2Election e;
  e.candidates = rankNames(names, subject.ip, hasher);
  if (!subject.active_endpoint) {
    e.reason = L2Reason::NoActiveEndpoint;
  } else if (e.candidates.empty()) {
    e.reason = reasonWithoutCandidates(subject, any_before_local);
  } else {
    e.winner = e.candidates.front();
  }
  return e;
}

std::string_view L2Decision::reason() const {
  return gate ? bgpSkipReason(*gate) : l2VerdictReason(verdict);
}

bool prepareL2(const config::Config& config,
               const api::Service& service,
               const std::vector<api::EndpointSlice>& slices,
               const AnnounceOptions& options,
               L2Decision& decision) {
  ServiceGate gate = gateService(config, service, options);
  if (gate.pool != nullptr) {
    decision.pool = gate.pool->name;
  }
  if (gate.skip) {
    decision.gate = gate.skip;
    return false;
  }
  const auto ads = l2AdsOfPool(config, decision.pool);
  decision.l2_pool = !ads.empty();
  // Using the first IP works for single and dual stack, as in MetalLB.
  decision.subject = l2Subject(service, gate.ips.front().toString(), ads, slices);
  return true;
}

L2Decision decideL2(const config::Config& config,
                    const std::string& node_name,
                    const api::Service& service,
                    const std::vector<api::EndpointSlice>& slices,
                    const L2Membership& membership,
                    const AnnounceOptions& options,
                    L2Hasher& hasher) {
  L2Decision d;
  if (prepareL2(config, service, slices, options, d)) {
    d.election = electL2(d.subject, membership, hasher);
    d.verdict = d.election.verdictFor(d.subject, node_name);
  }
  return d;
}

void logL2Decision(log::Logger& logger, const std::string& key, const L2Decision& decision) {
  const auto& e = decision.election;
  logger.info("layer2", decision.announced() ? "serviceAnnounced" : "serviceNotAnnounced",
              "layer 2 election",
              {{"key", key},
               {"pool", decision.pool},
               {"winner", e.winner.value_or("")},
               {"reason", std::string(decision.reason())},
               {"serviceReason", std::string(l2ReasonName(e.reason))},
               log::num("candidates", static_cast<long long>(e.candidates.size()))});
}

}  // namespace ingot::agent
