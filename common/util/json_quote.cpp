// SPDX-License-Identifier: Apache-2.0
// jsonQuote (quote.h) and the RapidJSON failure handler: both live in ingot_util so that the
// smallest library can write JSON strings through RapidJSON; ingot_json builds on it.
#include <cstdio>
#include <cstdlib>

#include "common/json/rapidjson_wrapper.h"
#include "common/util/quote.h"
#include "common/util/utf8.h"

namespace ingot {

namespace json::detail {
void rapidjsonAssertFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: rapidjson precondition failed: %s\n", file, line, condition);
  std::abort();
}
}  // namespace json::detail

std::string jsonQuote(std::string_view s) {
  std::string clean;
  if (!utf8::valid(s)) {
    clean = utf8::sanitize(s);
    s = clean;
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace ingot
