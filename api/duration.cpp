// SPDX-License-Identifier: Apache-2.0
#include "api/duration.h"

#include <array>
#include <optional>
#include <tuple>
#include <utility>

#include "common/util/quote.h"

namespace ingot::api {
namespace {

constexpr uint64_t kLimit = uint64_t{1} << 63;  // |min int64|

Error invalid(std::string_view orig) {
  return invalidArgument("time: invalid duration " + goTimeQuote(orig));
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// leadingInt consumes leading digits; nullopt on overflow past 2^63.
std::optional<uint64_t> leadingInt(std::string_view& s) {
  uint64_t x = 0;
  size_t i = 0;
  for (; i < s.size() && isDigit(s[i]); ++i) {
    if (x > kLimit / 10) {
      return std::nullopt;
    }
    x = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (x > kLimit) {
      return std::nullopt;
    }
  }
  s.remove_prefix(i);
  return x;
}

/// leadingFraction consumes leading digits as a fraction: value and scale (10^digits kept).
std::pair<uint64_t, double> leadingFraction(std::string_view& s) {
  uint64_t x = 0;
  double scale = 1;
  bool overflow = false;
  size_t i = 0;
  for (; i < s.size() && isDigit(s[i]); ++i) {
    if (overflow) {
      continue;
    }
    if (x > (kLimit - 1) / 10) {
      overflow = true;
      continue;
    }
    const uint64_t y = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (y > kLimit) {
      overflow = true;
      continue;
    }
    x = y;
    scale *= 10;
  }
  s.remove_prefix(i);
  return {x, scale};
}

std::optional<uint64_t> unitNanos(std::string_view u) {
  static const std::array<std::pair<std::string_view, uint64_t>, 8> kUnits = {{
      {"ns", 1},
      {"us", 1000},
      {"\xc2\xb5s", 1000},  // U+00B5 micro sign
      {"\xce\xbcs", 1000},  // U+03BC Greek mu
      {"ms", 1000000},
      {"s", 1000000000},
      {"m", 60000000000},
      {"h", 3600000000000},
  }};
  for (const auto& [name, nanos] : kUnits) {
    if (name == u) {
      return nanos;
    }
  }
  return std::nullopt;
}

/// Number is the "<int>.<frac>" part of a component; frac has `scale` = 10^digits kept.
struct Number {
  uint64_t whole = 0;
  uint64_t frac = 0;
  double scale = 1;
};

/// leadingNumber consumes "<digits>[.<digits>]" (one side may be empty, not both).
Result<Number> leadingNumber(std::string_view& s, std::string_view orig) {
  if (!(s[0] == '.' || isDigit(s[0]))) {
    return invalid(orig);
  }
  const size_t before = s.size();
  const auto whole = leadingInt(s);
  if (!whole) {
    return invalid(orig);
  }
  Number n{*whole, 0, 1};
  const bool pre = before != s.size();
  bool post = false;
  if (!s.empty() && s[0] == '.') {
    s.remove_prefix(1);
    const size_t len = s.size();
    std::tie(n.frac, n.scale) = leadingFraction(s);
    post = len != s.size();
  }
  if (!pre && !post) {
    return invalid(orig);
  }
  return n;
}

/// component parses one "<number><unit>" from the front of s and returns its nanoseconds.
Result<uint64_t> component(std::string_view& s, std::string_view orig) {
  auto n = leadingNumber(s, orig);
  if (!n) {
    return n.error();
  }
  size_t i = 0;
  while (i < s.size() && s[i] != '.' && !isDigit(s[i])) {
    ++i;
  }
  if (i == 0) {
    return invalidArgument("time: missing unit in duration " + goTimeQuote(orig));
  }
  const std::string_view u = s.substr(0, i);
  s.remove_prefix(i);
  const auto unit = unitNanos(u);
  if (!unit) {
    return invalidArgument("time: unknown unit " + goTimeQuote(u) + " in duration " +
                           goTimeQuote(orig));
  }
  if (n->whole > kLimit / *unit) {
    return invalid(orig);
  }
  uint64_t total = n->whole * *unit;
  if (n->frac > 0) {
    total += static_cast<uint64_t>(static_cast<double>(n->frac) *
                                   (static_cast<double>(*unit) / n->scale));
    if (total > kLimit) {
      return invalid(orig);
    }
  }
  return total;
}

/// fmtFrac writes v/10^prec's fraction digits (trailing zeros dropped) before `end`.
size_t fmtFrac(char* buf, size_t end, uint64_t& v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const uint64_t digit = v % 10;
    print = print || digit != 0;
    if (print) {
      buf[--end] = static_cast<char>('0' + digit);
    }
    v /= 10;
  }
  if (print) {
    buf[--end] = '.';
  }
  return end;
}

size_t fmtInt(char* buf, size_t end, uint64_t v) {
  if (v == 0) {
    buf[--end] = '0';
    return end;
  }
  while (v > 0) {
    buf[--end] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return end;
}

}  // namespace

Result<int64_t> parseGoDuration(std::string_view text) {
  const std::string_view orig = text;
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    return int64_t{0};
  }
  if (s.empty()) {
    return invalid(orig);
  }
  uint64_t d = 0;
  while (!s.empty()) {
    auto part = component(s, orig);
    if (!part) {
      return part.error();
    }
    d += *part;
    if (d > kLimit) {
      return invalid(orig);
    }
  }
  if (negative) {
    return static_cast<int64_t>(0 - d);
  }
  if (d > kLimit - 1) {
    return invalid(orig);
  }
  return static_cast<int64_t>(d);
}

Result<Duration> parseDuration(std::string_view text) {
  auto ns = parseGoDuration(text);
  if (!ns) {
    return ns.error();
  }
  return Duration{*ns, std::string(text)};
}

namespace {

/// formatBelowSecond writes u (0 < u < 1s) as Go does: "1.5ms", "2.2µs", "3ns".
size_t formatBelowSecond(char* buf, size_t w, uint64_t u) {
  int prec = 0;
  buf[--w] = 's';
  if (u < 1000) {
    buf[--w] = 'n';
  } else if (u < 1000000) {
    prec = 3;
    buf[--w] = '\xb5';  // "µ" is C2 B5 in UTF-8, written backwards
    buf[--w] = '\xc2';
  } else {
    prec = 6;
    buf[--w] = 'm';
  }
  w = fmtFrac(buf, w, u, prec);
  return fmtInt(buf, w, u);
}

}  // namespace

std::string formatGoDuration(int64_t nanoseconds) {
  char buf[32];
  size_t w = sizeof(buf);
  const bool negative = nanoseconds < 0;
  uint64_t u =
      negative ? 0 - static_cast<uint64_t>(nanoseconds) : static_cast<uint64_t>(nanoseconds);
  if (u == 0) {
    return "0s";
  }
  if (u < 1000000000) {
    w = formatBelowSecond(buf, w, u);
  } else {
    buf[--w] = 's';
    w = fmtFrac(buf, w, u, 9);
    w = fmtInt(buf, w, u % 60);
    u /= 60;
    if (u > 0) {
      buf[--w] = 'm';
      w = fmtInt(buf, w, u % 60);
      u /= 60;
      if (u > 0) {
        buf[--w] = 'h';
        w = fmtInt(buf, w, u);
      }
    }
  }
  if (negative) {
    buf[--w] = '-';
  }
  return std::string(buf + w, sizeof(buf) - w);
}

std::string durationText(const Duration& d) {
  return d.text.empty() ? formatGoDuration(d.nanoseconds) : d.text;
}

}  // namespace ingot::api
