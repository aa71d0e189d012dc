// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "api/types.h"
#include "common/util/result.h"

namespace ingot::api {

/// matches reports whether labels satisfy selector, with metav1.LabelSelector semantics:
/// matchLabels and every matchExpressions entry must hold (AND); an empty selector matches
/// everything. In: key present with a listed value; NotIn: key absent or value not listed;
/// Exists: key present; DoesNotExist: key absent. A selector that checkSelector rejects
/// matches nothing.
bool matches(const LabelSelector& selector, const StringMap& labels);

/// matchesAny reports whether any selector in the list matches (OR). An empty list matches
/// nothing; callers that treat "no selectors" as "everything" check for emptiness themselves.
bool matchesAny(const std::vector<LabelSelector>& selectors, const StringMap& labels);

/// checkSelector validates a selector as metav1.LabelSelectorAsSelector does: known operators,
/// values required for In/NotIn and forbidden for Exists/DoesNotExist, valid label keys and
/// values. The error message names the offending part.
Result<void> checkSelector(const LabelSelector& selector);

/// selectorToString renders a selector in kubectl's text form ("a=b,c in (d,e),!f"); empty for the
/// match-all selector. Deterministic: keys in order.
std::string selectorToString(const LabelSelector& selector);

/// isValidLabelKey / isValidLabelValue apply Kubernetes' qualified-name and label-value rules.
bool isValidLabelKey(const std::string& key);
bool isValidLabelValue(const std::string& value);

}  // namespace ingot::api
