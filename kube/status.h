// SPDX-License-Identifier: Apache-2.0
// metav1.Status decoding and the mapping from HTTP failures to ingot::Error (pure).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/util/result.h"

namespace ingot::k8s {

/// ApiStatus is the part of a metav1.Status the client reports.
struct ApiStatus {
  int code = 0;         ///< HTTP status the server meant (0 when absent)
  std::string reason;   ///< machine-readable: "NotFound", "AlreadyExists", "Conflict", "Expired"...
  std::string message;  ///< human-readable
  friend bool operator==(const ApiStatus&, const ApiStatus&) = default;
};

/// parseStatus decodes body as a metav1.Status. Returns nullopt when body is not a JSON object
/// with kind "Status".
std::optional<ApiStatus> parseStatus(std::string_view body);

/// errorCodeForHttp maps an HTTP status (and the Status reason, which separates AlreadyExists from
/// Conflict on 409) to an ErrorCode.
ErrorCode errorCodeForHttp(int http_status, std::string_view reason);

/// httpError builds the Error of a failed call: "<op>: <message> (HTTP <code>[ <reason>])". The
/// message is the Status message when the body is a Status, else a printable prefix of the body.
Error httpError(std::string_view op, int http_status, std::string_view body);

}  // namespace ingot::k8s
