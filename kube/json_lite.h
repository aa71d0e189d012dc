// SPDX-License-Identifier: Apache-2.0
// A minimal, strict JSON reader and string quoter for the handful of fields the kube library reads
// itself (watch event type/object, list metadata, Status, object metadata). Objects are otherwise
// moved as raw text and decoded by the caller's codec (api/codec.h); this is not a general DOM.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace ingot::k8s::json {

/// kMaxDepth bounds nesting so hostile input cannot exhaust the stack.
inline constexpr int kMaxDepth = 256;

/// validate succeeds when text is exactly one RFC 8259 JSON value (surrounding whitespace allowed),
/// every string is valid UTF-8 and nesting is at most kMaxDepth. The error names the offset.
Result<void> validate(std::string_view text);

/// members returns the raw text of each named member of the JSON object `object`, in the order of
/// `keys` (nullopt where absent; the last occurrence wins on duplicates). The whole object is
/// validated; an error is returned when it is not a well-formed object.
Result<std::vector<std::optional<std::string_view>>> members(
    std::string_view object, std::initializer_list<std::string_view> keys);

/// member is members() for one key.
Result<std::optional<std::string_view>> member(std::string_view object, std::string_view key);

/// memberPath follows nested objects ("metadata", "name"); nullopt when any step is absent or
/// null. A step that exists but is not an object is an error.
Result<std::optional<std::string_view>> memberPath(std::string_view object,
                                                   std::initializer_list<std::string_view> path);

/// stringValue decodes a raw JSON string token (quotes included) into UTF-8. Lone surrogate
/// escapes decode to U+FFFD, as Go's encoding/json does.
Result<std::string> stringValue(std::string_view raw);

/// intValue decodes a raw JSON number that is an integer fitting in int64.
Result<std::int64_t> intValue(std::string_view raw);

/// elements returns the raw text of each element of a JSON array.
Result<std::vector<std::string_view>> elements(std::string_view array);

/// stringAt is memberPath + stringValue: "" when absent or null, an error when not a string.
Result<std::string> stringAt(std::string_view object, std::initializer_list<std::string_view> path);

/// quote returns s as a JSON string literal: quotes, backslash and control characters escaped,
/// other bytes (UTF-8) copied verbatim.
std::string quote(std::string_view s);

}  // namespace ingot::k8s::json
