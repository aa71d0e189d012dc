// SPDX-License-Identifier: Apache-2.0
#include "common/http/certs.h"

#include <ctime>
#include <memory>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace ingot::http {
namespace {

template <typename T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using NamesPtr = std::unique_ptr<GENERAL_NAMES, Deleter<GENERAL_NAMES, GENERAL_NAMES_free>>;

constexpr int kSerialBits = 127;

/// sslError returns OpenSSL's last error as text, prefixed by what failed.
Error sslError(const std::string& what) {
  char buf[256] = {};
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  ERR_clear_error();
  return Error{ErrorCode::Internal, what + ": " + buf};
}

std::string bioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

Result<X509Ptr> readCert(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return sslError("not a PEM certificate");
  return cert;
}

Result<KeyPtr> readKey(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return sslError("not a PEM private key");
  return key;
}

/// addExtension adds one extension given in OpenSSL's config syntax.
bool addExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

/// newCert makes an unsigned certificate for key with the subject, serial and validity of spec.
Result<X509Ptr> newCert(const CertSpec& spec, EVP_PKEY* key) {
  X509Ptr cert(X509_new());
  BIGNUM* serial = BN_new();
  const bool ok = cert && serial != nullptr && X509_set_version(cert.get(), 2) == 1 &&
                  BN_rand(serial, kSerialBits, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
                  BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert.get())) != nullptr &&
                  ASN1_TIME_set(X509_getm_notBefore(cert.get()),
                                std::chrono::system_clock::to_time_t(spec.not_before)) != nullptr &&
                  ASN1_TIME_set(X509_getm_notAfter(cert.get()),
                                std::chrono::system_clock::to_time_t(spec.not_after)) != nullptr &&
                  X509_set_pubkey(cert.get(), key) == 1;
  BN_free(serial);
  if (!ok) return sslError("building a certificate");
  X509_NAME* name = X509_get_subject_name(cert.get());
  auto add = [name](const char* field, const std::string& value) {
    return value.empty() ||
           X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                      reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                                      0) == 1;
  };
  if (!add("O", spec.organization) || !add("CN", spec.common_name)) {
    return sslError("setting the certificate's subject");
  }
  return cert;
}

Result<KeyPtr> newKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return sslError("generating an EC P-256 key");
  return key;
}

Result<KeyPair> finish(X509* cert, EVP_PKEY* key, EVP_PKEY* signer) {
  if (X509_sign(cert, signer, EVP_sha256()) == 0) return sslError("signing the certificate");
  BioPtr c(BIO_new(BIO_s_mem()));
  BioPtr k(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_X509(c.get(), cert) != 1 ||
      PEM_write_bio_PrivateKey(k.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return sslError("writing PEM");
  }
  return KeyPair{bioText(c.get()), bioText(k.get())};
}

Result<SystemTime> timeOf(const ASN1_TIME* t) {
  std::tm tm{};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return sslError("reading a validity time");
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

std::vector<std::string> dnsNames(X509* cert) {
  std::vector<std::string> out;
  NamesPtr names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names.get(), i);
    if (n->type == GEN_DNS) {
      const ASN1_IA5STRING* s = n->d.dNSName;
      out.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                       static_cast<size_t>(ASN1_STRING_length(s)));
    }
  }
  return out;
}

}  // namespace

Result<KeyPair> generateCa(const CertSpec& spec) {
  auto key = newKey();
  if (!key) return key.error();
  auto cert = newCert(spec, key->get());
  if (!cert) return cert.error();
  X509* c = cert->get();
  if (X509_set_issuer_name(c, X509_get_subject_name(c)) != 1 ||
      !addExtension(c, c, NID_basic_constraints, "critical,CA:TRUE") ||
      !addExtension(c, c, NID_key_usage, "critical,digitalSignature,keyCertSign") ||
      !addExtension(c, c, NID_subject_key_identifier, "hash")) {
    return sslError("setting the CA's extensions");
  }
  return finish(c, key->get(), key->get());
}

Result<KeyPair> generateServing(const CertSpec& spec, const KeyPair& ca) {
  auto ca_cert = readCert(ca.cert);
  if (!ca_cert) return Error{ca_cert.error().code, "CA: " + ca_cert.error().message};
  auto ca_key = readKey(ca.key);
  if (!ca_key) return Error{ca_key.error().code, "CA: " + ca_key.error().message};
  auto key = newKey();
  if (!key) return key.error();
  auto cert = newCert(spec, key->get());
  if (!cert) return cert.error();
  X509* c = cert->get();
  std::string sans;
  for (const auto& d : spec.dns_names) sans += (sans.empty() ? "DNS:" : ",DNS:") + d;
  if (X509_set_issuer_name(c, X509_get_subject_name(ca_cert->get())) != 1 ||
      !addExtension(c, ca_cert->get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !addExtension(c, ca_cert->get(), NID_key_usage, "critical,digitalSignature") ||
      !addExtension(c, ca_cert->get(), NID_ext_key_usage, "serverAuth") ||
      (!sans.empty() && !addExtension(c, ca_cert->get(), NID_subject_alt_name, sans))) {
    return sslError("setting the serving certificate's extensions");
  }
  return finish(c, key->get(), ca_key->get());
}

Result<CertFacts> inspectCert(const std::string& pem) {
  auto cert = readCert(pem);
  if (!cert) return cert.error();
  auto from = timeOf(X509_get0_notBefore(cert->get()));
  if (!from) return from.error();
  auto until = timeOf(X509_get0_notAfter(cert->get()));
  if (!until) return until.error();
  return CertFacts{*from, *until, dnsNames(cert->get())};
}

Result<void> verifyServing(const KeyPair& serving, const std::string& ca_cert) {
  auto ca = readCert(ca_cert);
  if (!ca) return Error{ca.error().code, "CA: " + ca.error().message};
  auto cert = readCert(serving.cert);
  if (!cert) return cert.error();
  auto key = readKey(serving.key);
  if (!key) return key.error();
  EVP_PKEY* ca_public = X509_get0_pubkey(ca->get());
  if (ca_public == nullptr || X509_verify(cert->get(), ca_public) != 1) {
    ERR_clear_error();
    return Error{ErrorCode::InvalidArgument, "the certificate is not signed by the CA"};
  }
  if (X509_check_private_key(cert->get(), key->get()) != 1) {
    ERR_clear_error();
    return Error{ErrorCode::InvalidArgument, "the private key does not match the certificate"};
  }
  return {};
}

Result<KeyPair> selfSigned(const std::string& common_name,
                           const std::vector<std::string>& dns_names,
                           SystemTime now) {
  constexpr auto kYear = std::chrono::hours(24 * 365);
  // Valid from an hour ago: a scraper whose clock is a little behind still accepts it.
  const CertSpec ca{common_name + "-ca", "", {}, now - std::chrono::hours(1), now + kYear};
  auto authority = generateCa(ca);
  if (!authority) return authority.error();
  return generateServing(
      CertSpec{common_name, "", dns_names, now - std::chrono::hours(1), now + kYear}, *authority);
}

Result<std::shared_ptr<ssl_ctx_st>> serverContext(const TlsSettings& settings,
                                                  const KeyPair& pair) {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) return sslError("creating a TLS context");
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_set_min_proto_version(ctx.get(), settings.min_version) != 1 ||
      (!settings.cipher_list.empty() &&
       SSL_CTX_set_cipher_list(ctx.get(), settings.cipher_list.c_str()) != 1)) {
    return sslError("OpenSSL refused the TLS settings");
  }
  auto cert = readCert(pair.cert);
  if (!cert) return cert.error();
  auto key = readKey(pair.key);
  if (!key) return key.error();
  if (SSL_CTX_use_certificate(ctx.get(), cert->get()) != 1 ||
      SSL_CTX_use_PrivateKey(ctx.get(), key->get()) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    return sslError("the private key does not match the certificate");
  }
  return ctx;
}

}  // namespace ingot::http
