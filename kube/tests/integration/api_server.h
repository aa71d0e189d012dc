// SPDX-License-Identifier: Apache-2.0
// TestApiServer starts e2e/kubeapi/server.py (the test Kubernetes API server, on a loopback port
// it picks) for one test through the shared launcher and kills it by PID when the fixture goes
// away, whatever the test's outcome.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kube/api_client.h"
#include "kube/client_config.h"
#include "kube/rest_client.h"
#include "testing/api_server.h"

namespace ingot::k8s::testing {

/// kToken is the bearer token every test server accepts.
inline constexpr const char* kToken = "ingot-test-token";

struct ApiServerOptions {
  std::vector<std::string> args;  ///< extra flags, e.g. {"--close-watches-after", "2"}
  bool https = true;
};

class TestApiServer {
 public:
  explicit TestApiServer(ApiServerOptions options = {});
  ~TestApiServer();

  TestApiServer(const TestApiServer&) = delete;
  TestApiServer& operator=(const TestApiServer&) = delete;

  /// config is the client configuration from the server's kubeconfig (CA data + token).
  ClientConfig config() const;

  /// client builds a REST client for config() with no client-side rate limit.
  ApiClientPtr client() const;

  /// dir is this server's scratch directory (kubeconfig, certificates, log).
  const std::string& dir() const { return server_->dir(); }
  int port() const { return server_->port(); }

  /// log returns what the server printed so far (for failure messages).
  std::string log() const;

 private:
  std::unique_ptr<ingot::testing::ApiServerProcess> server_;
};

/// run executes a shell command and returns its exit status (for openssl in tests).
int run(const std::string& command);

/// configMap renders a ConfigMap with one data key and optional labels ("k=v,k2=v2").
std::string configMap(const std::string& ns,
                      const std::string& name,
                      const std::string& value,
                      const std::string& labels = "");

/// fieldOf reads a string field of an object's JSON ("" when absent).
std::string fieldOf(const std::string& json, std::initializer_list<std::string_view> path);

}  // namespace ingot::k8s::testing
