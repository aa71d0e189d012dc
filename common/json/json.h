// SPDX-License-Identifier: Apache-2.0
// JSON text <-> json::Value. Parsing is bounded and total: any byte string yields a Value or an
// error naming the line and column; it never crashes, recurses without limit or throws.
#pragma once

#include <string>
#include <string_view>

#include "common/json/value.h"
#include "common/util/result.h"

namespace ingot::json {

/// kMaxDepth is the deepest nesting of arrays/objects parse accepts (Kubernetes objects need ~15).
inline constexpr int kMaxDepth = 100;

/// lineColumn converts a byte offset of text into a 1-based line and column.
std::pair<int, int> lineColumn(std::string_view text, size_t offset);

/// parse reads one complete JSON document (RFC 8259, UTF-8 validated, no comments, nothing but
/// whitespace after it). Every node records its line. Errors read "line L, column C: reason";
/// nesting deeper than kMaxDepth is an error, not a crash.
Result<Value> parse(std::string_view text);

enum class Style { Compact, Pretty };

/// write serialises a Value. Members are written in the Value's order, so a Value built in a fixed
/// order gives byte-identical output on every run. Pretty uses two-space indentation.
std::string write(const Value& value, Style style = Style::Compact);

}  // namespace ingot::json
