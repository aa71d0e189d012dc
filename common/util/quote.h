// SPDX-License-Identifier: Apache-2.0
// The quoting functions of Ingot, one per kind. Use the one whose reader will parse the text:
// messages that must read as MetalLB's (Go) use goQuote (or goTimeQuote where Go's time package
// is the source of the message), JSON text uses jsonQuote, Prometheus exposition label values use
// prometheusLabelValue. YAML scalars are in common/yaml/quote.h (they need yaml-cpp).
#pragma once

#include <string>
#include <string_view>

namespace ingot {

/// goQuote returns s as Go's strconv.Quote (and fmt's %q) does: double-quoted; `"` and `\`
/// escaped; \a \b \f \n \r \t \v; other control bytes and 0x7f as \xNN; each byte of invalid
/// UTF-8 as \xNN; non-printable runes as \uNNNN or \UNNNNNNNN; printable runes kept as they are.
std::string goQuote(std::string_view s);

/// goTimeQuote returns s as Go's time package quotes it in duration and layout errors:
/// double-quoted, `"` and `\` escaped, and every byte below 0x20 or from 0x80 up as \xNN.
std::string goTimeQuote(std::string_view s);

/// jsonQuote returns s as a JSON string literal written by RapidJSON's Writer: `"` and `\`
/// escaped, control bytes as \b \f \n \r \t or \u00XX, everything else (0x7f and UTF-8 runes)
/// kept. Bytes that are not valid UTF-8 become U+FFFD first, as in Go's encoding/json, so the
/// result is always valid JSON.
std::string jsonQuote(std::string_view s);

/// prometheusLabelValue escapes s for use between the double quotes of a label value in the
/// Prometheus text exposition format: `\` as \\, `"` as \", newline as \n, all else kept.
std::string prometheusLabelValue(std::string_view s);

}  // namespace ingot
