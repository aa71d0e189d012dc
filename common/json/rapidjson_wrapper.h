// SPDX-License-Identifier: Apache-2.0
// The one place RapidJSON is included. RAPIDJSON_ASSERT is redirected to a
// failure handler that reports and aborts in every build: RapidJSON's default is assert(), which
// is undefined behaviour under NDEBUG. Readers still check Is* before every Get*, so the handler
// only fires on a programming error, never on input. Include only from common/json/*.cpp and
// common/util/json_quote.cpp (which defines the handler, so every RapidJSON user shares it).
#pragma once

#ifdef RAPIDJSON_ASSERT
#error "rapidjson was configured before common/json/rapidjson_wrapper.h"
#endif

namespace ingot::json::detail {
/// rapidjsonAssertFailed reports a broken RapidJSON precondition and aborts.
[[noreturn]] void rapidjsonAssertFailed(const char* condition, const char* file, int line);
}  // namespace ingot::json::detail

#define RAPIDJSON_ASSERT(x)   \
  ((x) ? static_cast<void>(0) \
       : ::ingot::json::detail::rapidjsonAssertFailed(#x, __FILE__, __LINE__))
#define RAPIDJSON_HAS_STDSTRING 1

#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
