// SPDX-License-Identifier: Apache-2.0
// Structured logging: one JSON object per line with ts, level, op, event, msg and any number of
// key/value fields (the object key first, by convention "key"). Daemons log through a Logger;
// the line format is a pure function so that it can be tested byte for byte.
#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "common/util/result.h"

namespace ingot::log {

/// Level orders severities; None disables logging.
enum class Level { Debug, Info, Warn, Error, None };

/// parseLevel accepts MetalLB's --log-level values: all (= debug), debug, info, warn, error,
/// none. Anything else is an error naming the accepted values.
Result<Level> parseLevel(std::string_view text);

/// levelName returns "debug", "info", "warn", "error" or "none".
std::string_view levelName(Level level);

/// Field is one extra key/value of a line. Values are strings; a numeric value may be passed
/// with number = true to be written unquoted (it must then be a valid JSON number).
struct Field {
  std::string key;
  std::string value;
  bool number = false;
};

/// num builds a numeric Field.
Field num(std::string key, long long value);

/// formatTime renders t as RFC 3339 UTC with milliseconds ("2024-05-01T12:00:00.123Z").
std::string formatTime(std::chrono::system_clock::time_point t);

/// formatLine renders one log line (without the trailing newline): {"ts","level","op","event",
/// "msg", then fields in order}. Fields named like a fixed member are still written (JSON
/// readers keep the last); callers avoid that.
std::string formatLine(std::chrono::system_clock::time_point ts,
                       Level level,
                       std::string_view op,
                       std::string_view event,
                       std::string_view msg,
                       std::span<const Field> fields);

/// Logger writes lines at or above its level to a sink (stderr by default). Thread-safe: lines
/// are never interleaved.
class Logger {
 public:
  using Sink = std::function<void(std::string_view line)>;
  using Now = std::function<std::chrono::system_clock::time_point()>;

  explicit Logger(Level level = Level::Info, Sink sink = {}, Now now = {});

  bool enabled(Level level) const { return level_ != Level::None && level >= level_; }
  Level level() const { return level_; }

  /// log writes one line when level is enabled.
  void log(Level level,
           std::string_view op,
           std::string_view event,
           std::string_view msg,
           std::initializer_list<Field> fields = {});

  void debug(std::string_view op,
             std::string_view event,
             std::string_view msg,
             std::initializer_list<Field> fields = {}) {
    log(Level::Debug, op, event, msg, fields);
  }
  void info(std::string_view op,
            std::string_view event,
            std::string_view msg,
            std::initializer_list<Field> fields = {}) {
    log(Level::Info, op, event, msg, fields);
  }
  void warn(std::string_view op,
            std::string_view event,
            std::string_view msg,
            std::initializer_list<Field> fields = {}) {
    log(Level::Warn, op, event, msg, fields);
  }
  void error(std::string_view op,
             std::string_view event,
             std::string_view msg,
             std::initializer_list<Field> fields = {}) {
    log(Level::Error, op, event, msg, fields);
  }

 private:
  Level level_;
  Sink sink_;
  Now now_;
  std::mutex mu_;
};

}  // namespace ingot::log
