// SPDX-License-Identifier: Apache-2.0
#include "kube/tests/integration/api_server.h"

#include <cstdlib>
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>

#include "common/json/scan.h"
#include "common/util/quote.h"
#include "kube/kubeconfig.h"
#include "kube/tests/test_util.h"

namespace ingot::k8s::testing {

TestApiServer::TestApiServer(ApiServerOptions options) {
  ingot::testing::ApiServerOptions o;
  o.script = INGOT_KUBEAPI_SERVER;
  o.token = kToken;
  o.https = options.https;
  o.args = std::move(options.args);
  auto server = ingot::testing::ApiServerProcess::start(o);
  BOOST_REQUIRE_MESSAGE(server.has_value(), why(server));
  server_ = std::move(*server);
}

TestApiServer::~TestApiServer() = default;

ClientConfig TestApiServer::config() const {
  auto cfg = loadKubeconfig({server_->kubeconfig()});
  BOOST_REQUIRE_MESSAGE(cfg.has_value(), why(cfg));
  return *cfg;
}

ApiClientPtr TestApiServer::client() const {
  RestOptions o;
  o.qps = 0;
  auto c = makeRestClient(config(), o);
  BOOST_REQUIRE_MESSAGE(c.has_value(), why(c));
  return std::move(*c);
}

std::string TestApiServer::log() const {
  return server_->log();
}

int run(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string configMap(const std::string& ns,
                      const std::string& name,
                      const std::string& value,
                      const std::string& labels) {
  std::string meta = R"({"name":)" + jsonQuote(name) + R"(,"namespace":)" + jsonQuote(ns);
  if (!labels.empty()) {
    meta += R"(,"labels":{)";
    size_t start = 0;
    bool first = true;
    while (start < labels.size()) {
      size_t end = labels.find(',', start);
      if (end == std::string::npos) end = labels.size();
      const std::string kv = labels.substr(start, end - start);
      const size_t eq = kv.find('=');
      meta += (first ? "" : ",") + jsonQuote(kv.substr(0, eq)) + ":" + jsonQuote(kv.substr(eq + 1));
      first = false;
      start = end + 1;
    }
    meta += "}";
  }
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":)" + meta + R"(},"data":{"k":)" +
         jsonQuote(value) + "}}";
}

std::string fieldOf(const std::string& json, std::initializer_list<std::string_view> path) {
  auto v = ingot::json::stringAt(json, path);
  return v.has_value() ? *v : std::string();
}

}  // namespace ingot::k8s::testing
