// SPDX-License-Identifier: Apache-2.0
#include "kube/status.h"

#include <charconv>

#include "common/json/scan.h"

namespace ingot::k8s {
namespace {

constexpr size_t kMaxBodySnippet = 200;

/// printable returns at most kMaxBodySnippet bytes of body with control bytes replaced, so a
/// binary or HTML error page cannot garble a log line.
std::string printable(std::string_view body) {
  std::string out;
  for (char c : body.substr(0, kMaxBodySnippet)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7F) ? ' ' : c;
  }
  if (body.size() > kMaxBodySnippet) out += "...";
  return out;
}

}  // namespace

std::optional<ApiStatus> parseStatus(std::string_view body) {
  auto m = json::scan(body, {{"kind"}, {"code"}, {"reason"}, {"message"}});
  if (!m || (*m)[0].type != json::Type::String || (*m)[0].text != "Status") return std::nullopt;
  ApiStatus status;
  if (const json::Found& code = (*m)[1]; code.type == json::Type::Number) {
    int value = 0;
    const auto [end, ec] =
        std::from_chars(code.raw.data(), code.raw.data() + code.raw.size(), value);
    if (ec == std::errc() && end == code.raw.data() + code.raw.size() && value >= 0 &&
        value < 1000) {
      status.code = value;
    }
  }
  if ((*m)[2].type == json::Type::String) status.reason = std::move((*m)[2].text);
  if ((*m)[3].type == json::Type::String) status.message = std::move((*m)[3].text);
  return status;
}

ErrorCode errorCodeForHttp(int http_status, std::string_view reason) {
  switch (http_status) {
    case 400:
    case 422:
      return ErrorCode::InvalidArgument;
    case 401:
      return ErrorCode::Unauthorized;
    case 403:
      return ErrorCode::Forbidden;
    case 404:
      return ErrorCode::NotFound;
    case 409:
      return reason == "AlreadyExists" ? ErrorCode::AlreadyExists : ErrorCode::Conflict;
    case 410:
      return ErrorCode::Gone;
    case 429:
      return ErrorCode::Unavailable;
    default:
      break;
  }
  if (http_status >= 500) return ErrorCode::Unavailable;
  return ErrorCode::Internal;
}

Error httpError(std::string_view op, int http_status, std::string_view body) {
  const auto status = parseStatus(body);
  std::string reason = status ? status->reason : std::string();
  std::string detail = status ? status->message : printable(body);
  if (detail.empty()) detail = "no message from server";
  std::string message = std::string(op) + ": " + detail + " (HTTP " + std::to_string(http_status);
  if (!reason.empty()) message += " " + reason;
  message += ")";
  return Error{errorCodeForHttp(http_status, reason), std::move(message)};
}

}  // namespace ingot::k8s
