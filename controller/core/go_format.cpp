// SPDX-License-Identifier: Apache-2.0
#include "controller/core/go_format.h"

namespace ingot::controller {
namespace {

void appendEscaped(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\a':
      out += "\\a";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\v':
      out += "\\v";
      return;
    default:
      break;
  }
  if (c < 0x20 || c == 0x7f) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 0xf];
    return;
  }
  out += static_cast<char>(c);
}

std::string joinList(const std::vector<std::string>& items, bool quote) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      out += ' ';
    }
    out += quote ? goQuote(items[i]) : items[i];
  }
  out += ']';
  return out;
}

}  // namespace

std::string goQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    appendEscaped(out, static_cast<unsigned char>(c));
  }
  out += '"';
  return out;
}

std::string goQuoteList(const std::vector<std::string>& items) {
  return joinList(items, true);
}

std::string goList(const std::vector<std::string>& items) {
  return joinList(items, false);
}

std::vector<std::string> ipStrings(const std::vector<net::IpAddress>& ips) {
  std::vector<std::string> out;
  out.reserve(ips.size());
  for (const auto& ip : ips) {
    out.push_back(ip.toString());
  }
  return out;
}

}  // namespace ingot::controller
