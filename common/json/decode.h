// SPDX-License-Identifier: Apache-2.0
// Reading a json::Value tree into plain structs with precise errors. A Field is a cursor (value +
// JSON path such as "spec.addresses[1]"); an ObjectReader hands out member Fields and, when it
// goes out of scope, reports members nobody asked for (unknown fields) and repeated keys. Type
// rules follow Go's encoding/json as Kubernetes uses it: null means "absent", integers must be
// written without fraction or exponent and fit the target type, strings are never coerced.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json/value.h"
#include "common/util/result.h"

namespace ingot::json {

/// Issue is one decoding problem: the JSON path, the source line (0 if unknown) and the reason.
struct Issue {
  std::string path;
  int line = 0;
  std::string message;
  friend bool operator==(const Issue&, const Issue&) = default;
};

/// Decoder collects the issues of one decoding run; it keeps at most kMaxIssues of them.
class Decoder {
 public:
  static constexpr size_t kMaxIssues = 100;
  void report(std::string path, int line, std::string message);
  bool ok() const { return issues_.empty(); }
  const std::vector<Issue>& issues() const { return issues_; }
  /// toError joins the issues as "path: message; path: message" (InvalidArgument).
  Error toError() const;

 private:
  std::vector<Issue> issues_;
  size_t dropped_ = 0;
};

/// Unknown says what an ObjectReader does with members that were never read.
enum class Unknown { Reject, Ignore };

class ObjectReader;

/// Field is a value at a path. An absent member is a Field whose value is null. Every read*
/// leaves `out` untouched when the field is absent or null, reports an issue and returns false on
/// a type or range error, and returns true otherwise.
class Field {
 public:
  Field(const Value* value, std::string path, Decoder& decoder);

  /// present is false for an absent member and for an explicit null.
  bool present() const { return value_ != nullptr && !value_->isNull(); }
  const Value& value() const;
  const std::string& path() const { return path_; }
  int line() const { return value_ != nullptr ? value_->line() : 0; }
  Decoder& decoder() const { return *decoder_; }
  /// fail reports an issue at this field.
  void fail(std::string message) const;

  bool read(std::string& out) const;
  bool read(bool& out) const;
  bool read(int32_t& out) const;
  bool read(int64_t& out) const;
  bool read(uint16_t& out) const;
  bool read(uint32_t& out) const;
  bool read(std::vector<std::string>& out) const;
  bool read(std::map<std::string, std::string>& out) const;
  /// read into an optional sets it (to the default first) only when the field is present.
  template <typename T>
  bool read(std::optional<T>& out) const {
    if (!present()) {
      return true;
    }
    T v{};
    if (!read(v)) {
      return false;
    }
    out = std::move(v);
    return true;
  }

  /// integer reads an integer within [min, max] (the bounds name the target type in errors).
  std::optional<int64_t> integer(int64_t min, int64_t max, std::string_view type_name) const;
  std::optional<uint64_t> unsignedInteger(uint64_t max, std::string_view type_name) const;

  /// forEach calls each(element) for every element of an array field (absent/null: no calls).
  void forEach(const std::function<void(const Field&)>& each) const;
  /// expect reports an issue and returns false unless the field is absent, null or of type.
  bool expect(Type type) const;

 private:
  const Value* value_;
  std::string path_;
  Decoder* decoder_;
};

/// ObjectReader reads the members of an object field. If the field is present but not an object
/// it reports one issue and every member read returns an absent Field.
class ObjectReader {
 public:
  ObjectReader(const Field& field, Unknown unknown);
  ~ObjectReader();
  ObjectReader(const ObjectReader&) = delete;
  ObjectReader& operator=(const ObjectReader&) = delete;

  /// operator[] returns the member named key (marking it as known), absent if missing.
  Field operator[](std::string_view key);
  /// ignore marks keys as known without reading them.
  void ignore(std::initializer_list<std::string_view> keys);
  bool isObject() const { return object_ != nullptr; }

 private:
  std::string childPath(std::string_view key) const;

  const Value* object_ = nullptr;
  std::string path_;
  Decoder* decoder_;
  Unknown unknown_;
  std::vector<bool> used_;
};

/// lineOf returns the line of the deepest node of root that path ("a.b[2].c") reaches.
int lineOf(const Value& root, std::string_view path);

}  // namespace ingot::json
