// SPDX-License-Identifier: Apache-2.0
#include "common/json/decode.h"

#include <charconv>
#include <limits>

namespace ingot::json {
namespace {

const Value& nullValue() {
  static const Value kNull;
  return kNull;
}

std::string describe(const Value& v) {
  if (v.isNumber()) {
    return "number " + v.text();
  }
  return std::string(typeName(v.type()));
}

/// parseIntegerText parses JSON integer text ("-12"); nullopt if it does not fit 64 bits.
std::optional<std::pair<bool, uint64_t>> parseIntegerText(const std::string& text) {
  const bool negative = !text.empty() && text[0] == '-';
  const char* begin = text.data() + (negative ? 1 : 0);
  const char* end = text.data() + text.size();
  uint64_t magnitude = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, magnitude);
  if (ec != std::errc() || ptr != end || begin == end) {
    return std::nullopt;
  }
  return std::make_pair(negative, magnitude);
}

}  // namespace

void Decoder::report(std::string path, int line, std::string message) {
  if (issues_.size() >= kMaxIssues) {
    ++dropped_;
    return;
  }
  issues_.push_back(Issue{std::move(path), line, std::move(message)});
}

Error Decoder::toError() const {
  std::string message;
  for (const auto& issue : issues_) {
    if (!message.empty()) {
      message += "; ";
    }
    message += issue.path.empty() ? issue.message : issue.path + ": " + issue.message;
  }
  if (dropped_ > 0) {
    message += "; and " + std::to_string(dropped_) + " more";
  }
  return invalidArgument(message);
}

Field::Field(const Value* value, std::string path, Decoder& decoder)
    : value_(value), path_(std::move(path)), decoder_(&decoder) {}

const Value& Field::value() const {
  return value_ != nullptr ? *value_ : nullValue();
}

void Field::fail(std::string message) const {
  decoder_->report(path_, line(), std::move(message));
}

bool Field::expect(Type type) const {
  if (!present() || value_->type() == type) {
    return true;
  }
  fail("expected " + std::string(typeName(type)) + ", got " + describe(*value_));
  return false;
}

bool Field::read(std::string& out) const {
  if (!present()) {
    return true;
  }
  if (!expect(Type::String)) {
    return false;
  }
  out = value_->text();
  return true;
}

bool Field::read(bool& out) const {
  if (!present()) {
    return true;
  }
  if (!expect(Type::Bool)) {
    return false;
  }
  out = value_->boolValue();
  return true;
}

std::optional<int64_t> Field::integer(int64_t min, int64_t max, std::string_view type_name) const {
  if (!expect(Type::Number)) {
    return std::nullopt;
  }
  if (!value_->isInteger()) {
    fail("expected an integer (" + std::string(type_name) + "), got " + value_->text());
    return std::nullopt;
  }
  const auto parsed = parseIntegerText(value_->text());
  const bool fits =
      parsed.has_value() &&
      (parsed->first ? parsed->second <= uint64_t{1} << 63
                     : parsed->second <= uint64_t{std::numeric_limits<int64_t>::max()});
  if (!fits) {
    fail("value " + value_->text() + " is out of range for " + std::string(type_name));
    return std::nullopt;
  }
  const int64_t v = parsed->first ? static_cast<int64_t>(0 - parsed->second)
                                  : static_cast<int64_t>(parsed->second);
  if (v < min || v > max) {
    fail("value " + value_->text() + " is out of range for " + std::string(type_name));
    return std::nullopt;
  }
  return v;
}

std::optional<uint64_t> Field::unsignedInteger(uint64_t max, std::string_view type_name) const {
  if (!expect(Type::Number)) {
    return std::nullopt;
  }
  if (!value_->isInteger()) {
    fail("expected an integer (" + std::string(type_name) + "), got " + value_->text());
    return std::nullopt;
  }
  const auto parsed = parseIntegerText(value_->text());
  const bool negative_zero = parsed.has_value() && parsed->first && parsed->second == 0;
  if (!parsed.has_value() || (parsed->first && !negative_zero) || parsed->second > max) {
    fail("value " + value_->text() + " is out of range for " + std::string(type_name));
    return std::nullopt;
  }
  return parsed->second;
}

bool Field::read(int32_t& out) const {
  if (!present()) {
    return true;
  }
  const auto v =
      integer(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), "int32");
  if (v) {
    out = static_cast<int32_t>(*v);
  }
  return v.has_value();
}

bool Field::read(int64_t& out) const {
  if (!present()) {
    return true;
  }
  const auto v =
      integer(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), "int64");
  if (v) {
    out = *v;
  }
  return v.has_value();
}

bool Field::read(uint16_t& out) const {
  if (!present()) {
    return true;
  }
  const auto v = unsignedInteger(std::numeric_limits<uint16_t>::max(), "uint16");
  if (v) {
    out = static_cast<uint16_t>(*v);
  }
  return v.has_value();
}

bool Field::read(uint32_t& out) const {
  if (!present()) {
    return true;
  }
  const auto v = unsignedInteger(std::numeric_limits<uint32_t>::max(), "uint32");
  if (v) {
    out = static_cast<uint32_t>(*v);
  }
  return v.has_value();
}

void Field::forEach(const std::function<void(const Field&)>& each) const {
  if (!present() || !expect(Type::Array)) {
    return;
  }
  for (size_t i = 0; i < value_->size(); ++i) {
    each(Field(&value_->items()[i], path_ + "[" + std::to_string(i) + "]", *decoder_));
  }
}

bool Field::read(std::vector<std::string>& out) const {
  if (!present()) {
    return true;
  }
  if (!expect(Type::Array)) {
    return false;
  }
  bool ok = true;
  std::vector<std::string> result;
  forEach([&](const Field& item) {
    std::string s;
    if (item.present()) {
      ok = item.read(s) && ok;
    }
    result.push_back(std::move(s));
  });
  if (ok) {
    out = std::move(result);
  }
  return ok;
}

bool Field::read(std::map<std::string, std::string>& out) const {
  if (!present()) {
    return true;
  }
  if (!expect(Type::Object)) {
    return false;
  }
  bool ok = true;
  std::map<std::string, std::string> result;
  for (size_t i = 0; i < value_->size(); ++i) {
    const std::string& key = value_->keys()[i];
    const Field item(&value_->items()[i], path_ + "[" + key + "]", *decoder_);
    std::string s;
    ok = item.read(s) && ok;
    if (!result.emplace(key, s).second) {
      item.fail("duplicate key \"" + key + "\"");
      ok = false;
    }
  }
  if (ok) {
    out = std::move(result);
  }
  return ok;
}

ObjectReader::ObjectReader(const Field& field, Unknown unknown)
    : path_(field.path()), decoder_(&field.decoder()), unknown_(unknown) {
  if (field.present() && field.expect(Type::Object)) {
    object_ = &field.value();
    used_.assign(object_->size(), false);
  }
}

std::string ObjectReader::childPath(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

Field ObjectReader::operator[](std::string_view key) {
  const Value* found = nullptr;
  if (object_ != nullptr) {
    for (size_t i = 0; i < object_->size(); ++i) {
      if (object_->keys()[i] == key) {
        if (found == nullptr) {
          found = &object_->items()[i];
        } else if (!used_[i]) {
          decoder_->report(childPath(key), object_->items()[i].line(),
                           "duplicate field \"" + std::string(key) + "\"");
        }
        used_[i] = true;
      }
    }
  }
  return Field(found, childPath(key), *decoder_);
}

void ObjectReader::ignore(std::initializer_list<std::string_view> keys) {
  for (const auto key : keys) {
    (void)(*this)[key];
  }
}

ObjectReader::~ObjectReader() {
  if (object_ == nullptr || unknown_ == Unknown::Ignore) {
    return;
  }
  for (size_t i = 0; i < object_->size(); ++i) {
    if (!used_[i]) {
      const std::string& key = object_->keys()[i];
      decoder_->report(childPath(key), object_->items()[i].line(), "unknown field \"" + key + "\"");
    }
  }
}

int lineOf(const Value& root, std::string_view path) {
  const Value* node = &root;
  int line = root.line();
  size_t i = 0;
  while (i < path.size() && node != nullptr) {
    std::string_view segment;
    bool bracket = path[i] == '[';
    if (bracket) {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos) {
        break;
      }
      segment = path.substr(i + 1, close - i - 1);
      i = close + 1;
    } else {
      const size_t stop = path.find_first_of(".[", i);
      segment = path.substr(i, stop == std::string_view::npos ? path.size() - i : stop - i);
      i += segment.size();
    }
    if (i < path.size() && path[i] == '.') {
      ++i;
    }
    const Value* next = nullptr;
    if (node->isArray() && bracket) {
      size_t index = 0;
      const auto [ptr, ec] =
          std::from_chars(segment.data(), segment.data() + segment.size(), index);
      if (ec == std::errc() && ptr == segment.data() + segment.size() && index < node->size()) {
        next = &node->items()[index];
      }
    } else if (node->isObject()) {
      next = node->find(segment);
    }
    node = next;
    if (node != nullptr && node->line() > 0) {
      line = node->line();
    }
  }
  return line;
}

}  // namespace ingot::json
