// SPDX-License-Identifier: Apache-2.0
// Reading a few members out of a JSON document without building a tree: one RapidJSON SAX pass
// validates the whole text and returns, for each requested path, the raw text of the value found
// there (a slice of the input), its decoded string and, for arrays, the raw text of each element.
// This is what the Kubernetes client uses for watch events, list pages and object metadata, where
// objects are passed on as text and decoded by their typed codec later.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json/value.h"
#include "common/util/result.h"

namespace ingot::json {

/// Path names nested object members from the root object, e.g. {"metadata", "name"}.
using Path = std::initializer_list<std::string_view>;

/// Found is what scan reports for one path.
struct Found {
  bool present = false;  ///< false when some step of the path is absent
  Type type = Type::Null;
  std::string_view raw;                 ///< the value's text, a slice of the scanned input
  std::string text;                     ///< the decoded string when type is String
  std::vector<std::string_view> items;  ///< the raw text of each element when type is Array
};

/// scan validates text as one JSON document (RFC 8259, UTF-8 checked, nesting at most kMaxDepth)
/// and reports each path (at most 32; the last occurrence of a duplicate key wins, as in Go). A
/// path that runs into a non-object stops there and is absent. Errors read "offset N: reason".
Result<std::vector<Found>> scan(std::string_view text, std::initializer_list<Path> paths);

/// validate is scan without paths.
Result<void> validate(std::string_view text);

/// rawAt returns the raw text at path; nullopt when absent.
Result<std::optional<std::string_view>> rawAt(std::string_view text, Path path);

/// stringAt returns the string at path: "" when absent or null, an error when not a string.
Result<std::string> stringAt(std::string_view text, Path path);

/// intAt returns the integer at path (fitting int64): an error when absent or not an integer.
Result<std::int64_t> intAt(std::string_view text, Path path);

}  // namespace ingot::json
