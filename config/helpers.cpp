// SPDX-License-Identifier: Apache-2.0
#include <array>
#include <cstdio>
#include <tuple>

#include "api/selector.h"
#include "config/internal.h"

namespace ingot::config::detail {
namespace {

/// fraction renders v / 10^prec with the fractional digits' trailing zeros trimmed (Go fmtFrac).
std::string fraction(uint64_t v, int prec) {
  uint64_t scale = 1;
  for (int i = 0; i < prec; ++i) {
    scale *= 10;
  }
  std::string out = std::to_string(v / scale);
  std::string frac = std::to_string(v % scale);
  frac.insert(0, static_cast<size_t>(prec) - frac.size(), '0');
  while (!frac.empty() && frac.back() == '0') {
    frac.pop_back();
  }
  if (!frac.empty()) {
    out += "." + frac;
  }
  return out;
}

/// normalized sorts a selector's expression values and its expressions, so that selectors that
/// differ only in listing order compare equal.
api::LabelSelector normalized(api::LabelSelector s) {
  for (auto& e : s.match_expressions) {
    std::sort(e.values.begin(), e.values.end());
  }
  std::sort(s.match_expressions.begin(), s.match_expressions.end(),
            [](const api::LabelSelectorRequirement& a, const api::LabelSelectorRequirement& b) {
              return std::tie(a.key, a.op, a.values) < std::tie(b.key, b.op, b.values);
            });
  return s;
}

/// lastComponent returns the part of a JSON path after its last '.'.
std::string_view lastComponent(std::string_view field) {
  const auto dot = field.rfind('.');
  return dot == std::string_view::npos ? field : field.substr(dot + 1);
}

/// checkExpressions reports repeated values inside an expression and repeated expressions inside
/// one selector (MetalLB's validateLabelSelectorMatchExpressions).
bool checkExpressions(const api::LabelSelector& sel, const std::string& path, ObjectErrors& errs) {
  bool ok = true;
  const auto& exprs = sel.match_expressions;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const std::string epath = indexed(path + ".matchExpressions", i);
    ok = checkUnique(exprs[i].values, epath + ".values", "match expression value in label selector",
                     errs) &&
         ok;
    auto sorted_i = exprs[i];
    std::sort(sorted_i.values.begin(), sorted_i.values.end());
    for (size_t j = 0; j < i; ++j) {
      auto sorted_j = exprs[j];
      std::sort(sorted_j.values.begin(), sorted_j.values.end());
      if (sorted_i == sorted_j) {
        errs.fail(epath, "duplicate definition of match expressions " +
                             goQuote(api::selectorToString(api::LabelSelector{{}, {sorted_i}})));
        ok = false;
        break;
      }
    }
  }
  return ok;
}

}  // namespace

void ObjectErrors::add(std::string field, std::string message, bool transient) {
  out_.push_back(
      ConfigError{kind_, namespace_, name_, std::move(field), std::move(message), transient});
  ++count_;
}

std::string goDuration(std::chrono::nanoseconds d) {
  const int64_t ns = d.count();
  if (ns == 0) {
    return "0s";
  }
  const std::string sign = ns < 0 ? "-" : "";
  // Negate in unsigned arithmetic so INT64_MIN does not overflow.
  uint64_t u = ns < 0 ? ~static_cast<uint64_t>(ns) + 1 : static_cast<uint64_t>(ns);
  if (u < 1000) {
    return sign + std::to_string(u) + "ns";
  }
  if (u < 1000 * 1000) {
    return sign + fraction(u, 3) + "\u00b5s";
  }
  if (u < 1000 * 1000 * 1000) {
    return sign + fraction(u, 6) + "ms";
  }
  constexpr uint64_t kSecond = 1000ULL * 1000 * 1000;
  std::string out = fraction(u % (60 * kSecond), 9) + "s";
  u /= 60 * kSecond;  // whole minutes
  if (u > 0) {
    out = std::to_string(u % 60) + "m" + out;
    u /= 60;
    if (u > 0) {
      out = std::to_string(u) + "h" + out;
    }
  }
  return sign + out;
}

std::string indexed(std::string_view field, size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

bool checkUnique(const std::vector<std::string>& list,
                 std::string_view field,
                 std::string_view what,
                 ObjectErrors& errs) {
  bool ok = true;
  std::set<std::string_view> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!seen.insert(list[i]).second) {
      errs.fail(indexed(field, i),
                "duplicate definition of " + std::string(what) + " " + goQuote(list[i]));
      ok = false;
    }
  }
  return ok;
}

bool checkSelectors(const std::vector<api::LabelSelector>& list,
                    std::string_view field,
                    ObjectErrors& errs) {
  bool ok = true;
  const std::string what(lastComponent(field));
  std::vector<api::LabelSelector> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = indexed(field, i);
    if (auto valid = api::checkSelector(list[i]); !valid) {
      errs.fail(path, "invalid label selector: " + valid.error().message);
      ok = false;
      continue;
    }
    ok = checkExpressions(list[i], path, errs) && ok;
    auto norm = normalized(list[i]);
    if (std::find(seen.begin(), seen.end(), norm) != seen.end()) {
      errs.fail(path,
                "duplicate definition of " + what + " " + goQuote(api::selectorToString(list[i])));
      ok = false;
      continue;
    }
    seen.push_back(std::move(norm));
  }
  return ok;
}

std::set<std::string> selectNodes(const std::vector<api::Node>& nodes,
                                  const std::vector<api::LabelSelector>& selectors) {
  std::set<std::string> out;
  for (const auto& node : nodes) {
    if (selectors.empty() || api::matchesAny(selectors, node.metadata.labels)) {
      out.insert(node.metadata.name);
    }
  }
  return out;
}

std::set<std::string> resolvePools(const std::vector<std::string>& names,
                                   const std::vector<api::LabelSelector>& selectors,
                                   const std::map<std::string, Pool>& pools) {
  std::set<std::string> out;
  for (const auto& [name, pool] : pools) {
    const bool named = std::find(names.begin(), names.end(), name) != names.end();
    if ((names.empty() && selectors.empty()) || named || api::matchesAny(selectors, pool.labels)) {
      out.insert(name);
    }
  }
  return out;
}

}  // namespace ingot::config::detail
