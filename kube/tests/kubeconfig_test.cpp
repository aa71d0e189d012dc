// SPDX-License-Identifier: Apache-2.0
#include "kube/kubeconfig.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/util/base64.h"
#include "kube/tests/test_util.h"

using namespace ingot::k8s;
namespace fs = std::filesystem;
using ingot::Result;

namespace {

/// TempDir is a scratch directory removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/ingot-kube-cfg-XXXXXX";
    BOOST_REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(path / name) << content;
    return (path / name).string();
  }
};

// "-----BEGIN CERTIFICATE-----\nCA\n" and "PEM-CERT", "PEM-KEY", base64-encoded.
constexpr const char* kCaB64 = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCg==";
constexpr const char* kCaPem = "-----BEGIN CERTIFICATE-----\nCA\n";
constexpr const char* kCertB64 = "UEVNLUNFUlQ=";
constexpr const char* kKeyB64 = "UEVNLUtFWQ==";

std::string kubeconfigText(const std::string& cluster,
                           const std::string& user,
                           const std::string& extra_context = "") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: main\n"
         "clusters:\n- name: c1\n  cluster:\n" +
         cluster + "users:\n- name: u1\n  user:\n" + user +
         "contexts:\n- name: main\n  context:\n    cluster: c1\n    user: u1\n" + extra_context;
}

Result<ClientConfig> parseOne(const std::string& text, std::string_view context = {}) {
  return parseKubeconfig({KubeconfigSource{text, "/etc/kube", "test.yaml"}}, context);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kubeconfig)

BOOST_AUTO_TEST_CASE(parses_clusters_users_and_contexts) {
  struct Case {
    std::string desc;
    std::string text;
    ClientConfig want;  ///< compared field by field below
  };
  auto cfg = [](auto fill) {
    ClientConfig c;
    c.server = "https://10.0.0.1:6443";
    fill(c);
    return c;
  };
  const std::string server = "    server: https://10.0.0.1:6443\n";
  const std::vector<Case> cases = {
      {"token and CA data",
       kubeconfigText(server + "    certificate-authority-data: " + kCaB64 + "\n",
                      "    token: abc.def\n"),
       cfg([](ClientConfig& c) {
         c.ca_data = kCaPem;
         c.token = "abc.def";
       })},
      {"CA file relative to the kubeconfig",
       kubeconfigText(server + "    certificate-authority: ca.crt\n",
                      "    tokenFile: /var/token\n"),
       cfg([](ClientConfig& c) {
         c.ca_file = "/etc/kube/ca.crt";
         c.token_file = "/var/token";
       })},
      {"CA data wins over CA file",
       kubeconfigText(
           server + "    certificate-authority: ca.crt\n    certificate-authority-data: " + kCaB64 +
               "\n",
           "    token: t\n"),
       cfg([](ClientConfig& c) {
         c.ca_data = kCaPem;
         c.token = "t";
       })},
      {"client certificate and key data",
       kubeconfigText(server, std::string("    client-certificate-data: ") + kCertB64 +
                                  "\n    client-key-data: " + kKeyB64 + "\n"),
       cfg([](ClientConfig& c) {
         c.client_certificate_data = "PEM-CERT";
         c.client_key_data = "PEM-KEY";
       })},
      {"client certificate and key files",
       kubeconfigText(server,
                      "    client-certificate: certs/me.crt\n    client-key: /abs/me.key\n"),
       cfg([](ClientConfig& c) {
         c.client_certificate_file = "/etc/kube/certs/me.crt";
         c.client_key_file = "/abs/me.key";
       })},
      {"context namespace",
       kubeconfigText(server, "    token: t\n", "    namespace: metallb-system\n"),
       cfg([](ClientConfig& c) {
         c.token = "t";
         c.default_namespace = "metallb-system";
       })},
      {"anonymous user", kubeconfigText(server, "    {}\n"), cfg([](ClientConfig&) {})},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto got = parseOne(c.text);
      BOOST_REQUIRE_MESSAGE(got.has_value(), ingot::k8s::testing::why(got));
      BOOST_TEST(got->server == c.want.server);
      BOOST_TEST(got->ca_data == c.want.ca_data);
      BOOST_TEST(got->ca_file == c.want.ca_file);
      BOOST_TEST(got->token == c.want.token);
      BOOST_TEST(got->token_file == c.want.token_file);
      BOOST_TEST(got->client_certificate_data == c.want.client_certificate_data);
      BOOST_TEST(got->client_certificate_file == c.want.client_certificate_file);
      BOOST_TEST(got->client_key_data == c.want.client_key_data);
      BOOST_TEST(got->client_key_file == c.want.client_key_file);
      BOOST_TEST(got->default_namespace == c.want.default_namespace);
      BOOST_TEST(!got->insecure_skip_tls_verify);
      BOOST_TEST(got->warnings.empty());
      BOOST_TEST(got->source == "kubeconfig test.yaml context main");
    }
  }
}

BOOST_AUTO_TEST_CASE(errors_name_the_missing_or_invalid_piece) {
  const std::string server = "    server: https://h:6443\n";
  struct Case {
    std::string desc;
    std::string text;
    std::string context;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"no current context", "clusters: []\nusers: []\ncontexts: []\n", "",
       "kubeconfig: no context selected (current-context is empty and no context was given)"},
      {"context not found", kubeconfigText(server, "    token: t\n"), "other",
       "kubeconfig: context \"other\" not found"},
      {"cluster not found",
       "current-context: x\ncontexts:\n- name: x\n  context:\n    cluster: nope\n", "",
       "kubeconfig context \"x\" (in test.yaml): cluster \"nope\" not found"},
      {"context without cluster",
       "current-context: x\ncontexts:\n- name: x\n  context:\n    user: u\n", "",
       "kubeconfig context \"x\" (in test.yaml): names no cluster"},
      {"user not found",
       "current-context: x\nclusters:\n- name: c\n  cluster:\n" + server +
           "contexts:\n- name: x\n  context:\n    cluster: c\n    user: ghost\n",
       "", "kubeconfig context \"x\" (in test.yaml): user \"ghost\" not found"},
      {"server missing", kubeconfigText("    insecure-skip-tls-verify: true\n", "    token: t\n"),
       "", "kubeconfig cluster \"c1\" (in test.yaml): server is required"},
      {"insecure together with a CA",
       kubeconfigText(
           server + "    insecure-skip-tls-verify: true\n    certificate-authority: ca\n",
           "    token: t\n"),
       "",
       "kubeconfig cluster \"c1\" (in test.yaml): specifying a root certificates file with the "
       "insecure flag is not allowed"},
      {"insecure not a boolean",
       kubeconfigText(server + "    insecure-skip-tls-verify: maybe\n", "    token: t\n"), "",
       "kubeconfig cluster \"c1\" (in test.yaml): insecure-skip-tls-verify must be true or false, "
       "got \"maybe\""},
      {"bad CA base64",
       kubeconfigText(server + "    certificate-authority-data: '***'\n", "    token: t\n"), "",
       "kubeconfig cluster \"c1\" (in test.yaml): certificate-authority-data: not valid base64"},
      {"certificate without key",
       kubeconfigText(server, std::string("    client-certificate-data: ") + kCertB64 + "\n"), "",
       "kubeconfig user \"u1\" (in test.yaml): client-certificate is set without client-key"},
      {"key without certificate", kubeconfigText(server, "    client-key: k.pem\n"), "",
       "kubeconfig user \"u1\" (in test.yaml): client-key is set without client-certificate"},
      {"exec plugin", kubeconfigText(server, "    exec:\n      command: aws\n"), "",
       "kubeconfig user \"u1\" (in test.yaml): exec credential plugins are not supported"},
      {"token not a string", kubeconfigText(server, "    token: [a]\n"), "",
       "kubeconfig user \"u1\" (in test.yaml): token must be a string"},
      {"clusters not a list", "clusters: {a: 1}\n", "",
       "kubeconfig test.yaml: clusters must be a list"},
      {"entry without name", "clusters:\n- cluster:\n    server: x\n", "",
       "kubeconfig test.yaml: a cluster entry has no name"},
      {"invalid YAML", "clusters: [\n", "", "kubeconfig test.yaml: invalid YAML"},
      {"not a map", "- a\n- b\n", "", "kubeconfig test.yaml: not a YAML map"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto got = parseOne(c.text, c.context);
      BOOST_REQUIRE(!got.has_value());
      BOOST_TEST(got.error().message.rfind(c.want, 0) == 0, got.error().message);
    }
  }
}

BOOST_AUTO_TEST_CASE(insecure_skip_tls_verify_is_honoured_with_a_warning) {
  auto got = parseOne(kubeconfigText("    server: https://h\n    insecure-skip-tls-verify: true\n",
                                     "    token: t\n"));
  BOOST_REQUIRE(got.has_value());
  BOOST_TEST(got->insecure_skip_tls_verify);
  BOOST_REQUIRE(got->warnings.size() == 1u);
  BOOST_TEST(got->warnings[0].find("NOT verified") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(scalars_are_read_as_written) {
  // Every kubeconfig field is a string: number-, boolean- and null-looking values keep their text,
  // as client-go reads them, and a boolean field takes true/True/false/False only.
  const std::string text =
      "current-context: '0755'\n"
      "clusters:\n- name: 0x10\n  cluster:\n    server: https://h\n"
      "    insecure-skip-tls-verify: True\n"
      "users:\n- name: yes\n  user:\n    token: 0755\n"
      "contexts:\n- name: 0755\n  context:\n    cluster: 0x10\n    user: yes\n"
      "    namespace: 1e3\n";
  auto got = parseOne(text);
  BOOST_REQUIRE_MESSAGE(got.has_value(), ingot::k8s::testing::why(got));
  BOOST_TEST(got->token == "0755");
  BOOST_TEST(got->default_namespace == "1e3");
  BOOST_TEST(got->insecure_skip_tls_verify);
  BOOST_TEST(got->source == "kubeconfig test.yaml context 0755");
  auto yes = parseOne(kubeconfigText("    server: https://h\n    insecure-skip-tls-verify: yes\n",
                                     "    token: t\n"));
  BOOST_REQUIRE(!yes.has_value());
  BOOST_TEST(yes.error().message.find("must be true or false, got \"yes\"") != std::string::npos,
             yes.error().message);
  auto null_token = parseOne(kubeconfigText("    server: https://h\n", "    token: ~\n"));
  BOOST_REQUIRE(null_token.has_value());
  BOOST_TEST(null_token->token.empty());
}

BOOST_AUTO_TEST_CASE(explicit_context_overrides_current_context) {
  const std::string text =
      "current-context: a\n"
      "clusters:\n- name: ca\n  cluster:\n    server: https://a\n"
      "- name: cb\n  cluster:\n    server: https://b\n"
      "contexts:\n- name: a\n  context:\n    cluster: ca\n- name: b\n  context:\n    cluster: cb\n";
  BOOST_TEST(parseOne(text)->server == "https://a");
  BOOST_TEST(parseOne(text, "b")->server == "https://b");
}

BOOST_AUTO_TEST_CASE(merged_sources_take_the_first_definition) {
  const KubeconfigSource first{
      "current-context: one\nclusters:\n- name: c\n  cluster:\n    server: https://first\n"
      "    certificate-authority: ca.crt\n",
      "/first", "first.yaml"};
  const KubeconfigSource second{
      "current-context: two\nclusters:\n- name: c\n  cluster:\n    server: https://second\n"
      "users:\n- name: u\n  user:\n    token: from-second\n"
      "contexts:\n- name: one\n  context:\n    cluster: c\n    user: u\n",
      "/second", "second.yaml"};
  auto got = parseKubeconfig({first, second});
  BOOST_REQUIRE_MESSAGE(got.has_value(), ingot::k8s::testing::why(got));
  BOOST_TEST(got->server == "https://first");
  BOOST_TEST(got->ca_file == "/first/ca.crt");  // relative to the file that defined it
  BOOST_TEST(got->token == "from-second");
  BOOST_TEST(got->source == "kubeconfig first.yaml,second.yaml context one");
}

BOOST_AUTO_TEST_CASE(load_kubeconfig_skips_missing_files_but_needs_one) {
  TempDir dir;
  const std::string path = dir.write(
      "config", kubeconfigText("    server: https://h\n    certificate-authority: ca.pem\n",
                               "    token: t\n"));
  auto got = loadKubeconfig({(dir.path / "missing").string(), path});
  BOOST_REQUIRE_MESSAGE(got.has_value(), ingot::k8s::testing::why(got));
  BOOST_TEST(got->ca_file == (dir.path / "ca.pem").string());

  auto none = loadKubeconfig({(dir.path / "missing").string()});
  BOOST_REQUIRE(!none.has_value());
  BOOST_TEST(none.error().message.find("missing") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(in_cluster_config_reads_the_service_account_directory) {
  TempDir dir;
  dir.write("token", "sa-token\n");
  dir.write("ca.crt", "PEM");
  dir.write("namespace", "metallb-system\n");
  auto got = inClusterConfig({"10.96.0.1", "443", dir.path.string()});
  BOOST_REQUIRE_MESSAGE(got.has_value(), ingot::k8s::testing::why(got));
  BOOST_TEST(got->server == "https://10.96.0.1:443");
  BOOST_TEST(got->token_file == (dir.path / "token").string());
  BOOST_TEST(got->token.empty());  // read (and re-read) by the client, never copied
  BOOST_TEST(got->ca_file == (dir.path / "ca.crt").string());
  BOOST_TEST(got->default_namespace == "metallb-system");
  BOOST_TEST(!got->insecure_skip_tls_verify);

  auto v6 = inClusterConfig({"fd00::1", "6443", dir.path.string()});
  BOOST_TEST(v6->server == "https://[fd00::1]:6443");
}

BOOST_AUTO_TEST_CASE(in_cluster_config_errors_name_what_is_missing) {
  TempDir dir;
  struct Case {
    std::string desc;
    InClusterEnv env;
    std::vector<std::string> files;
    std::string want;
  };
  const std::string d = dir.path.string();
  const std::vector<Case> cases = {
      {"no host", {"", "443", d}, {"token", "ca.crt"}, "KUBERNETES_SERVICE_HOST"},
      {"no port", {"h", "", d}, {"token", "ca.crt"}, "KUBERNETES_SERVICE_PORT"},
      {"no token", {"h", "443", d}, {"ca.crt"}, "service account token " + d + "/token"},
      {"no CA", {"h", "443", d}, {"token"}, "service account CA " + d + "/ca.crt"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      fs::remove(dir.path / "token");
      fs::remove(dir.path / "ca.crt");
      for (const auto& f : c.files) dir.write(f, "x");
      auto got = inClusterConfig(c.env);
      BOOST_REQUIRE(!got.has_value());
      BOOST_TEST(got.error().message.find(c.want) != std::string::npos, got.error().message);
      BOOST_TEST(got.error().message.rfind("in-cluster config: ", 0) == 0);
    }
  }
  dir.write("token", "t");
  dir.write("ca.crt", "c");
  auto no_namespace_file = inClusterConfig({"h", "443", d});
  BOOST_TEST(no_namespace_file->default_namespace == "default");
}

BOOST_AUTO_TEST_CASE(load_client_config_tries_flag_env_in_cluster_then_home) {
  TempDir dir;
  const auto write = [&](const std::string& name, const std::string& server) {
    return dir.write(name, kubeconfigText("    server: " + server + "\n", "    token: t\n"));
  };
  const std::string flag = write("flag", "https://flag");
  const std::string env = write("env", "https://env");
  fs::create_directories(dir.path / "home/.kube");
  write("home/.kube/config", "https://home");
  fs::create_directories(dir.path / "sa");
  dir.write("sa/token", "t");
  dir.write("sa/ca.crt", "c");
  const InClusterEnv pod{"10.0.0.1", "443", (dir.path / "sa").string()};
  const std::string home = (dir.path / "home").string();
  struct Case {
    std::string desc;
    LoadOptions options;
    std::string want_server;
  };
  const std::vector<Case> cases = {
      {"flag first", {flag, "", env, home, pod}, "https://flag"},
      {"then KUBECONFIG", {"", "", "/missing:" + env, home, pod}, "https://env"},
      {"then in-cluster", {"", "", "", home, pod}, "https://10.0.0.1:443"},
      {"then ~/.kube/config", {"", "", "", home, {}}, "https://home"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto got = loadClientConfig(c.options);
      BOOST_REQUIRE_MESSAGE(got.has_value(), ingot::k8s::testing::why(got));
      BOOST_TEST(got->server == c.want_server);
    }
  }
  auto nothing = loadClientConfig({"", "", "", (dir.path / "nohome").string(), {}});
  BOOST_REQUIRE(!nothing.has_value());
  BOOST_TEST(nothing.error().message.find("--kubeconfig") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(base64_decoding_is_strict) {
  const auto decode = [](std::string_view s) {
    return ingot::decodeBase64(s, ingot::Base64Mode::Lenient);  // the mode kubeconfig uses
  };
  BOOST_TEST(*decode("aGVsbG8=") == "hello");
  BOOST_TEST(*decode("aGVs\nbG8") == "hello");  // padding optional, newlines ignored
  BOOST_TEST(decode("")->empty());
  for (std::string bad : {"a", "aGVsbG8=x", "a*==", "aGVsbG8==="}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!decode(bad).has_value());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
