// SPDX-License-Identifier: Apache-2.0
#include "common/net/ip.h"

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <cstring>

namespace ingot::net {
namespace {

constexpr U128 kAllOnes = ~U128{0};

U128 hostMask(Family f, int prefix_len) {
  const int host = bitsOf(f) - prefix_len;
  if (host <= 0) {
    return 0;
  }
  if (host >= 128) {
    return kAllOnes;
  }
  return (U128{1} << host) - 1;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

bool parseDecimal(std::string_view s, int max, int& out) {
  if (s.empty() || s.size() > 3) {
    return false;
  }
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') {
      return false;
    }
    v = v * 10 + (c - '0');
  }
  if (v > max) {
    return false;
  }
  out = v;
  return true;
}

}  // namespace

std::string_view familyName(Family f) {
  return f == Family::V4 ? "IPv4" : "IPv6";
}

U128 maxValue(Family f) {
  return f == Family::V4 ? U128{0xffffffffu} : kAllOnes;
}

Result<IpAddress> IpAddress::parse(std::string_view text) {
  // inet_pton needs a NUL-terminated buffer; anything longer than the longest address is invalid.
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) {
    return invalidArgument("invalid IP address \"" + std::string(text) + "\"");
  }
  char buf[INET6_ADDRSTRLEN];
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  if (text.find(':') == std::string_view::npos) {
    std::array<unsigned char, 4> b{};
    if (inet_pton(AF_INET, buf, b.data()) != 1) {
      return invalidArgument("invalid IP address \"" + std::string(text) + "\"");
    }
    return IpAddress::v4((uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) |
                         uint32_t{b[3]});
  }
  std::array<unsigned char, 16> b{};
  if (inet_pton(AF_INET6, buf, b.data()) != 1) {
    return invalidArgument("invalid IP address \"" + std::string(text) + "\"");
  }
  U128 v = 0;
  for (unsigned char c : b) {
    v = (v << 8) | c;
  }
  if ((v >> 32) == U128{0xffff}) {  // ::ffff:a.b.c.d is IPv4, as Go's To4() says
    return IpAddress::v4(static_cast<uint32_t>(v));
  }
  return IpAddress::v6(v);
}

std::string IpAddress::toString() const {
  if (isV4()) {
    const auto v = static_cast<uint32_t>(value_);
    return std::to_string(v >> 24) + "." + std::to_string((v >> 16) & 0xff) + "." +
           std::to_string((v >> 8) & 0xff) + "." + std::to_string(v & 0xff);
  }
  std::array<uint16_t, 8> g{};
  for (int i = 0; i < 8; ++i) {
    g[i] = static_cast<uint16_t>(value_ >> (16 * (7 - i)));
  }
  // Longest run of zero groups, at least two long; the first wins a tie (Go and RFC 5952).
  int best_start = -1;
  int best_len = 1;
  for (int i = 0; i < 8;) {
    if (g[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && g[j] == 0) {
      ++j;
    }
    if (j - i > best_len) {
      best_start = i;
      best_len = j - i;
    }
    i = j;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == best_start) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (i > 0 && i != best_start + best_len) {
      out += ':';
    }
    char tmp[5];
    int n = 0;
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int nibble = (g[i] >> shift) & 0xf;
      if (nibble != 0 || started || shift == 0) {
        tmp[n++] = kHex[nibble];
        started = true;
      }
    }
    out.append(tmp, n);
  }
  return out;
}

IpAddress IpAddress::masked(int prefix_len) const {
  return IpAddress(family_, value_ & ~hostMask(family_, prefix_len) & maxValue(family_));
}

Cidr::Cidr(IpAddress base, int prefix_len)
    : base_(base.masked(prefix_len)), prefix_len_(prefix_len) {}

Result<Cidr> Cidr::parse(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    return invalidArgument("invalid CIDR \"" + std::string(text) + "\": missing prefix length");
  }
  auto ip = IpAddress::parse(text.substr(0, slash));
  if (!ip) {
    return invalidArgument("invalid CIDR \"" + std::string(text) + "\"");
  }
  // Go's ParseCIDR rejects an IPv4-mapped address with a v4 length; keep text families honest.
  const bool text_is_v6 = text.substr(0, slash).find(':') != std::string_view::npos;
  const int width = text_is_v6 ? 128 : 32;
  int len = 0;
  if (!parseDecimal(text.substr(slash + 1), width, len) ||
      (text.size() > slash + 2 && text[slash + 1] == '0')) {
    return invalidArgument("invalid CIDR \"" + std::string(text) + "\": bad prefix length");
  }
  if (text_is_v6 && ip->isV4()) {
    // ::ffff:a.b.c.d/n: an IPv6 network whose address text is IPv4-mapped.
    return Cidr(IpAddress::v6((U128{0xffff} << 32) | ip->value()), len);
  }
  return Cidr(*ip, len);
}

IpAddress Cidr::last() const {
  return base_.plus(hostMask(family(), prefix_len_));
}

bool Cidr::contains(const IpAddress& ip) const {
  return ip.family() == family() && ip.masked(prefix_len_) == base_;
}

bool Cidr::overlaps(const Cidr& other) const {
  if (other.family() != family()) {
    return false;
  }
  const int shorter = std::min(prefix_len_, other.prefix_len_);
  return base_.masked(shorter) == other.base_.masked(shorter);
}

U128 Cidr::size() const {
  const int host = hostBits();
  return host >= 128 ? kAllOnes : (U128{1} << host);
}

std::string Cidr::toString() const {
  return base_.toString() + "/" + std::to_string(prefix_len_);
}

Result<std::vector<Cidr>> summarizeRange(const IpAddress& first, const IpAddress& last) {
  if (first.family() != last.family()) {
    return invalidArgument("range boundaries " + first.toString() + " and " + last.toString() +
                           " are of different families");
  }
  if (last < first) {
    return invalidArgument("range start " + first.toString() + " is after range end " +
                           last.toString());
  }
  const Family f = first.family();
  const int width = bitsOf(f);
  std::vector<Cidr> out;
  U128 lo = first.value();
  const U128 hi = last.value();
  while (true) {
    // The largest aligned block starting at lo that does not pass hi.
    int host = 0;
    while (host < width) {
      const int next = host + 1;
      const U128 mask = next >= 128 ? kAllOnes : (U128{1} << next) - 1;
      if ((lo & mask) != 0 || lo + mask > hi || lo + mask < lo) {
        break;
      }
      host = next;
    }
    out.emplace_back(IpAddress::of(f, lo), width - host);
    const U128 block_last = lo + hostMask(f, width - host);
    if (block_last >= hi) {
      break;
    }
    lo = block_last + 1;
  }
  return out;
}

Result<std::vector<Cidr>> parseCidrOrRange(std::string_view text) {
  const auto dash = text.find('-');
  if (dash == std::string_view::npos) {
    auto cidr = Cidr::parse(text);
    if (!cidr) {
      return cidr.error();
    }
    return std::vector<Cidr>{*cidr};
  }
  const auto a_text = trim(text.substr(0, dash));
  const auto b_text = trim(text.substr(dash + 1));
  auto a = IpAddress::parse(a_text);
  if (!a) {
    return invalidArgument("invalid IP range \"" + std::string(text) + "\": invalid start IP \"" +
                           std::string(a_text) + "\"");
  }
  auto b = IpAddress::parse(b_text);
  if (!b) {
    return invalidArgument("invalid IP range \"" + std::string(text) + "\": invalid end IP \"" +
                           std::string(b_text) + "\"");
  }
  auto cidrs = summarizeRange(*a, *b);
  if (!cidrs) {
    return invalidArgument("invalid IP range \"" + std::string(text) +
                           "\": " + cidrs.error().message);
  }
  return cidrs;
}

std::string u128ToString(U128 v) {
  if (v == 0) {
    return "0";
  }
  std::string s;
  while (v != 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  std::reverse(s.begin(), s.end());
  return s;
}

}  // namespace ingot::net
