// SPDX-License-Identifier: Apache-2.0
// source: from the FRRConfiguration objects of the daemon's namespace to the merged model for
// this node. Pure: the objects, Secrets and node labels are passed in.
//
// Every object is kept, even one that does not decode: an object that cannot be read might be
// meant for this node, so it is a conversion error here (frr-k8s would not see it at all), unless
// its nodeSelector.matchLabels can be read and exclude this node. Fields ingot-frr does not
// implement are refused with the field's path instead of being ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/frrk8s.h"
#include "api/types.h"
#include "common/json/value.h"
#include "common/util/result.h"
#include "frrgen/model.h"

namespace ingot::ingotfrr {

/// Entry is one FRRConfiguration as read from the API: decoded, or the reason it is not.
struct Entry {
  std::string namespace_;
  std::string name;
  std::optional<api::FRRConfiguration> config;  ///< set when it decoded and is supported
  std::string error;                            ///< why config is unset
  /// selector_labels: spec.nodeSelector.matchLabels of an object that did not decode, when it
  /// could be read and the selector has nothing else (so it can rule this node out).
  std::optional<api::StringMap> selector_labels;
  friend bool operator==(const Entry&, const Entry&) = default;
};

/// unsupportedFields returns one "<path>: <reason>" per field of an FRRConfiguration tree that
/// ingot-frr does not implement: the frr-k8s fields newer than v0.0.25 (routers[].evpn,
/// neighbors[].addressFamilies, toAdvertise.nextHop). spec.raw is implemented as in frr-k8s (the
/// snippets appended to the file by priority, then name: FrrPort::applyFile). Fields it does not
/// know at all are left to the strict decoder.
std::vector<std::string> unsupportedFields(const json::Value& object);

/// decodeEntry reads one object's JSON. Never fails: problems land in Entry::error.
Entry decodeEntry(std::string_view json);

/// entryKey is "namespace/name".
std::string entryKey(const Entry& e);

/// Desired is what the merge made of the entries for this node.
struct Desired {
  frrgen::Model model;
  std::vector<std::string> selected;  ///< keys of the configurations that select the node
};

/// desiredFor selects the entries of namespace ns that select the node (labels), and merges them
/// with frr-k8s' rules (frrgen::merge, explicit defaults kept) resolving Secrets of ns.
/// Errors: a selected or possibly-selecting entry that did not decode or is not supported
/// ("FRRConfiguration ns/name: <reason>"), an invalid selector, a merge conflict, a missing or
/// malformed Secret (ErrorCode::Transient when missing). No entries → the empty model.
Result<Desired> desiredFor(const std::vector<Entry>& entries,
                           const std::vector<api::Secret>& secrets,
                           const std::string& ns,
                           const api::StringMap& labels);

}  // namespace ingot::ingotfrr
