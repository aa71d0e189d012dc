// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

#include "api/types.h"
#include "common/util/result.h"

namespace ingot::api {

/// decodeBase64 decodes standard base64 (RFC 4648 §4, '=' padding required) as Go's
/// encoding/base64.StdEncoding does for Secret data: '\r' and '\n' are skipped, anything else
/// outside the alphabet or bad padding is an error naming the byte offset (unused bits before the
/// padding are ignored, as in Go's non-strict decoder).
Result<std::string> decodeBase64(std::string_view text);

/// encodeBase64 encodes bytes as padded standard base64.
std::string encodeBase64(std::string_view bytes);

/// secretValue returns the plain value of key in a Secret: stringData wins over data (as the API
/// server merges them), data is base64-decoded. Missing key: NotFound; bad base64: InvalidArgument.
/// Errors name the Secret as "namespace/name".
Result<std::string> secretValue(const Secret& secret, const std::string& key);

}  // namespace ingot::api
