// SPDX-License-Identifier: Apache-2.0
// A TLS server's settings (the webhook's and /metrics') from MetalLB's --tls-min-version and
// --tls-cipher-suites: Go's version names (VersionTLS12, VersionTLS13; empty = TLS 1.3, MetalLB's
// default) and the IANA cipher suite names Go and Kubernetes use, mapped to OpenSSL's names. As in
// MetalLB, cipher suites apply to TLS 1.2 only and are refused together with a TLS 1.3 minimum.
// Pure.
#pragma once

#include <string>

#include "common/util/result.h"

namespace ingot::http {

/// TlsSettings is what the server's SSL_CTX is configured with.
struct TlsSettings {
  int min_version = 0;      ///< OpenSSL protocol version constant (TLS1_2_VERSION, ...)
  std::string cipher_list;  ///< OpenSSL cipher list for TLS 1.2 ("" = OpenSSL's default)
  friend bool operator==(const TlsSettings&, const TlsSettings&) = default;
};

/// parseTlsSettings parses the two flags' values. Errors name the flag and the bad value.
Result<TlsSettings> parseTlsSettings(const std::string& min_version,
                                     const std::string& cipher_suites);

}  // namespace ingot::http
