// SPDX-License-Identifier: Apache-2.0
#include "common/yaml/reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "common/json/json.h"

namespace ingot::yaml {
namespace {

/// TreeError is thrown by the handler to stop yaml-cpp; caught in parse.
struct TreeError {
  int line;
  std::string message;
};

int lineOf(const YAML::Mark& mark) {
  return mark.is_null() ? 0 : mark.line + 1;
}

/// validUtf8 accepts well-formed UTF-8 only (no overlong forms, surrogates or values > U+10FFFF).
bool validUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n = 0;
    uint32_t cp = 0;
    if ((c & 0xe0) == 0xc0) {
      n = 1;
      cp = c & 0x1fu;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2;
      cp = c & 0x0fu;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3;
      cp = c & 0x07u;
    } else {
      return false;
    }
    if (i + n >= s.size()) {
      return false;
    }
    for (size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) {
        return false;
      }
      cp = (cp << 6) | (cc & 0x3fu);
    }
    static constexpr uint32_t kMinimum[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMinimum[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

/// parseGoInt mirrors strconv.ParseInt/ParseUint(s, 0, 64) after underscores were removed:
/// sign, 0x / 0o / 0b prefixes, a leading 0 meaning octal. Returns canonical decimal text.
std::optional<std::string> parseGoInt(const std::string& s) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  int base = 10;
  if (s.size() - i > 1 && s[i] == '0') {
    const char p = static_cast<char>(s[i + 1] | 0x20);
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 8;
    i += (p == 'x' || p == 'o' || p == 'b') ? 2 : 1;
  }
  if (i >= s.size()) {
    return std::nullopt;
  }
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return std::nullopt;
  }
  if (negative) {
    if (v > uint64_t{1} << 63) {
      return std::nullopt;
    }
    return v == 0 ? "0" : "-" + std::to_string(v);
  }
  return std::to_string(v);
}

/// isYamlFloat matches go-yaml's float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool isYamlFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      ++i;
    }
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    ++i;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) {
      return false;
    }
  } else {
    if (digits() == 0) {
      return false;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      ++i;
    }
    if (digits() == 0) {
      return false;
    }
  }
  return i == s.size();
}

/// parseYamlFloat returns JSON number text for a YAML 1.1 float, as Go's encoding/json would
/// print the float64: integral values below 1e21 without a fraction, so such a value reaches an
/// integer field as an integer (kubectl accepts `port: 80.0`).
std::optional<std::string> parseYamlFloat(const std::string& plain) {
  if (!isYamlFloat(plain)) {
    return std::nullopt;
  }
  const double d = std::strtod(plain.c_str(), nullptr);
  if (!std::isfinite(d)) {
    return std::nullopt;
  }
  char buf[400];
  const bool integral = std::fabs(d) < 1e21 && d == std::trunc(d);
  const auto [ptr, ec] = integral
                             ? std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed, 0)
                             : std::to_chars(buf, buf + sizeof(buf), d);
  if (ec != std::errc()) {
    return std::nullopt;
  }
  const std::string out(buf, ptr);
  return out == "-0" ? "0" : out;
}

bool isOneOf(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (s == w) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<json::Value> resolvePlainScalar(const std::string& text, int line) {
  if (isOneOf(text, {"", "~", "null", "Null", "NULL"})) {
    return json::Value::null(line);
  }
  if (isOneOf(text, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) {
    return json::Value::boolean(true, line);
  }
  if (isOneOf(text, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) {
    return json::Value::boolean(false, line);
  }
  if (isOneOf(text, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
                     ".nan", ".NaN", ".NAN"})) {
    return std::nullopt;
  }
  const char first = text[0];
  if (!(first == '+' || first == '-' || first == '.' || (first >= '0' && first <= '9'))) {
    return json::Value::string(text, line);
  }
  std::string plain;
  for (const char c : text) {
    if (c != '_') {
      plain += c;
    }
  }
  if (auto integer = parseGoInt(plain)) {
    return json::Value::numberText(*integer, line);
  }
  if (auto number = parseYamlFloat(plain)) {
    return json::Value::numberText(*number, line);
  }
  return json::Value::string(text, line);
}

namespace {

/// TreeHandler builds json::Values from yaml-cpp parser events.
class TreeHandler : public YAML::EventHandler {
 public:
  TreeHandler(size_t budget, Scalars scalars) : budget_(budget), scalars_(scalars) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    stack_.clear();
    anchors_.clear();
    root_ = json::Value::null(lineOf(mark));
    document_line_ = lineOf(mark);
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    charge(1, lineOf(mark));  // every event costs, so a parser stuck emitting events stops
    const int line = awaitingValue() ? stack_.back().key_line : lineOf(mark);
    complete(json::Value::null(line), anchor, false);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      throw TreeError{lineOf(mark), "alias refers to an anchor that is not complete (recursive)"};
    }
    charge(it->second.cost, lineOf(mark));
    complete(it->second.value, YAML::NullAnchor, false);
  }

  void OnScalar(const YAML::Mark& mark,
                const std::string& tag,
                YAML::anchor_t anchor,
                const std::string& value) override {
    const int line = lineOf(mark);
    charge(1 + value.size(), line);
    if (scalars_ == Scalars::Text) {
      complete(json::Value::string(value, line), anchor, false);
      return;
    }
    if (!validUtf8(value)) {
      throw TreeError{line, "invalid UTF-8 in scalar"};
    }
    const bool plain =
        tag == "?" || (tag.rfind("tag:yaml.org,2002:", 0) == 0 && tag != "tag:yaml.org,2002:str" &&
                       tag != "tag:yaml.org,2002:binary");
    if (!plain) {
      complete(json::Value::string(value, line), anchor, false);
      return;
    }
    auto resolved = resolvePlainScalar(value, line);
    if (!resolved) {
      throw TreeError{line, "unsupported value " + value + " (JSON has no infinity or NaN)"};
    }
    complete(std::move(*resolved), anchor, tag == "?" && value == "<<");
  }

  void OnSequenceStart(const YAML::Mark& mark,
                       const std::string&,
                       YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(json::Value::array(lineOf(mark)), anchor, lineOf(mark));
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark,
                  const std::string&,
                  YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(json::Value::object(lineOf(mark)), anchor, lineOf(mark));
  }
  void OnMapEnd() override { close(); }

  json::Value takeRoot() { return std::move(root_); }
  int documentLine() const { return document_line_; }

 private:
  struct Frame {
    json::Value value;
    YAML::anchor_t anchor = YAML::NullAnchor;
    size_t cost_at_start = 0;
    bool have_key = false;
    std::string key;
    int key_line = 0;
    bool key_is_merge = false;
    std::vector<json::Value> merges;  ///< values of `<<` keys, applied at the end
  };
  struct Anchored {
    json::Value value;
    size_t cost = 0;
  };

  bool awaitingValue() const {
    return !stack_.empty() && stack_.back().value.isObject() && stack_.back().have_key;
  }

  void charge(size_t cost, int line) {
    spent_ += cost;
    if (spent_ > budget_) {
      throw TreeError{line, "document too large after alias expansion"};
    }
  }

  void open(json::Value v, YAML::anchor_t anchor, int line) {
    if (stack_.size() >= static_cast<size_t>(json::kMaxDepth)) {
      throw TreeError{line, "nesting deeper than " + std::to_string(json::kMaxDepth) + " levels"};
    }
    charge(1, line);
    stack_.push_back(Frame{std::move(v), anchor, spent_, false, {}, 0, false, {}});
  }

  void close() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (!frame.merges.empty()) {
      applyMerges(frame);
    }
    const size_t cost = spent_ - frame.cost_at_start + 1;
    if (frame.anchor != YAML::NullAnchor) {
      anchors_[frame.anchor] = Anchored{frame.value, cost};
    }
    complete(std::move(frame.value), YAML::NullAnchor, false);
  }

  /// applyMerges adds the members of `<<` maps that the mapping does not define itself.
  static void applyMerges(Frame& frame) {
    std::set<std::string> keys(frame.value.keys().begin(), frame.value.keys().end());
    for (const auto& source : frame.merges) {
      const std::vector<json::Value> single{source};
      const auto& list = source.isArray() ? source.items() : single;
      for (const auto& m : list) {
        if (!m.isObject()) {
          throw TreeError{m.line(), "merge key value must be a mapping or a list of mappings"};
        }
        for (size_t i = 0; i < m.size(); ++i) {
          if (keys.insert(m.keys()[i]).second) {
            frame.value.set(m.keys()[i], m.items()[i]);
          }
        }
      }
    }
  }

  void complete(json::Value v, YAML::anchor_t anchor, bool merge_key) {
    if (anchor != YAML::NullAnchor) {
      anchors_[anchor] = Anchored{v, 1 + v.text().size()};
    }
    if (stack_.empty()) {
      root_ = std::move(v);
      return;
    }
    Frame& parent = stack_.back();
    if (parent.value.isArray()) {
      parent.value.push(std::move(v));
    } else if (!parent.have_key) {
      parent.key = keyText(v);
      parent.key_line = v.line();
      parent.key_is_merge = merge_key;
      parent.have_key = true;
    } else if (parent.key_is_merge) {
      parent.merges.push_back(std::move(v));
      parent.have_key = false;
    } else {
      parent.value.set(std::move(parent.key), std::move(v));
      parent.have_key = false;
    }
  }

  /// keyText: JSON keys are strings; scalar keys are converted as sigs.k8s.io/yaml does.
  static std::string keyText(const json::Value& key) {
    if (key.isArray() || key.isObject()) {
      throw TreeError{key.line(), "mapping keys must be scalars"};
    }
    return key.isNull() ? "null" : key.text();
  }

  size_t budget_;
  Scalars scalars_;
  size_t spent_ = 0;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Anchored> anchors_;
  json::Value root_;
  int document_line_ = 0;
};

/// parse reads at most max_documents documents of text (all of them when nullopt).
Stream parse(std::string_view text, Scalars scalars, std::optional<size_t> max_documents) {
  Stream out;
  std::istringstream input{std::string(text)};
  // Aliases may repeat content; allow a few times the input size before calling it a bomb.
  TreeHandler handler(4 * text.size() + 100000, scalars);
  try {
    YAML::Parser parser(input);
    // Every document but the first needs a "---" (3 bytes). yaml-cpp 0.7 can loop forever
    // yielding empty documents on some malformed input; more documents than that is the bug.
    const size_t progress_limit = text.size() / 3 + 2;
    while (out.documents.size() < max_documents.value_or(SIZE_MAX) &&
           parser.HandleNextDocument(handler)) {
      if (out.documents.size() >= progress_limit) {
        out.error = ParseError{handler.documentLine(), "YAML parser stopped making progress"};
        break;
      }
      json::Value root = handler.takeRoot();
      const int line = root.line() > 0 ? root.line() : handler.documentLine();
      out.documents.push_back(Document{std::move(root), line});
    }
  } catch (const TreeError& e) {
    out.error = ParseError{e.line, e.message};
  } catch (const YAML::DeepRecursion& e) {
    out.error = ParseError{lineOf(e.mark), "nesting too deep"};
  } catch (const YAML::Exception& e) {
    out.error = ParseError{lineOf(e.mark), e.msg};
  } catch (const std::exception& e) {
    out.error = ParseError{0, std::string("YAML parser failed: ") + e.what()};
  }
  if (out.error && out.error->line <= 0) {
    // No position from the parser: the problem is at the end of the input.
    out.error->line = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  }
  return out;
}

}  // namespace

Stream parseStream(std::string_view text, Scalars scalars) {
  return parse(text, scalars, std::nullopt);
}

Result<json::Value> parseFirstDocument(std::string_view text, Scalars scalars) {
  Stream stream = parse(text, scalars, 1);
  if (stream.error) {
    return invalidArgument("line " + std::to_string(stream.error->line) + ": " +
                           stream.error->message);
  }
  if (stream.documents.empty()) {
    return json::Value::null(1);
  }
  return std::move(stream.documents.front().root);
}

}  // namespace ingot::yaml
