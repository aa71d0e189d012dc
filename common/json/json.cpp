// SPDX-License-Identifier: Apache-2.0
#include "common/json/json.h"

#include <vector>

#include "common/json/rapidjson_wrapper.h"
#include "common/util/utf8.h"

namespace ingot::json {

namespace {

/// LineTracker maps increasing byte offsets to 1-based lines in O(total length).
class LineTracker {
 public:
  explicit LineTracker(std::string_view text) : text_(text) {}
  int lineAt(size_t offset) {
    for (; pos_ < offset && pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == '\n') {
        ++line_;
      }
    }
    return line_;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

/// TreeBuilder is a RapidJSON SAX handler that builds a Value tree with lines. It refuses nesting
/// deeper than kMaxDepth by returning false, which stops the (recursive) parser early.
class TreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder> {
 public:
  TreeBuilder(std::string_view text, const rapidjson::StringStream& stream)
      : lines_(text), stream_(stream) {}

  bool Null() { return add(Value::null(line())); }
  bool Bool(bool b) { return add(Value::boolean(b, line())); }
  bool RawNumber(const char* str, rapidjson::SizeType length, bool /*copy*/) {
    return add(Value::numberText(std::string(str, length), line()));
  }
  bool String(const char* str, rapidjson::SizeType length, bool /*copy*/) {
    return add(Value::string(std::string(str, length), line()));
  }
  bool Key(const char* str, rapidjson::SizeType length, bool /*copy*/) {
    pending_key_.assign(str, length);
    return true;
  }
  bool StartObject() { return open(Value::object(line())); }
  bool StartArray() { return open(Value::array(line())); }
  bool EndObject(rapidjson::SizeType /*count*/) { return close(); }
  bool EndArray(rapidjson::SizeType /*count*/) { return close(); }

  bool depthExceeded() const { return depth_exceeded_; }
  Value takeRoot() { return std::move(root_); }

 private:
  int line() { return lines_.lineAt(stream_.Tell()); }

  bool add(Value v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return true;
    }
    Value* parent = stack_.back();
    if (parent->isObject()) {
      parent->set(std::move(pending_key_), std::move(v));
      pending_key_.clear();
    } else {
      parent->push(std::move(v));
    }
    return true;
  }

  bool open(Value v) {
    if (static_cast<int>(stack_.size()) >= kMaxDepth) {
      depth_exceeded_ = true;
      return false;
    }
    Value* slot = nullptr;
    if (stack_.empty()) {
      root_ = std::move(v);
      slot = &root_;
    } else if (stack_.back()->isObject()) {
      slot = &stack_.back()->set(std::move(pending_key_), std::move(v));
      pending_key_.clear();
    } else {
      slot = &stack_.back()->push(std::move(v));
    }
    // Children are appended only to the innermost open container, so pointers to the enclosing
    // ones stay valid.
    stack_.push_back(slot);
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  LineTracker lines_;
  const rapidjson::StringStream& stream_;
  Value root_;
  std::vector<Value*> stack_;
  std::string pending_key_;
  bool depth_exceeded_ = false;
};

template <typename Writer>
void emit(const Value& v, Writer& w) {
  switch (v.type()) {
    case Type::Null:
      w.Null();
      return;
    case Type::Bool:
      w.Bool(v.boolValue());
      return;
    case Type::Number:
      w.RawValue(v.text().data(), v.text().size(), rapidjson::kNumberType);
      return;
    case Type::String:
      if (utf8::valid(v.text())) {
        w.String(v.text().data(), static_cast<rapidjson::SizeType>(v.text().size()));
      } else {
        // Invalid bytes become U+FFFD, as in Go's encoding/json, so the output is valid JSON.
        const std::string clean = utf8::sanitize(v.text());
        w.String(clean.data(), static_cast<rapidjson::SizeType>(clean.size()));
      }
      return;
    case Type::Array:
      w.StartArray();
      for (const auto& item : v.items()) {
        emit(item, w);
      }
      w.EndArray();
      return;
    case Type::Object:
      w.StartObject();
      for (size_t i = 0; i < v.size(); ++i) {
        w.Key(v.keys()[i].data(), static_cast<rapidjson::SizeType>(v.keys()[i].size()));
        emit(v.items()[i], w);
      }
      w.EndObject();
      return;
  }
}

}  // namespace

std::pair<int, int> lineColumn(std::string_view text, size_t offset) {
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

Result<Value> parse(std::string_view text) {
  // StringStream reads up to a NUL, so embedded NUL bytes are an error up front (JSON forbids
  // raw control characters anyway).
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) {
    const auto [line, column] = lineColumn(text, nul);
    return invalidArgument("line " + std::to_string(line) + ", column " + std::to_string(column) +
                           ": NUL byte in JSON text");
  }
  // NUL-terminated copy for the in-memory stream, padded: RapidJSON 1.1's UTF-8 validation takes
  // up to three continuation bytes without checking for the terminator, so a multi-byte sequence
  // truncated at the end of the text would otherwise read past the buffer.
  std::string owned(text);
  owned.append(4, '\0');
  rapidjson::StringStream stream(owned.c_str());
  TreeBuilder builder(text, stream);
  rapidjson::Reader reader;
  constexpr unsigned kFlags =
      rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseValidateEncodingFlag;
  const rapidjson::ParseResult ok = reader.Parse<kFlags>(stream, builder);
  if (ok) {
    return builder.takeRoot();
  }
  const auto [line, column] = lineColumn(text, ok.Offset());
  const std::string where = "line " + std::to_string(line) + ", column " + std::to_string(column);
  if (builder.depthExceeded()) {
    return invalidArgument(where + ": nesting deeper than " + std::to_string(kMaxDepth) +
                           " levels");
  }
  return invalidArgument(where + ": " + rapidjson::GetParseError_En(ok.Code()));
}

std::string write(const Value& value, Style style) {
  rapidjson::StringBuffer buffer;
  if (style == Style::Pretty) {
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 2);
    emit(value, writer);
  } else {
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    emit(value, writer);
  }
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace ingot::json
