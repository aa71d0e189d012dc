// SPDX-License-Identifier: Apache-2.0
// The webhook's certificates with OpenSSL: a self-signed CA and a serving certificate it signs
// (ECDSA P-256, SANs for the webhook Service's DNS names), PEM in and out, and the facts the
// rotation decision reads from a Secret's PEM (validity, SANs, whether the CA signed the
// certificate and the key matches it). Times are passed in.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace ingot::controller::webhook {

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

}  // namespace ingot::controller::webhook
