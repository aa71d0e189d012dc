// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

#include "api/types.h"
#include "common/util/base64.h"
#include "common/util/result.h"

namespace ingot::api {

/// decodeBase64 decodes Secret data as Go's encoding/base64.StdEncoding does (the one decoder,
/// common/util/base64.h, in its GoStd mode): errors read "illegal base64 data at input byte N".
inline Result<std::string> decodeBase64(std::string_view text) {
  return ingot::decodeBase64(text, Base64Mode::GoStd);
}

/// encodeBase64 encodes bytes as padded standard base64.
using ingot::encodeBase64;

/// secretValue returns the plain value of key in a Secret: stringData wins over data (as the API
/// server merges them), data is base64-decoded. Missing key: NotFound; bad base64: InvalidArgument.
/// Errors name the Secret as "namespace/name".
Result<std::string> secretValue(const Secret& secret, const std::string& key);

}  // namespace ingot::api
