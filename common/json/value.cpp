// SPDX-License-Identifier: Apache-2.0
#include "common/json/value.h"

namespace ingot::json {

std::string_view typeName(Type type) {
  switch (type) {
    case Type::Null:
      return "null";
    case Type::Bool:
      return "boolean";
    case Type::Number:
      return "number";
    case Type::String:
      return "string";
    case Type::Array:
      return "array";
    case Type::Object:
      return "object";
  }
  return "unknown";
}

Value Value::null(int line) {
  Value v;
  v.line_ = line;
  return v;
}

Value Value::boolean(bool b, int line) {
  Value v;
  v.type_ = Type::Bool;
  v.text_ = b ? "true" : "false";
  v.line_ = line;
  return v;
}

Value Value::numberText(std::string text, int line) {
  Value v;
  v.type_ = Type::Number;
  v.text_ = std::move(text);
  v.line_ = line;
  return v;
}

Value Value::number(int64_t n) {
  return numberText(std::to_string(n));
}

Value Value::number(uint64_t n) {
  return numberText(std::to_string(n));
}

Value Value::string(std::string s, int line) {
  Value v;
  v.type_ = Type::String;
  v.text_ = std::move(s);
  v.line_ = line;
  return v;
}

Value Value::array(int line) {
  Value v;
  v.type_ = Type::Array;
  v.line_ = line;
  return v;
}

Value Value::object(int line) {
  Value v;
  v.type_ = Type::Object;
  v.line_ = line;
  return v;
}

bool Value::isInteger() const {
  return type_ == Type::Number && text_.find_first_of(".eE") == std::string::npos;
}

const Value* Value::find(std::string_view key) const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) {
      return &items_[i];
    }
  }
  return nullptr;
}

Value& Value::push(Value v) {
  items_.push_back(std::move(v));
  return items_.back();
}

Value& Value::set(std::string key, Value v) {
  keys_.push_back(std::move(key));
  items_.push_back(std::move(v));
  return items_.back();
}

bool operator==(const Value& a, const Value& b) {
  return a.type_ == b.type_ && a.text_ == b.text_ && a.keys_ == b.keys_ && a.items_ == b.items_;
}

}  // namespace ingot::json
