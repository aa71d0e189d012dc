// SPDX-License-Identifier: Apache-2.0
// Internals shared by the parser's translation units (config/*.cpp). Not part of the Config
// contract: only config/ and its tests include this header.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "common/util/base64.h"
#include "common/util/quote.h"
#include "common/util/result.h"
#include "config/config.h"

namespace ingot::config::detail {

/// ObjectErrors reports problems found in one object into the shared error list, stamping each
/// ConfigError with the object's kind, namespace and name.
class ObjectErrors {
 public:
  ObjectErrors(std::vector<ConfigError>& out, std::string kind, const api::ObjectMeta& meta)
      : out_(out), kind_(std::move(kind)), namespace_(meta.namespace_), name_(meta.name) {}

  /// fail records a hard error: the configuration is invalid until the object changes.
  void fail(std::string field, std::string message) {
    add(std::move(field), std::move(message), false);
  }
  /// retry records a transient error: a referenced object (Secret, BFDProfile, Community alias)
  /// is missing and may still appear.
  void retry(std::string field, std::string message) {
    add(std::move(field), std::move(message), true);
  }
  /// count is the number of errors recorded through this reporter.
  size_t count() const { return count_; }
  bool ok() const { return count_ == 0; }
  const std::string& name() const { return name_; }

 private:
  void add(std::string field, std::string message, bool transient);

  std::vector<ConfigError>& out_;
  std::string kind_;
  std::string namespace_;
  std::string name_;
  size_t count_ = 0;
};

/// State is one parse in progress: the inputs, the snapshot being built and the errors so far.
struct State {
  const Inputs& in;
  const ParseOptions& options;
  Config cfg;
  std::vector<ConfigError> errors;
};

// Stages, run by parse() in MetalLB's order. Each reads earlier stages' results from State::cfg.
void parseBfdProfiles(State& s);
void parsePeers(State& s);
void parsePools(State& s);
void parseCommunities(State& s);
void parseL2Advertisements(State& s);
void parseBgpAdvertisements(State& s);
/// checkBackend applies the METALLB_BGP_TYPE-specific rules (native rejections, FRR peer pairs).
void checkBackend(State& s);
/// checkBfdEcho rejects IPv6 pools advertised to a peer whose BFD profile has echo mode.
void checkBfdEcho(State& s);

// ---------------------------------------------------------------------------------------------
// Helpers (helpers.cpp).

/// sortedByName returns pointers to items ordered by metadata.name; equal names keep input order,
/// so duplicate detection reports the later copy.
template <typename T>
std::vector<const T*> sortedByName(const std::vector<T>& items) {
  std::vector<const T*> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    out.push_back(&item);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const T* a, const T* b) { return a->metadata.name < b->metadata.name; });
  return out;
}

/// NamedKind says how one kind reports an object without a name or with a repeated name.
struct NamedKind {
  std::string_view kind;                              ///< ConfigError::kind, e.g. "IPAddressPool"
  std::string_view missing;                           ///< the message for an empty metadata.name
  std::string (*duplicate)(const std::string& name);  ///< the message for a repeated name
};

/// forEachNamed calls body(object, errs) for each object of items in name order, except an object
/// without a name or named like an earlier one: that gets one error on metadata.name instead (the
/// later copy of a repeated name is the one reported, as in MetalLB).
template <typename T, typename Body>
void forEachNamed(State& s, const std::vector<T>& items, const NamedKind& named, Body&& body) {
  std::set<std::string, std::less<>> seen;
  for (const T* cr : sortedByName(items)) {
    ObjectErrors errs(s.errors, std::string(named.kind), cr->metadata);
    if (cr->metadata.name.empty()) {
      errs.fail("metadata.name", std::string(named.missing));
    } else if (!seen.insert(cr->metadata.name).second) {
      errs.fail("metadata.name", named.duplicate(cr->metadata.name));
    } else {
      body(*cr, errs);
    }
  }
}

/// metaOf returns the metadata of the first item named name (a name-only ObjectMeta when there is
/// none), for errors found after parsing, when only the resolved object is at hand.
template <typename T>
api::ObjectMeta metaOf(const std::vector<T>& items, const std::string& name) {
  for (const auto& item : items) {
    if (item.metadata.name == name) {
      return item.metadata;
    }
  }
  api::ObjectMeta meta;
  meta.name = name;
  return meta;
}

/// goQuote (common/util/quote.h) quotes values in messages as MetalLB's %q does.
using ingot::goQuote;

/// goDuration formats a duration as Go's time.Duration.String(): "0s", "300ms", "1.5s", "1m30s".
std::string goDuration(std::chrono::nanoseconds d);

/// decodeBase64 decodes Secret data as Go's StdEncoding does (common/util/base64.h).
inline Result<std::string> decodeBase64(std::string_view text) {
  return ingot::decodeBase64(text, Base64Mode::GoStd);
}

/// indexed returns "field[i]".
std::string indexed(std::string_view field, size_t i);

/// checkSelectors validates a selector list the way MetalLB does before using it: each selector
/// must convert (api::checkSelector); no value may repeat inside one expression, no expression
/// inside one selector, no selector inside the list (compared after sorting values and
/// expressions). field is the JSON path of the list ("spec.nodeSelectors"); messages name its last
/// component. Returns true when the list is clean.
bool checkSelectors(const std::vector<api::LabelSelector>& list,
                    std::string_view field,
                    ObjectErrors& errs);

/// checkUnique reports every entry of list equal to an earlier one ("duplicate definition of
/// <what> %q") at field[i]. Returns true when all entries are distinct.
bool checkUnique(const std::vector<std::string>& list,
                 std::string_view field,
                 std::string_view what,
                 ObjectErrors& errs);

/// selectNodes returns the names of nodes matched by any selector, or every node when the list is
/// empty. Selectors are assumed valid (checkSelectors ran first).
std::set<std::string> selectNodes(const std::vector<api::Node>& nodes,
                                  const std::vector<api::LabelSelector>& selectors);

/// resolvePools returns the pools an advertisement applies to: all pools when neither names nor
/// selectors are given, otherwise the named pools that exist plus the pools whose labels match any
/// selector. Unknown names are ignored, as in MetalLB.
std::set<std::string> resolvePools(const std::vector<std::string>& names,
                                   const std::vector<api::LabelSelector>& selectors,
                                   const std::map<std::string, Pool>& pools);

// ---------------------------------------------------------------------------------------------
// Communities (communities.cpp).

/// parseCommunity parses a literal community: "A:B" (two uint16) or "large:A:B:C" (three uint32).
/// Errors use MetalLB's wording; code InvalidArgument = malformed numbers or large marker
/// ("invalid community value: ..."), code NotFound = not shaped like a community at all
/// ("invalid community format: ..."), which for a BGPAdvertisement may be a missing alias.
Result<BgpCommunity> parseCommunity(std::string_view text);

/// kMaxCommunitiesFrr is the most communities one advertisement may carry with FRR backends.
inline constexpr size_t kMaxCommunitiesFrr = 63;

/// intersects tells whether two name sets share a member.
inline bool intersects(const std::set<std::string>& a, const std::set<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return b.count(x) != 0; });
}

// ---------------------------------------------------------------------------------------------
// Peers (peers.cpp).

/// Timers is a peer's effective hold and keepalive time (both set or both unset).
struct Timers {
  std::optional<std::chrono::nanoseconds> hold;
  std::optional<std::chrono::nanoseconds> keepalive;
};

/// deriveTimers applies MetalLB's rules: only hold given → keepalive = hold/3; only keepalive →
/// hold = 3×keepalive; the hold time rounded down to seconds must be 0 or ≥ 3 s; keepalive must
/// not exceed hold. Error messages are MetalLB's.
Result<Timers> deriveTimers(const std::optional<api::Duration>& hold,
                            const std::optional<api::Duration>& keepalive);

/// peerIdentity is the key FRR sessions are unique by: address (or interface) plus "-vrf".
std::string peerIdentity(const Peer& peer);

}  // namespace ingot::config::detail
