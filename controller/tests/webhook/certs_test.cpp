// SPDX-License-Identifier: Apache-2.0
// Real OpenSSL generation of the webhook's CA and serving certificate: the chain verifies with
// openssl's own verifier, the SANs and validity are what was asked, and a certificate from
// another CA or a mismatched key is caught.
#include "controller/webhook/certs.h"

#include <boost/test/unit_test.hpp>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace ingot::controller::webhook {
namespace {

using std::chrono::hours;

const SystemTime kNow = std::chrono::system_clock::from_time_t(1'800'000'000);

KeyPair ca() {
  auto c = generateCa({"cert", "metallb", {}, kNow - hours(1), kNow + hours(24 * 3650)});
  BOOST_REQUIRE(c.has_value());
  return *c;
}

/// verifyChain runs OpenSSL's chain verification of leaf against root at time t for host.
int verifyChain(const std::string& leaf,
                const std::string& root,
                SystemTime t,
                const std::string& host) {
  BIO* lb = BIO_new_mem_buf(leaf.data(), static_cast<int>(leaf.size()));
  BIO* rb = BIO_new_mem_buf(root.data(), static_cast<int>(root.size()));
  X509* l = PEM_read_bio_X509(lb, nullptr, nullptr, nullptr);
  X509* r = PEM_read_bio_X509(rb, nullptr, nullptr, nullptr);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, r);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, l, nullptr);
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx);
  X509_VERIFY_PARAM_set_time(param, std::chrono::system_clock::to_time_t(t));
  X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
  X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
  const int ok = X509_verify_cert(ctx);
  const int err = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  X509_free(l);
  X509_free(r);
  BIO_free(lb);
  BIO_free(rb);
  return err;
}

BOOST_AUTO_TEST_CASE(serving_certificate_chains_to_the_ca_for_the_service_names) {
  const KeyPair root = ca();
  const std::vector<std::string> names = {"svc.ns.svc", "svc.ns.svc.cluster.local"};
  auto serving = generateServing({"svc.ns.svc", "metallb", names, kNow, kNow + hours(24)}, root);
  BOOST_REQUIRE(serving.has_value());
  BOOST_TEST(verifyChain(serving->cert, root.cert, kNow + hours(1), "svc.ns.svc") == X509_V_OK);
  BOOST_TEST(verifyChain(serving->cert, root.cert, kNow + hours(1), "svc.ns.svc.cluster.local") ==
             X509_V_OK);
  BOOST_TEST(verifyChain(serving->cert, root.cert, kNow + hours(1), "other.ns.svc") ==
             X509_V_ERR_HOSTNAME_MISMATCH);
  BOOST_TEST(verifyChain(serving->cert, root.cert, kNow + hours(25), "svc.ns.svc") ==
             X509_V_ERR_CERT_HAS_EXPIRED);
  auto facts = inspectCert(serving->cert);
  BOOST_REQUIRE(facts.has_value());
  BOOST_TEST(facts->dns_names == names, boost::test_tools::per_element());
  BOOST_TEST((facts->not_before == kNow));
  BOOST_TEST((facts->not_after == kNow + hours(24)));
  BOOST_TEST(verifyServing(*serving, root.cert).has_value());
}

BOOST_AUTO_TEST_CASE(the_ca_is_a_ca_and_its_validity_is_read_back) {
  const KeyPair root = ca();
  auto facts = inspectCert(root.cert);
  BOOST_REQUIRE(facts.has_value());
  BOOST_TEST((facts->not_after == kNow + hours(24 * 3650)));
  BOOST_TEST(facts->dns_names.empty());
  BIO* b = BIO_new_mem_buf(root.cert.data(), static_cast<int>(root.cert.size()));
  X509* x = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
  BOOST_TEST(X509_check_ca(x) >= 1);
  X509_free(x);
  BIO_free(b);
}

BOOST_AUTO_TEST_CASE(another_cas_certificate_or_a_foreign_key_is_refused) {
  const KeyPair root = ca();
  const KeyPair other = ca();
  auto serving = generateServing({"s", "", {"s"}, kNow, kNow + hours(1)}, other);
  BOOST_REQUIRE(serving.has_value());
  auto wrong_ca = verifyServing(*serving, root.cert);
  BOOST_REQUIRE(!wrong_ca.has_value());
  BOOST_TEST(wrong_ca.error().message == "the certificate is not signed by the CA");
  auto mine = generateServing({"s", "", {"s"}, kNow, kNow + hours(1)}, root);
  BOOST_REQUIRE(mine.has_value());
  auto foreign_key = verifyServing({mine->cert, serving->key}, root.cert);
  BOOST_REQUIRE(!foreign_key.has_value());
  BOOST_TEST(foreign_key.error().message == "the private key does not match the certificate");
}

BOOST_AUTO_TEST_CASE(garbage_is_an_error_not_a_crash) {
  BOOST_TEST(!inspectCert("not a certificate").has_value());
  BOOST_TEST(!inspectCert("").has_value());
  auto s = generateServing({"s", "", {"s"}, kNow, kNow + hours(1)}, {"junk", "junk"});
  BOOST_REQUIRE(!s.has_value());
  BOOST_TEST(s.error().message.find("CA: not a PEM certificate") == 0u);
}

}  // namespace
}  // namespace ingot::controller::webhook
