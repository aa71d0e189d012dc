// SPDX-License-Identifier: Apache-2.0
#include "frrgen/served.h"

namespace ingot::frrgen {

namespace {

void defaultMode(std::string& mode) {
  if (mode.empty()) {
    mode = kAllowedModeDefault;
  }
}

}  // namespace

api::FRRConfigurationSpec servedSpec(api::FRRConfigurationSpec spec) {
  if (!spec.raw) {
    spec.raw = api::FrrRawConfig{};
  }
  for (auto& router : spec.routers) {
    for (auto& n : router.neighbors) {
      if (!n.password_secret) {
        n.password_secret = api::SecretReference{};
      }
      defaultMode(n.to_advertise.allowed_mode);
      // Ingot's in-process withBandwidth is never written, so never stored: no reason to write.
      n.to_advertise.with_bandwidth.clear();
      defaultMode(n.to_receive.allowed_mode);
    }
  }
  return spec;
}

bool sameServedSpec(const api::FRRConfigurationSpec& a, const api::FRRConfigurationSpec& b) {
  return a == b || servedSpec(a) == servedSpec(b);
}

bool hasSessionsOrProfiles(const api::FRRConfigurationSpec& spec) {
  return !spec.routers.empty() || !spec.bfd_profiles.empty();
}

}  // namespace ingot::frrgen
