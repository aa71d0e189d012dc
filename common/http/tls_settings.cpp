// SPDX-License-Identifier: Apache-2.0
#include "common/http/tls_settings.h"

#include <map>
#include <string_view>

#include <openssl/tls1.h>

namespace ingot::http {
namespace {

/// ciphers maps the IANA names Go accepts for TLS 1.2 to OpenSSL's names. Suites OpenSSL 3 no
/// longer builds by default (RC4, 3DES) are left out, so naming one is an error, not a silent
/// no-op.
const std::map<std::string_view, std::string_view>& ciphers() {
  static const std::map<std::string_view, std::string_view> kCiphers = {
      {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"},
      {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"},
      {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"},
      {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA"},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA"},
      {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA"},
      {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA"},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA-AES128-SHA256"},
      {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA-AES128-SHA256"},
      {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"},
      {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"},
      {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"},
      {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA"},
      {"TLS_RSA_WITH_AES_128_CBC_SHA256", "AES128-SHA256"},
  };
  return kCiphers;
}

Result<int> parseVersion(const std::string& name) {
  static const std::map<std::string_view, int> kVersions = {
      {"VersionTLS10", TLS1_VERSION},
      {"VersionTLS11", TLS1_1_VERSION},
      {"VersionTLS12", TLS1_2_VERSION},
      {"VersionTLS13", TLS1_3_VERSION},
  };
  if (name.empty()) {
    return TLS1_3_VERSION;
  }
  if (auto it = kVersions.find(name); it != kVersions.end()) {
    return it->second;
  }
  return invalidArgument("--tls-min-version \"" + name +
                         "\": must be one of VersionTLS10, VersionTLS11, VersionTLS12, "
                         "VersionTLS13");
}

std::string trimmedName(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

Result<TlsSettings> parseTlsSettings(const std::string& min_version,
                                     const std::string& cipher_suites) {
  auto version = parseVersion(min_version);
  if (!version) {
    return version.error();
  }
  TlsSettings out;
  out.min_version = *version;
  std::string_view rest = cipher_suites;
  while (!cipher_suites.empty()) {
    const size_t comma = rest.find(',');
    const std::string name = trimmedName(rest.substr(0, comma));
    const auto it = ciphers().find(name);
    if (it == ciphers().end()) {
      return invalidArgument("--tls-cipher-suites: cipher suite \"" + name +
                             "\" is not supported or does not exist");
    }
    out.cipher_list += (out.cipher_list.empty() ? "" : ":") + std::string(it->second);
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  if (!out.cipher_list.empty() && out.min_version == TLS1_3_VERSION) {
    return invalidArgument(
        "--tls-cipher-suites cannot be used with a TLS 1.3 minimum (TLS 1.3 suites are not "
        "configurable); set --tls-min-version VersionTLS12");
  }
  return out;
}

}  // namespace ingot::http
