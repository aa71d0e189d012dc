// SPDX-License-Identifier: Apache-2.0
// The webhook server's TLS settings: common/http/tls_settings under the webhook's names.
#pragma once

#include "common/http/tls_settings.h"

namespace ingot::controller::webhook {

using http::parseTlsSettings;
using http::TlsSettings;

}  // namespace ingot::controller::webhook
