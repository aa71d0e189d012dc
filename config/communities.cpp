// SPDX-License-Identifier: Apache-2.0
// BGP communities: literal parsing and Community alias objects.
#include "config/internal.h"

namespace ingot::config {

std::string BgpCommunity::toString() const {
  if (large) {
    return "large:" + std::to_string(a) + ":" + std::to_string(b) + ":" + std::to_string(c);
  }
  return std::to_string(a) + ":" + std::to_string(b);
}

namespace detail {
namespace {

constexpr char kCommunityKind[] = "Community";
constexpr char kLargeMarker[] = "large";

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const auto pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(text.substr(start));
      return out;
    }
    out.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

/// parseUint parses decimal digits as Go's strconv.ParseUint(s, 10, bits) does, with its error
/// text.
Result<uint32_t> parseUint(std::string_view text, uint64_t max) {
  const std::string prefix = "strconv.ParseUint: parsing " + goQuote(text) + ": ";
  if (text.empty()) {
    return invalidArgument(prefix + "invalid syntax");
  }
  uint64_t v = 0;
  bool overflow = false;
  for (const char c : text) {
    if (c < '0' || c > '9') {
      return invalidArgument(prefix + "invalid syntax");
    }
    v = v * 10 + static_cast<uint64_t>(c - '0');
    overflow = overflow || v > max;
    v = overflow ? max + 1 : v;  // keep v bounded; the digits still have to be checked
  }
  if (overflow) {
    return invalidArgument(prefix + "value out of range");
  }
  return static_cast<uint32_t>(v);
}

/// parseSections parses fields[first..] into out, reporting MetalLB's "invalid section" error.
Result<void> parseSections(const std::vector<std::string_view>& fields,
                           size_t first,
                           uint64_t max,
                           std::string_view text,
                           std::vector<uint32_t>& out) {
  for (size_t i = first; i < fields.size(); ++i) {
    auto v = parseUint(fields[i], max);
    if (!v) {
      return invalidArgument("invalid community value: invalid section " + goQuote(fields[i]) +
                             " of community " + goQuote(text) +
                             ", err: " + goQuote(v.error().message));
    }
    out.push_back(*v);
  }
  return {};
}

}  // namespace

Result<BgpCommunity> parseCommunity(std::string_view text) {
  const auto fields = split(text, ':');
  std::vector<uint32_t> values;
  if (fields.size() == 2) {
    if (auto ok = parseSections(fields, 0, 0xffff, text, values); !ok) {
      return ok.error();
    }
    return BgpCommunity{false, values[0], values[1], 0};
  }
  if (fields.size() == 4) {
    if (fields[0] != kLargeMarker) {
      return invalidArgument(
          "invalid community value: invalid marker for large community, expected community to "
          "be of format large:<uint32>:<uint32>:<uint32> but got " +
          goQuote(text) + " instead");
    }
    if (auto ok = parseSections(fields, 1, 0xffffffff, text, values); !ok) {
      return ok.error();
    }
    return BgpCommunity{true, values[0], values[1], values[2]};
  }
  return Error{ErrorCode::NotFound, "invalid community format: " + std::string(text)};
}

void parseCommunities(State& s) {
  std::set<std::string> seen;
  for (const auto* cr : sortedByName(s.in.communities)) {
    ObjectErrors errs(s.errors, kCommunityKind, cr->metadata);
    for (size_t i = 0; i < cr->communities.size(); ++i) {
      const auto& alias = cr->communities[i];
      const std::string field = indexed("spec.communities", i);
      if (!seen.insert(alias.name).second) {
        errs.fail(field + ".name", "duplicate definition of community " + goQuote(alias.name));
        continue;
      }
      auto value = parseCommunity(alias.value);
      if (!value) {
        errs.fail(field + ".value",
                  "parsing community " + goQuote(alias.name) + ": " + value.error().message);
        continue;
      }
      if (s.options.backend == Backend::Native && value->large) {
        errs.fail(field + ".value",
                  "native BGP mode only supports legacy communities, BGP community CR " +
                      goQuote(cr->metadata.name) + " has non legacy community " +
                      goQuote(alias.value));
        // Still defined: advertisements using it then fail on the large value, not on a
        // missing alias.
      }
      s.cfg.community_aliases.emplace(alias.name, *value);
    }
  }
}

}  // namespace detail
}  // namespace ingot::config
