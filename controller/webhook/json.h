// SPDX-License-Identifier: Apache-2.0
// Reading the reviews the API server sends (AdmissionReview, ConversionReview) and the objects
// the rotator patches: null-safe member and string access on json::Value trees. Pure.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "common/json/value.h"
#include "common/util/result.h"

namespace ingot::controller::webhook {

/// member returns v's member key, or nullptr when v is null, not an object or lacks it.
const json::Value* member(const json::Value* v, std::string_view key);

/// text returns v's string, or "" when v is null or not a string.
std::string text(const json::Value* v);

/// reviewRequest checks that body is JSON, a `kind` review in one of api_versions, whose
/// request has a uid, and returns the parsed review. Errors (InvalidArgument) say what was
/// found instead.
Result<json::Value> reviewRequest(std::string_view body,
                                  std::string_view kind,
                                  std::initializer_list<std::string_view> api_versions);

}  // namespace ingot::controller::webhook
