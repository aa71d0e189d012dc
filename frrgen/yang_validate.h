// SPDX-License-Identifier: Apache-2.0
// libyang validation of the YANG-modelled parts of a rendered configuration against FRR's own
// modules (frr-filter, frr-route-map, frr-bgp-route-map, frr-bfdd), so that a value FRR would
// refuse is caught before FRR sees it. The only I/O is libyang reading the module files from the
// directory the caller names (Debian's frr ships them in /usr/share/yang).
#pragma once

#include <memory>
#include <string>

#include "common/util/result.h"
#include "frrgen/model.h"

struct ly_ctx;

namespace ingot::frrgen {

/// kFrrYangDir is where Debian's frr package installs its YANG modules.
inline constexpr const char* kFrrYangDir = "/usr/share/yang";

class YangValidator;
using YangValidatorPtr = std::unique_ptr<YangValidator>;

/// YangValidator holds a libyang context with FRR's modules loaded. Not thread-safe; cheap to
/// reuse for many validations.
class YangValidator {
 public:
  /// load creates a context searching yang_dir and loads the modules. Errors name the module that
  /// failed and the directory (ErrorCode::Unavailable: the modules are missing or unreadable).
  static Result<YangValidatorPtr> load(const std::string& yang_dir);
  ~YangValidator();
  YangValidator(const YangValidator&) = delete;
  YangValidator& operator=(const YangValidator&) = delete;

  /// validateJson parses and validates RFC 7951 JSON instance data (strict: unknown nodes are
  /// errors). The error carries every libyang message with its data path, e.g. `Value "300" is
  /// out of type uint8 min/max bounds. (path: /frr-bfdd:bfdd/bfd/profile[name='fast']/...)`.
  Result<void> validateJson(const std::string& json) const;

  /// validate plans the model's policy (policy.h) and validates it with the BFD profiles
  /// (yang_data.h): exactly what render() would write.
  Result<void> validate(const Model& model) const;

 private:
  explicit YangValidator(ly_ctx* ctx) : ctx_(ctx) {}
  ly_ctx* ctx_;
};

}  // namespace ingot::frrgen
