// SPDX-License-Identifier: Apache-2.0
// Redaction for `ingotctl support-bundle`: what a bug report must not carry (Secrets' values,
// BGP passwords, tokens). Two layers: rules on the structure of each object and on FRR's text,
// then a scrub of every file for the sensitive values themselves (so a value copied somewhere
// the rules do not know, e.g. a rendered frr.conf or an Event message, is caught too). Pure.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/json/value.h"

namespace ingot::cli {

/// kRedacted replaces every value taken out.
inline constexpr std::string_view kRedacted = "<redacted>";

/// kMinScrubLength: shorter values are not scrubbed by text (they would match ordinary
/// words); the structural rules still remove them.
inline constexpr size_t kMinScrubLength = 4;

/// redactObject returns a copy of a Kubernetes object with: metadata.managedFields dropped; the
/// last-applied-configuration annotation's value replaced; every value under a Secret's data and
/// stringData replaced (keys kept); anywhere in the object, the value of a member whose name is
/// a credential name (password, token, bearerToken, secretKey, any case) and the value of a
/// {name, value} pair (a container's env) whose name looks like a credential (contains PASS,
/// TOKEN, SECRET, KEY or CREDENTIAL) replaced. Replaced strings become kRedacted; other
/// replaced types too.
json::Value redactObject(const json::Value& object);

/// redactFrrText replaces the word after "password" on every line of FRR configuration or show
/// output (neighbor ... password X, enable password X, password X).
std::string redactFrrText(std::string_view text);

/// sensitiveValues collects, from raw (unredacted) objects, every value redactObject would
/// remove that is at least kMinScrubLength long: Secret data (as stored and decoded from base64)
/// and stringData, except the public keys namespace, ca.crt and tls.crt, and the string values
/// of credential-named members.
std::set<std::string> sensitiveValues(const std::vector<json::Value>& objects);

/// scrub replaces every occurrence of each value, and of its base64 encoding, in text with
/// kRedacted and returns how many it replaced.
size_t scrub(std::string& text, const std::set<std::string>& values);

}  // namespace ingot::cli
