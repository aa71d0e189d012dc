// SPDX-License-Identifier: Apache-2.0
// Helpers shared by validate*.cpp. Not a public API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/frrk8s.h"
#include "api/types.h"
#include "api/validate.h"

namespace ingot::api::validation {

using Errors = std::vector<FieldError>;

inline void add(Errors& errors, std::string field, std::string message) {
  errors.push_back(FieldError{std::move(field), std::move(message)});
}

/// checkName requires metadata.name (or, when allowed, metadata.generateName).
void checkName(const ObjectMeta& meta, Errors& errors, bool allow_generate_name = false);

/// checkDuplicates reports the first repeated entry: "duplicate definition of <what> %q".
void checkDuplicates(const std::vector<std::string>& list,
                     const std::string& field,
                     const std::string& what,
                     Errors& errors);

/// checkSelectors validates each selector (checkSelector), duplicate values and expressions
/// inside one selector, and duplicate selectors in the list ("duplicate definition of <what>").
void checkSelectors(const std::vector<LabelSelector>& list,
                    const std::string& field,
                    const std::string& what,
                    Errors& errors);
void checkSelector(const LabelSelector& selector, const std::string& field, Errors& errors);

/// checkRange reports the schema message for value outside [min, max].
void checkRange(int64_t value, int64_t min, int64_t max, const std::string& field, Errors& errors);

/// checkTimers applies MetalLB's hold/keepalive rules (hold derived from keepalive and vice
/// versa, rounded-down hold 0 or >=3s, keepalive <= hold). Fields are field_prefix + "holdTime"
/// / "keepaliveTime"; messages start with message_prefix.
void checkTimers(const std::optional<Duration>& hold,
                 const std::optional<Duration>& keepalive,
                 const std::string& field_prefix,
                 const std::string& message_prefix,
                 Errors& errors);

/// checkFrrHoldTime refuses a hold time (derived from the keepalive when only that is given)
/// above FRR's 65535 s.
void checkFrrHoldTime(const std::optional<Duration>& hold,
                      const std::optional<Duration>& keepalive,
                      const std::string& field_prefix,
                      const std::string& message_prefix,
                      Errors& errors);

/// checkFrrLimits refuses BGPPeer values FRR 8.4 or the kernel would refuse once rendered
/// (api/frr_limits.h): password, hold time, VRF and interface names, router ID, local ASN.
void checkFrrLimits(const BGPPeer& peer, Errors& errors);

/// checkConnectTime applies the CEL rules: 1..65535 whole seconds.
void checkConnectTime(const std::optional<Duration>& connect,
                      const std::string& field,
                      Errors& errors);

/// checkIp reports message (with the value quoted) unless text is empty or a valid IP.
void checkIp(const std::string& text,
             const std::string& field,
             const std::string& message,
             Errors& errors);

/// communityError returns "" if text is a valid community (A:B of uint16, large:A:B:C of
/// uint32), else MetalLB's error text; isCommunityFormat tells whether text has that shape at all
/// (2 or 4 colon-separated parts) as opposed to being an alias name.
std::string communityError(const std::string& text);
bool isCommunityFormat(const std::string& text);

void validateBgpPeer(const BGPPeer& peer, Errors& errors);
void validateBgpPeerV1beta1(const BGPPeerV1beta1& peer, Errors& errors);
void validateFrrConfiguration(const FRRConfiguration& config, Errors& errors);

}  // namespace ingot::api::validation
