// SPDX-License-Identifier: Apache-2.0
#include "api/secret.h"

namespace ingot::api {

Result<std::string> secretValue(const Secret& secret, const std::string& key) {
  const std::string who = secret.metadata.namespace_ + "/" + secret.metadata.name;
  if (const auto it = secret.string_data.find(key); it != secret.string_data.end()) {
    return it->second;
  }
  const auto it = secret.data.find(key);
  if (it == secret.data.end()) {
    return Error{ErrorCode::NotFound, "key \"" + key + "\" not found in secret " + who};
  }
  auto decoded = decodeBase64(it->second);
  if (!decoded) {
    return invalidArgument("secret " + who + " data[" + key + "]: " + decoded.error().message);
  }
  return decoded;
}

}  // namespace ingot::api
