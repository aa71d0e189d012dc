// SPDX-License-Identifier: Apache-2.0
#include "frrgen/yang_validate.h"

#include <array>

#include <libyang/libyang.h>

#include "frrgen/policy.h"
#include "frrgen/yang_data.h"

namespace ingot::frrgen {

namespace {

constexpr std::array<const char*, 4> kModules = {"frr-filter", "frr-route-map", "frr-bgp-route-map",
                                                 "frr-bfdd"};

// LogCapture makes libyang store messages instead of printing them, on this thread, for one call.
class LogCapture {
 public:
  LogCapture() { ly_temp_log_options(&options_); }
  ~LogCapture() { ly_temp_log_options(nullptr); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

 private:
  uint32_t options_ = LY_LOSTORE;
};

// errors joins the stored libyang messages with their data paths and clears them.
std::string errors(ly_ctx* ctx) {
  std::string out;
  for (const ly_err_item* e = ly_err_first(ctx); e != nullptr; e = e->next) {
    if (!out.empty()) out += "; ";
    out += e->msg != nullptr ? e->msg : "unknown libyang error";
    if (e->path != nullptr) {
      out += std::string(" (") + e->path + ")";
    }
  }
  ly_err_clean(ctx, nullptr);
  return out.empty() ? "unknown libyang error" : out;
}

}  // namespace

Result<YangValidatorPtr> YangValidator::load(const std::string& yang_dir) {
  LogCapture capture;
  ly_ctx* ctx = nullptr;
  if (ly_ctx_new(yang_dir.c_str(), 0, &ctx) != LY_SUCCESS) {
    return Error{ErrorCode::Unavailable, "cannot create a libyang context searching " + yang_dir +
                                             " (is the directory missing or unreadable?)"};
  }
  YangValidatorPtr v(new YangValidator(ctx));
  for (const char* module : kModules) {
    if (ly_ctx_load_module(ctx, module, nullptr, nullptr) == nullptr) {
      return Error{ErrorCode::Unavailable, std::string("cannot load YANG module ") + module +
                                               " from " + yang_dir + ": " + errors(ctx)};
    }
  }
  return v;
}

YangValidator::~YangValidator() {
  ly_ctx_destroy(ctx_);
}

Result<void> YangValidator::validateJson(const std::string& json) const {
  LogCapture capture;
  lyd_node* tree = nullptr;
  const LY_ERR rc = lyd_parse_data_mem(ctx_, json.c_str(), LYD_JSON, LYD_PARSE_STRICT,
                                       LYD_VALIDATE_PRESENT, &tree);
  lyd_free_all(tree);
  if (rc != LY_SUCCESS) {
    return invalidArgument("FRR YANG validation failed: " + errors(ctx_));
  }
  return {};
}

Result<void> YangValidator::validate(const Model& model) const {
  auto plan = planPolicy(model);
  if (!plan) {
    return plan.error();
  }
  return validateJson(yangInstanceJson(*plan, model.bfd_profiles));
}

}  // namespace ingot::frrgen
