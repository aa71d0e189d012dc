// SPDX-License-Identifier: Apache-2.0
// The webhook's certificates: common/http/certs under the names the webhook code uses.
#pragma once

#include "common/http/certs.h"

namespace ingot::controller::webhook {

using http::CertFacts;
using http::CertSpec;
using http::generateCa;
using http::generateServing;
using http::inspectCert;
using http::KeyPair;
using http::SystemTime;
using http::verifyServing;

}  // namespace ingot::controller::webhook
