// SPDX-License-Identifier: Apache-2.0
// Go duration text, as metav1.Duration carries it in BGPPeer and FRRConfiguration timers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/types.h"
#include "common/util/result.h"

namespace ingot::api {

/// parseGoDuration parses text exactly as Go's time.ParseDuration: an optional sign, then "0" or
/// a sequence of decimal numbers with units ns, us, µs, μs, ms, s, m, h ("1h30m", "1.5s",
/// "-500ms", ".5s"). Errors reproduce Go's messages, e.g. `time: missing unit in duration "1"`.
Result<int64_t> parseGoDuration(std::string_view text);

/// parseDuration parses text into a Duration that keeps the original text.
Result<Duration> parseDuration(std::string_view text);

/// formatGoDuration renders nanoseconds as Go's time.Duration.String() ("1m30s", "1.5µs", "0s").
std::string formatGoDuration(int64_t nanoseconds);

/// durationText is the text a Duration encodes to: its text, or the Go form of its value when no
/// text is recorded.
std::string durationText(const Duration& d);

}  // namespace ingot::api
