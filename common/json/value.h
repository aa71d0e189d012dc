// SPDX-License-Identifier: Apache-2.0
// Value is Ingot's JSON document tree: what common/json parses into, what api/ decodes from and
// encodes to, and what YAML manifests are converted into (api/manifest.h). It is RapidJSON-free so
// any library may use it; numbers keep their exact text so no precision is lost in transit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ingot::json {

enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };

/// typeName returns "null", "boolean", "number", "string", "array" or "object".
std::string_view typeName(Type type);

/// Value is one node of a JSON document. Objects keep their members in insertion order (and keep
/// duplicate keys, so a decoder can reject them); line is the 1-based source line, 0 if unknown.
class Value {
 public:
  Value() = default;
  static Value null(int line = 0);
  static Value boolean(bool b, int line = 0);
  /// number takes JSON number text as is (the caller guarantees JSON number syntax).
  static Value numberText(std::string text, int line = 0);
  static Value number(int64_t n);
  static Value number(uint64_t n);
  static Value string(std::string s, int line = 0);
  static Value array(int line = 0);
  static Value object(int line = 0);

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool isBool() const { return type_ == Type::Bool; }
  bool isNumber() const { return type_ == Type::Number; }
  bool isString() const { return type_ == Type::String; }
  bool isArray() const { return type_ == Type::Array; }
  bool isObject() const { return type_ == Type::Object; }
  int line() const { return line_; }
  void setLine(int line) { line_ = line; }

  /// boolValue is the value of a Bool (false for any other type).
  bool boolValue() const { return type_ == Type::Bool && text_ == "true"; }
  /// text is the string of a String, or the number text of a Number ("" otherwise).
  const std::string& text() const { return text_; }
  /// isInteger reports a Number written without fraction or exponent.
  bool isInteger() const;

  /// items are the elements of an Array; keys()[i] names items()[i] of an Object.
  const std::vector<Value>& items() const { return items_; }
  std::vector<Value>& items() { return items_; }
  const std::vector<std::string>& keys() const { return keys_; }
  size_t size() const { return items_.size(); }

  /// find returns the first member named key of an Object, or nullptr.
  const Value* find(std::string_view key) const;
  /// push appends to an Array; set appends a member to an Object (no duplicate check).
  Value& push(Value v);
  Value& set(std::string key, Value v);

  /// operator== compares content (type, text, members in order); source lines are ignored.
  friend bool operator==(const Value& a, const Value& b);

 private:
  Type type_ = Type::Null;
  int line_ = 0;
  std::string text_;
  std::vector<std::string> keys_;
  std::vector<Value> items_;
};

}  // namespace ingot::json
