// SPDX-License-Identifier: Apache-2.0
// Standard base64 (RFC 4648 §4), one decoder with an explicit strictness.
#pragma once

#include <string>
#include <string_view>

#include "common/util/result.h"

namespace ingot {

/// Base64Mode says which inputs decodeBase64 accepts. Errors read as Go's in both modes:
/// "illegal base64 data at input byte N", N being the offset in the input.
enum class Base64Mode {
  /// Go's encoding/base64 StdEncoding, which decodes Secret data ([]byte in encoding/json):
  /// '=' padding required, '\r' and '\n' skipped, unused bits before the padding ignored.
  GoStd,
  /// kubeconfig *-data fields: also skips spaces and tabs and accepts missing or short padding
  /// (at most two '=' and only at the end), like the kubeconfigs kubectl users have.
  Lenient,
};

/// decodeBase64 decodes text in the given mode.
Result<std::string> decodeBase64(std::string_view text, Base64Mode mode);

/// encodeBase64 encodes bytes in standard base64 with padding.
std::string encodeBase64(std::string_view bytes);

}  // namespace ingot
