// SPDX-License-Identifier: Apache-2.0
#include "common/util/log.h"

#include <cstdio>
#include <ctime>

#include "common/util/quote.h"

namespace ingot::log {
namespace {

void appendMember(std::string& out, std::string_view key, std::string_view value, bool number) {
  out += ',';
  out += jsonQuote(key);
  out += ':';
  out += number ? std::string(value) : jsonQuote(value);
}

void writeStderr(std::string_view line) {
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace

Result<Level> parseLevel(std::string_view text) {
  if (text == "all" || text == "debug") return Level::Debug;
  if (text == "info") return Level::Info;
  if (text == "warn") return Level::Warn;
  if (text == "error") return Level::Error;
  if (text == "none") return Level::None;
  return invalidArgument("invalid log level \"" + std::string(text) +
                         "\": must be one of all, debug, info, warn, error, none");
}

std::string_view levelName(Level level) {
  switch (level) {
    case Level::Debug:
      return "debug";
    case Level::Info:
      return "info";
    case Level::Warn:
      return "warn";
    case Level::Error:
      return "error";
    case Level::None:
      break;
  }
  return "none";
}

Field num(std::string key, long long value) {
  return Field{std::move(key), std::to_string(value), true};
}

std::string formatTime(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  const auto ms = duration_cast<milliseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  const int millis = static_cast<int>(ms - static_cast<long long>(secs) * 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return buf;
}

std::string formatLine(std::chrono::system_clock::time_point ts,
                       Level level,
                       std::string_view op,
                       std::string_view event,
                       std::string_view msg,
                       std::span<const Field> fields) {
  std::string out = "{\"ts\":\"" + formatTime(ts) + "\"";
  appendMember(out, "level", levelName(level), false);
  appendMember(out, "op", op, false);
  appendMember(out, "event", event, false);
  appendMember(out, "msg", msg, false);
  for (const Field& f : fields) {
    appendMember(out, f.key, f.value, f.number);
  }
  out += '}';
  return out;
}

Logger::Logger(Level level, Sink sink, Now now)
    : level_(level), sink_(std::move(sink)), now_(std::move(now)) {
  if (!sink_) sink_ = writeStderr;
  if (!now_) now_ = [] { return std::chrono::system_clock::now(); };
}

void Logger::log(Level level,
                 std::string_view op,
                 std::string_view event,
                 std::string_view msg,
                 std::initializer_list<Field> fields) {
  if (!enabled(level)) return;
  const std::string line =
      formatLine(now_(), level, op, event, msg, {fields.begin(), fields.size()});
  std::lock_guard lock(mu_);
  sink_(line);
}

}  // namespace ingot::log
