// SPDX-License-Identifier: Apache-2.0
// Per-object field validation: what MetalLB's CRD schema, CEL rules and per-object parser checks
// reject, frr-k8s' per-object rules for FRRConfiguration (its CRD schema and webhook), and for
// core kinds only what Ingot relies on. Messages reproduce MetalLB's where they are known. Rules
// that need several objects (pool overlap across pools, duplicate pool or alias names across
// objects, community alias resolution, BFD profile / Secret existence, peer conflicts, LOCAL_PREF
// consistency, aggregation length vs pool prefixes, FRRConfiguration merge conflicts) belong to
// config/ and frrgen/, not here.
#pragma once

#include <string>
#include <vector>

#include "api/object.h"
#include "common/util/quote.h"

namespace ingot::api {

/// FieldError is one violation: field is a JSON path ("spec.addresses[1]", "metadata.name").
struct FieldError {
  std::string field;
  std::string message;
  friend bool operator==(const FieldError&, const FieldError&) = default;
};

/// validateObject returns every field-level violation of object, in field order; empty = valid.
std::vector<FieldError> validateObject(const AnyObject& object);

/// frrLimitErrors returns the values of peer FRR 8.4 or the kernel would refuse once rendered
/// (part of validateObject; also checked where MetalLB admits a BGPPeer without validating it).
std::vector<FieldError> frrLimitErrors(const BGPPeer& peer);

/// goQuote (common/util/quote.h) quotes values in messages as Go's %q does.
using ingot::goQuote;

/// kDisableMpWarning is the warning MetalLB's BGPPeer webhook sends for `disableMP: true`.
inline constexpr const char* kDisableMpWarning =
    "disable mp is deprecated and has no effect since it's the default behavior now";

/// objectWarnings returns what MetalLB's webhooks answer with an admission warning (the object is
/// accepted): a BGPPeer (v1beta2) with disableMP set.
std::vector<FieldError> objectWarnings(const AnyObject& object);

}  // namespace ingot::api
