// SPDX-License-Identifier: Apache-2.0
#include "common/json/scan.h"

#include <array>
#include <charconv>
#include <cstddef>

#include "common/json/json.h"
#include "common/json/rapidjson_wrapper.h"

namespace ingot::json {
namespace {

constexpr size_t kMaxPaths = 32;

/// BoundedStream is a RapidJSON input stream over a string_view: it reads '\0' at the end
/// instead of past it, so the text needs neither a terminator nor a padded copy.
class BoundedStream {
 public:
  using Ch = char;
  explicit BoundedStream(std::string_view s)
      : begin_(s.data()), cur_(s.data()), end_(cur_ + s.size()) {}
  // NOLINTBEGIN(readability-identifier-naming): RapidJSON's stream concept names these methods.
  Ch Peek() const { return cur_ < end_ ? *cur_ : '\0'; }
  Ch Take() { return cur_ < end_ ? *cur_++ : '\0'; }
  size_t Tell() const { return static_cast<size_t>(cur_ - begin_); }
  // Output half of the stream concept; never called for a read-only parse.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch /*c*/) {}
  void Flush() {}
  size_t PutEnd(Ch* /*begin*/) { return 0; }
  // NOLINTEND(readability-identifier-naming)

 private:
  const char* begin_;
  const char* cur_;
  const char* end_;
};

/// Level is the state of one open container while scanning.
struct Level {
  bool array = false;
  uint32_t live = 0;  ///< paths that match every key above this level and go deeper
  uint32_t key = 0;   ///< live paths whose component here equals the current key (objects)
  uint32_t self = 0;  ///< paths whose value is this container
  size_t cursor = 0;  ///< where the next value of this level starts (before separators)
};

/// Scanner is the SAX handler: it follows the requested paths and records slices of the input.
class Scanner : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Scanner> {
 public:
  Scanner(std::string_view text,
          const BoundedStream& stream,
          std::initializer_list<Path> paths,
          std::vector<Found>& out)
      : text_(text), stream_(stream), paths_(paths.begin()), count_(paths.size()), out_(out) {
    levels_[0].live = count_ == kMaxPaths ? ~0u : (1u << count_) - 1;
  }

  bool Null() { return scalar(Type::Null, {}); }
  bool Bool(bool /*b*/) { return scalar(Type::Bool, {}); }
  bool RawNumber(const char* /*s*/, rapidjson::SizeType /*n*/, bool /*copy*/) {
    return scalar(Type::Number, {});
  }
  bool String(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    return scalar(Type::String, std::string_view(s, n));
  }
  bool Key(const char* s, rapidjson::SizeType n, bool /*copy*/);
  bool StartObject() { return open(false); }
  bool StartArray() { return open(true); }
  bool EndObject(rapidjson::SizeType /*members*/) { return close(); }
  bool EndArray(rapidjson::SizeType /*elements*/) { return close(); }

  bool depthExceeded() const { return depth_exceeded_; }

 private:
  /// begin marks the start of a value at the current level; returns the paths it completes.
  uint32_t begin(Type type);
  /// end marks the end of a value at the current level that completes the paths in done.
  void end(uint32_t done);
  bool scalar(Type type, std::string_view decoded);
  bool open(bool array);
  bool close();
  size_t startOfValue(size_t cursor) const;

  std::string_view text_;
  const BoundedStream& stream_;
  const Path* paths_;
  size_t count_;
  std::vector<Found>& out_;
  std::array<Level, kMaxDepth + 1> levels_{};
  std::array<size_t, kMaxPaths> starts_{};
  size_t depth_ = 0;
  size_t element_start_ = 0;
  bool depth_exceeded_ = false;
};

bool Scanner::Key(const char* s, rapidjson::SizeType n, bool /*copy*/) {
  Level& level = levels_[depth_];
  level.key = 0;
  level.cursor = stream_.Tell();
  const std::string_view key(s, n);
  for (uint32_t m = level.live; m != 0; m &= m - 1) {
    const auto p = static_cast<size_t>(__builtin_ctz(m));
    if (*(paths_[p].begin() + (depth_ - 1)) == key) {
      level.key |= 1u << p;
    }
  }
  return true;
}

size_t Scanner::startOfValue(size_t cursor) const {
  while (cursor < text_.size()) {
    const char c = text_[cursor];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ':' && c != ',') {
      break;
    }
    ++cursor;
  }
  return cursor;
}

uint32_t Scanner::begin(Type type) {
  if (depth_ == 0) {
    return 0;
  }
  const Level& level = levels_[depth_];
  if (level.array) {
    if (level.self != 0) {
      element_start_ = startOfValue(level.cursor);
    }
    return 0;
  }
  uint32_t done = 0;
  for (uint32_t m = level.key; m != 0; m &= m - 1) {
    const auto p = static_cast<size_t>(__builtin_ctz(m));
    if (paths_[p].size() == depth_) {
      done |= 1u << p;
      starts_[p] = startOfValue(level.cursor);
      out_[p] = Found{true, type, {}, {}, {}};
    }
  }
  return done;
}

void Scanner::end(uint32_t done) {
  const size_t at = stream_.Tell();
  for (uint32_t m = done; m != 0; m &= m - 1) {
    const auto p = static_cast<size_t>(__builtin_ctz(m));
    out_[p].raw = text_.substr(starts_[p], at - starts_[p]);
  }
  if (depth_ == 0) {
    return;
  }
  Level& level = levels_[depth_];
  if (level.array && level.self != 0) {
    const std::string_view element = text_.substr(element_start_, at - element_start_);
    for (uint32_t m = level.self; m != 0; m &= m - 1) {
      out_[static_cast<size_t>(__builtin_ctz(m))].items.push_back(element);
    }
  }
  level.cursor = at;
}

bool Scanner::scalar(Type type, std::string_view decoded) {
  const uint32_t done = begin(type);
  if (type == Type::String) {
    for (uint32_t m = done; m != 0; m &= m - 1) {
      out_[static_cast<size_t>(__builtin_ctz(m))].text.assign(decoded);
    }
  }
  end(done);
  return true;
}

bool Scanner::open(bool array) {
  if (depth_ >= static_cast<size_t>(kMaxDepth)) {
    depth_exceeded_ = true;
    return false;
  }
  const uint32_t done = begin(array ? Type::Array : Type::Object);
  uint32_t deeper = 0;
  if (!array) {
    // Paths continue into this object when they matched every key so far and are longer.
    const uint32_t matched = depth_ == 0 ? levels_[0].live : levels_[depth_].key;
    for (uint32_t m = matched; m != 0; m &= m - 1) {
      const auto p = static_cast<size_t>(__builtin_ctz(m));
      if (paths_[p].size() > depth_) {
        deeper |= 1u << p;
      }
    }
  }
  ++depth_;
  levels_[depth_] = Level{array, deeper, 0, done, stream_.Tell()};
  return true;
}

bool Scanner::close() {
  const uint32_t done = levels_[depth_].self;
  --depth_;
  end(done);
  return true;
}

Error scanError(const rapidjson::ParseResult& r, const Scanner& scanner) {
  std::string what = rapidjson::GetParseError_En(r.Code());
  if (scanner.depthExceeded()) {
    what = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
  } else if (r.Code() == rapidjson::kParseErrorStringInvalidEncoding) {
    what = "invalid UTF-8 in string";
  }
  return invalidArgument("JSON: " + what + " at offset " + std::to_string(r.Offset()));
}

}  // namespace

Result<std::vector<Found>> scan(std::string_view text, std::initializer_list<Path> paths) {
  if (paths.size() > kMaxPaths) {
    return invalidArgument("JSON scan: more than 32 paths");
  }
  std::vector<Found> out(paths.size());
  BoundedStream stream(text);
  Scanner scanner(text, stream, paths, out);
  // One reader per thread: its internal stack (used to decode strings) is reused across calls.
  thread_local rapidjson::Reader reader;
  constexpr unsigned kFlags =
      rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseValidateEncodingFlag;
  const rapidjson::ParseResult r = reader.Parse<kFlags>(stream, scanner);
  if (!r) {
    return scanError(r, scanner);
  }
  if (stream.Tell() != text.size()) {  // the stream reads '\0' for a NUL byte and for the end
    return invalidArgument("JSON: NUL byte at offset " + std::to_string(stream.Tell()));
  }
  return out;
}

Result<void> validate(std::string_view text) {
  auto r = scan(text, {});
  if (!r) {
    return r.error();
  }
  return {};
}

Result<std::optional<std::string_view>> rawAt(std::string_view text, Path path) {
  auto r = scan(text, {path});
  if (!r) {
    return r.error();
  }
  if (!(*r)[0].present) {
    return std::optional<std::string_view>();
  }
  return std::optional<std::string_view>((*r)[0].raw);
}

Result<std::string> stringAt(std::string_view text, Path path) {
  auto r = scan(text, {path});
  if (!r) {
    return r.error();
  }
  Found& f = (*r)[0];
  if (!f.present || f.type == Type::Null) {
    return std::string();
  }
  if (f.type != Type::String) {
    return invalidArgument("JSON: " + std::string(*(path.end() - 1)) + " is a " +
                           std::string(typeName(f.type)) + ", not a string");
  }
  return std::move(f.text);
}

Result<std::int64_t> intAt(std::string_view text, Path path) {
  auto raw = rawAt(text, path);
  if (!raw) {
    return raw.error();
  }
  std::int64_t v = 0;
  const std::string_view s = raw->value_or(std::string_view());
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    return invalidArgument("JSON: " + std::string(*(path.end() - 1)) +
                           " is not an integer: " + std::string(s));
  }
  return v;
}

}  // namespace ingot::json
