// SPDX-License-Identifier: Apache-2.0
#include "controller/core/go_format.h"

namespace ingot::controller {
namespace {

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
