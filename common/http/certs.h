// SPDX-License-Identifier: Apache-2.0
// Certificates with OpenSSL for the daemons' TLS endpoints: a self-signed CA and a serving
// certificate it signs (ECDSA P-256, DNS SANs), PEM in and out, and the facts a rotation decision
// reads from PEM (validity, SANs, whether the CA signed the certificate and the key matches it).
// The controller's webhook and every daemon's HTTPS /metrics use them. Times are passed in.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/http/tls_settings.h"
#include "common/util/result.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace ingot::http {

using SystemTime = std::chrono::system_clock::time_point;

/// KeyPair is a PEM certificate and its PEM private key.
struct KeyPair {
  std::string cert;
  std::string key;
};

/// CertSpec is what a new certificate holds.
struct CertSpec {
  std::string common_name;
  std::string organization;
  std::vector<std::string> dns_names;  ///< SANs (serving certificates only)
  SystemTime not_before;
  SystemTime not_after;
};

/// generateCa makes a self-signed CA certificate (basicConstraints CA:TRUE, keyCertSign).
Result<KeyPair> generateCa(const CertSpec& spec);

/// generateServing makes a serving certificate (serverAuth, the SANs of spec) signed by ca.
Result<KeyPair> generateServing(const CertSpec& spec, const KeyPair& ca);

/// CertFacts is what a certificate PEM says, for the rotation decision.
struct CertFacts {
  SystemTime not_before;
  SystemTime not_after;
  std::vector<std::string> dns_names;
};

/// inspectCert parses a PEM certificate. Errors say why it cannot be read.
Result<CertFacts> inspectCert(const std::string& pem);

/// verifyServing checks that serving was signed by ca's certificate and that key is serving's
/// private key. Errors give OpenSSL's reason.
Result<void> verifyServing(const KeyPair& serving, const std::string& ca_cert);

/// selfSigned makes a serving certificate for dns_names valid from now for a year, signed by a
/// throw-away CA (what a daemon serves when no certificate is given).
Result<KeyPair> selfSigned(const std::string& common_name,
                           const std::vector<std::string>& dns_names,
                           SystemTime now);

/// serverContext builds a TLS server context serving pair with the settings. Errors say whether
/// the pair or the settings were refused.
Result<std::shared_ptr<ssl_ctx_st>> serverContext(const TlsSettings& settings, const KeyPair& pair);

}  // namespace ingot::http
