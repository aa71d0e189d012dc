// SPDX-License-Identifier: Apache-2.0
#include "api/selector.h"

#include <algorithm>

namespace ingot::api {
namespace {

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/// A qualified name part: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63 characters.
bool isQualifiedNamePart(const std::string& s) {
  if (s.empty() || s.size() > 63 || !isAlnum(s.front()) || !isAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

/// A DNS-1123 subdomain: lower-case alphanumerics, '-' and '.', at most 253 characters.
bool isDnsSubdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return lower_alnum(c) || c == '-' || c == '.'; });
}

bool requirementMatches(const LabelSelectorRequirement& r, const StringMap& labels) {
  const auto it = labels.find(r.key);
  const bool has = it != labels.end();
  auto listed = [&] {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  if (r.op == "In") {
    return listed();
  }
  if (r.op == "NotIn") {
    return !listed();
  }
  if (r.op == "Exists") {
    return has;
  }
  if (r.op == "DoesNotExist") {
    return !has;
  }
  return false;
}

}  // namespace

bool isValidLabelKey(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) {
    return isQualifiedNamePart(key);
  }
  return isDnsSubdomain(key.substr(0, slash)) && isQualifiedNamePart(key.substr(slash + 1));
}

bool isValidLabelValue(const std::string& value) {
  return value.empty() || isQualifiedNamePart(value);
}

Result<void> checkSelector(const LabelSelector& selector) {
  for (const auto& [key, value] : selector.match_labels) {
    if (!isValidLabelKey(key)) {
      return invalidArgument("invalid label key \"" + key + "\" in matchLabels");
    }
    if (!isValidLabelValue(value)) {
      return invalidArgument("invalid label value \"" + value + "\" for key \"" + key +
                             "\" in matchLabels");
    }
  }
  for (const auto& r : selector.match_expressions) {
    if (!isValidLabelKey(r.key)) {
      return invalidArgument("invalid label key \"" + r.key + "\" in matchExpressions");
    }
    if (r.op == "In" || r.op == "NotIn") {
      if (r.values.empty()) {
        return invalidArgument(
            "values: Required value: must be specified when `operator` is 'In' "
            "or 'NotIn' (key \"" +
            r.key + "\")");
      }
      for (const auto& v : r.values) {
        if (!isValidLabelValue(v)) {
          return invalidArgument("invalid label value \"" + v + "\" for key \"" + r.key + "\"");
        }
      }
    } else if (r.op == "Exists" || r.op == "DoesNotExist") {
      if (!r.values.empty()) {
        return invalidArgument(
            "values: Forbidden: may not be specified when `operator` is "
            "'Exists' or 'DoesNotExist' (key \"" +
            r.key + "\")");
      }
    } else {
      return invalidArgument("\"" + r.op + "\" is not a valid label selector operator (key \"" +
                             r.key + "\")");
    }
  }
  return {};
}

bool matches(const LabelSelector& selector, const StringMap& labels) {
  if (!checkSelector(selector)) {
    return false;
  }
  for (const auto& [key, value] : selector.match_labels) {
    const auto it = labels.find(key);
    if (it == labels.end() || it->second != value) {
      return false;
    }
  }
  return std::all_of(
      selector.match_expressions.begin(), selector.match_expressions.end(),
      [&](const LabelSelectorRequirement& r) { return requirementMatches(r, labels); });
}

bool matchesAny(const std::vector<LabelSelector>& selectors, const StringMap& labels) {
  return std::any_of(selectors.begin(), selectors.end(),
                     [&](const LabelSelector& s) { return matches(s, labels); });
}

std::string selectorToString(const LabelSelector& selector) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : selector.match_labels) {
    parts.push_back(key + "=" + value);
  }
  for (const auto& r : selector.match_expressions) {
    auto values = r.values;
    std::sort(values.begin(), values.end());
    std::string joined;
    for (const auto& v : values) {
      joined += (joined.empty() ? "" : ",") + v;
    }
    if (r.op == "In") {
      parts.push_back(r.key + " in (" + joined + ")");
    } else if (r.op == "NotIn") {
      parts.push_back(r.key + " notin (" + joined + ")");
    } else if (r.op == "Exists") {
      parts.push_back(r.key);
    } else if (r.op == "DoesNotExist") {
      parts.push_back("!" + r.key);
    } else {
      parts.push_back(r.key + " " + r.op + " (" + joined + ")");
    }
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) {
    out += (out.empty() ? "" : ",") + p;
  }
  return out;
}

}  // namespace ingot::api
