// SPDX-License-Identifier: Apache-2.0
#include "common/http/message.h"

#include <algorithm>
#include <cctype>

namespace ingot::http {
namespace {

constexpr size_t kMaxContentLengthDigits = 18;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// isToken reports whether s is a non-empty HTTP token (method or header name).
bool isToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

/// hasToken reports whether the comma-separated list value contains token (case-insensitive).
bool hasToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (lower(trim(value.substr(0, comma))) == token) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

/// nextLine cuts the next line (without its "\n" or "\r\n") off the front of rest.
std::string_view nextLine(std::string_view& rest) {
  const size_t eol = rest.find('\n');
  std::string_view line = rest.substr(0, eol);
  rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::variant<Head, HeadError> refuse(int status, std::string message) {
  return HeadError{status, std::move(message)};
}

/// parseRequestLine fills method and path from "METHOD /path HTTP/1.x"; returns the HTTP minor
/// version, or a refusal.
std::variant<int, HeadError> parseRequestLine(std::string_view line, Request& r) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos ||
      !isToken(line.substr(0, sp1)) || sp2 == sp1 + 1) {
    return HeadError{400, "request line must be \"METHOD PATH HTTP/1.x\""};
  }
  const std::string_view version = line.substr(sp2 + 1);
  if (version.rfind("HTTP/", 0) != 0) {
    return HeadError{400, "unsupported protocol \"" + std::string(version) + "\""};
  }
  if (version != "HTTP/1.0" && version != "HTTP/1.1") {
    return HeadError{505, "unsupported protocol \"" + std::string(version) + "\""};
  }
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (target.front() != '/') return HeadError{400, "request target must start with /"};
  if (const size_t q = target.find_first_of("?#"); q != std::string_view::npos) {
    target = target.substr(0, q);
  }
  r.method = std::string(line.substr(0, sp1));
  r.path = std::string(target);
  return version == "HTTP/1.1" ? 1 : 0;
}

/// parseLength parses a Content-Length value (decimal digits only).
bool parseLength(std::string_view v, size_t& out) {
  if (v.empty() || v.size() > kMaxContentLengthDigits ||
      !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return false;
  }
  out = 0;
  for (const char c : v) out = out * 10 + static_cast<size_t>(c - '0');
  return true;
}

}  // namespace

const std::string* Request::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return &v;
  }
  return nullptr;
}

size_t headLength(std::string_view buf) {
  for (size_t i = buf.find('\n'); i != std::string_view::npos; i = buf.find('\n', i + 1)) {
    if (i + 1 < buf.size() && buf[i + 1] == '\n') return i + 2;
    if (i + 2 < buf.size() && buf[i + 1] == '\r' && buf[i + 2] == '\n') return i + 3;
  }
  return 0;
}

std::variant<Head, HeadError> parseHead(std::string_view text) {
  if (text.find('\n') == std::string_view::npos) return refuse(400, "request line is incomplete");
  Head head;
  std::string_view rest = text;
  auto minor = parseRequestLine(nextLine(rest), head.request);
  if (const auto* e = std::get_if<HeadError>(&minor)) return *e;
  head.keep_alive = std::get<int>(minor) == 1;
  bool has_length = false;
  for (std::string_view line = nextLine(rest); !line.empty(); line = nextLine(rest)) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !isToken(line.substr(0, colon))) {
      return refuse(400, "malformed header line \"" + std::string(line.substr(0, 64)) + "\"");
    }
    std::string name = lower(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if (name == "content-length") {
      size_t n = 0;
      if (!parseLength(value, n) || (has_length && n != head.content_length)) {
        return refuse(400, "invalid Content-Length \"" + std::string(value.substr(0, 32)) + "\"");
      }
      head.content_length = n;
      has_length = true;
    } else if (name == "transfer-encoding") {
      return refuse(411, "Transfer-Encoding is not supported: send the body with a Content-Length");
    } else if (name == "connection") {
      if (hasToken(value, "close")) {
        head.keep_alive = false;
      } else if (hasToken(value, "keep-alive")) {
        head.keep_alive = true;
      }
    } else if (name == "expect") {
      if (lower(value) != "100-continue") {
        return refuse(417, "unsupported Expect \"" + std::string(value.substr(0, 32)) + "\"");
      }
      head.expect_continue = true;
    }
    head.request.headers.emplace_back(std::move(name), std::string(value));
  }
  return head;
}

Result<Head> parseRequestHead(std::string_view text) {
  auto parsed = parseHead(text);
  if (auto* e = std::get_if<HeadError>(&parsed)) return invalidArgument(e->message);
  return std::get<Head>(std::move(parsed));
}

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 417:
      return "Expectation Failed";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string renderResponse(const Response& response, bool head_only, bool keep_alive) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " +
                    std::string(reasonPhrase(response.status)) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  if (!head_only) out += response.body;
  return out;
}

}  // namespace ingot::http
