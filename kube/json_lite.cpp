// SPDX-License-Identifier: Apache-2.0
#include "kube/json_lite.h"

#include <charconv>
#include <cstdio>

namespace ingot::k8s::json {
namespace {

bool isWs(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// utf8Length returns the length of the valid UTF-8 sequence starting at s[0], or 0 when the
/// bytes are not a valid, shortest-form encoding of a non-surrogate code point.
size_t utf8Length(std::string_view s) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  auto cont = [&](size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // UTF-16 surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

/// Scanner walks one JSON text, validating as it goes. Every method leaves pos_ just after what
/// it consumed; errors carry the byte offset.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  size_t pos() const { return pos_; }
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  void skipWs() {
    while (!atEnd() && isWs(text_[pos_])) ++pos_;
  }

  Error fail(std::string_view what) const {
    return invalidArgument("JSON: " + std::string(what) + " at offset " + std::to_string(pos_));
  }

  Result<void> expect(char c) {
    skipWs();
    if (peek() != c) return fail(std::string("expected '") + c + "'");
    ++pos_;
    return {};
  }

  /// value consumes one value of any type.
  Result<void> value(int depth) {
    skipWs();
    if (depth > kMaxDepth) return fail("nesting too deep");
    switch (peek()) {
      case '{':
        return object(depth + 1, {}, nullptr);
      case '[':
        return array(depth + 1, nullptr);
      case '"':
        return string(nullptr);
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number();
    }
  }

  /// object consumes an object; for each key listed in keys, found[i] receives the raw value.
  Result<void> object(int depth,
                      std::initializer_list<std::string_view> keys,
                      std::vector<std::optional<std::string_view>>* found) {
    if (auto r = expect('{'); !r) return r;
    skipWs();
    if (peek() == '}') {
      ++pos_;
      return {};
    }
    for (;;) {
      skipWs();
      std::string key;
      if (auto r = string(&key); !r) return r;
      if (auto r = expect(':'); !r) return r;
      skipWs();
      const size_t start = pos_;
      if (auto r = value(depth); !r) return r;
      recordMember(key, text_.substr(start, pos_ - start), keys, found);
      skipWs();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      return expect('}');
    }
  }

  /// array consumes an array; when out is set it receives each element's raw text.
  Result<void> array(int depth, std::vector<std::string_view>* out) {
    if (auto r = expect('['); !r) return r;
    skipWs();
    if (peek() == ']') {
      ++pos_;
      return {};
    }
    for (;;) {
      skipWs();
      const size_t start = pos_;
      if (auto r = value(depth); !r) return r;
      if (out != nullptr) out->push_back(text_.substr(start, pos_ - start));
      skipWs();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      return expect(']');
    }
  }

  /// string consumes a string literal, decoding it into out when out is set.
  Result<void> string(std::string* out) {
    if (peek() != '"') return fail("expected a string");
    ++pos_;
    while (!atEnd()) {
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return {};
      }
      if (c == '\\') {
        if (auto r = escape(out); !r) return r;
        continue;
      }
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in string");
      const size_t n = utf8Length(text_.substr(pos_));
      if (n == 0) return fail("invalid UTF-8 in string");
      if (out != nullptr) out->append(text_.substr(pos_, n));
      pos_ += n;
    }
    return fail("unterminated string");
  }

 private:
  static void recordMember(const std::string& key,
                           std::string_view raw,
                           std::initializer_list<std::string_view> keys,
                           std::vector<std::optional<std::string_view>>* found) {
    if (found == nullptr) return;
    size_t i = 0;
    for (std::string_view k : keys) {
      if (k == key) (*found)[i] = raw;
      ++i;
    }
  }

  Result<void> literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return fail("invalid literal");
    pos_ += word.size();
    return {};
  }

  Result<void> digits() {
    if (!isDigit(peek())) return fail("expected a digit");
    while (isDigit(peek())) ++pos_;
    return {};
  }

  Result<void> number() {
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (auto r = digits(); !r) {
      return fail("expected a value");
    }
    if (peek() == '.') {
      ++pos_;
      if (auto r = digits(); !r) return r;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (auto r = digits(); !r) return r;
    }
    return {};
  }

  Result<std::uint32_t> hex4() {
    if (pos_ + 4 > text_.size()) return fail("truncated \\u escape");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = hexDigit(text_[pos_ + i]);
      if (d < 0) return fail("invalid \\u escape");
      v = v * 16 + static_cast<std::uint32_t>(d);
    }
    pos_ += 4;
    return v;
  }

  /// escape consumes a backslash escape (pos_ at the backslash).
  Result<void> escape(std::string* out) {
    ++pos_;
    if (atEnd()) return fail("truncated escape");
    const char c = text_[pos_++];
    char decoded = 0;
    switch (c) {
      case '"':
        decoded = '"';
        break;
      case '\\':
        decoded = '\\';
        break;
      case '/':
        decoded = '/';
        break;
      case 'b':
        decoded = '\b';
        break;
      case 'f':
        decoded = '\f';
        break;
      case 'n':
        decoded = '\n';
        break;
      case 'r':
        decoded = '\r';
        break;
      case 't':
        decoded = '\t';
        break;
      case 'u':
        return unicodeEscape(out);
      default:
        --pos_;
        return fail("invalid escape");
    }
    if (out != nullptr) *out += decoded;
    return {};
  }

  Result<void> unicodeEscape(std::string* out) {
    auto cp = hex4();
    if (!cp) return cp.error();
    std::uint32_t code = *cp;
    if (code >= 0xD800 && code <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
      const size_t save = pos_;
      pos_ += 2;
      auto low = hex4();
      if (!low) return low.error();
      if (*low >= 0xDC00 && *low <= 0xDFFF) {
        code = 0x10000 + ((code - 0xD800) << 10) + (*low - 0xDC00);
      } else {
        pos_ = save;  // not a pair: the second escape is decoded on its own
      }
    }
    if (code >= 0xD800 && code <= 0xDFFF) code = 0xFFFD;
    if (out != nullptr) appendUtf8(*out, code);
    return {};
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Result<void> expectEnd(Scanner& s) {
  s.skipWs();
  if (!s.atEnd()) return s.fail("unexpected trailing data");
  return {};
}

}  // namespace

Result<void> validate(std::string_view text) {
  Scanner s(text);
  if (auto r = s.value(0); !r) return r;
  return expectEnd(s);
}

Result<std::vector<std::optional<std::string_view>>> members(
    std::string_view object, std::initializer_list<std::string_view> keys) {
  std::vector<std::optional<std::string_view>> found(keys.size());
  Scanner s(object);
  s.skipWs();
  if (s.peek() != '{') return s.fail("expected an object");
  if (auto r = s.object(1, keys, &found); !r) return r.error();
  if (auto r = expectEnd(s); !r) return r.error();
  return found;
}

Result<std::optional<std::string_view>> member(std::string_view object, std::string_view key) {
  auto found = members(object, {key});
  if (!found) return found.error();
  return (*found)[0];
}

Result<std::optional<std::string_view>> memberPath(std::string_view object,
                                                   std::initializer_list<std::string_view> path) {
  std::optional<std::string_view> current = object;
  for (std::string_view step : path) {
    auto next = member(*current, step);
    if (!next) return next.error();
    if (!next->has_value() || **next == "null") return std::optional<std::string_view>{};
    current = **next;
  }
  return current;
}

Result<std::string> stringValue(std::string_view raw) {
  Scanner s(raw);
  s.skipWs();
  std::string out;
  if (auto r = s.string(&out); !r) return r.error();
  if (auto r = expectEnd(s); !r) return r.error();
  return out;
}

Result<std::int64_t> intValue(std::string_view raw) {
  std::int64_t v = 0;
  const char* end = raw.data() + raw.size();
  auto [ptr, ec] = std::from_chars(raw.data(), end, v);
  if (ec != std::errc() || ptr != end) {
    return invalidArgument("JSON: " + std::string(raw.substr(0, 32)) + " is not an int64");
  }
  return v;
}

Result<std::vector<std::string_view>> elements(std::string_view array) {
  std::vector<std::string_view> out;
  Scanner s(array);
  s.skipWs();
  if (s.peek() != '[') return s.fail("expected an array");
  if (auto r = s.array(1, &out); !r) return r.error();
  if (auto r = expectEnd(s); !r) return r.error();
  return out;
}

Result<std::string> stringAt(std::string_view object,
                             std::initializer_list<std::string_view> path) {
  auto raw = memberPath(object, path);
  if (!raw) return raw.error();
  if (!raw->has_value()) return std::string();
  return stringValue(**raw);
}

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace ingot::k8s::json
