// SPDX-License-Identifier: Apache-2.0
// ApiServerProcess: e2e/kubeapi/server.py (the test Kubernetes API server) as a child process in a
// scratch directory of its own. The server picks its port and reports it through a port file; it
// is stopped by PID and its directory removed when the object goes away.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "testing/process.h"

namespace ingot::testing {

/// ApiServerOptions say how to start the server.
struct ApiServerOptions {
  std::string script;                        ///< path of server.py
  std::string token;                         ///< the bearer token it accepts
  bool https = true;                         ///< false adds --insecure-http
  std::vector<std::string> args;             ///< extra flags, e.g. {"--fail-writes", "0.1"}
  std::string dir_prefix = "ingot-kubeapi";  ///< scratch directory /tmp/<prefix>-XXXXXX
};

class ApiServerProcess {
 public:
  /// start launches the server and waits up to 20 s until it serves (its port file written).
  /// The error carries the server's log.
  static Result<std::unique_ptr<ApiServerProcess>> start(const ApiServerOptions& options);
  ~ApiServerProcess();

  ApiServerProcess(const ApiServerProcess&) = delete;
  ApiServerProcess& operator=(const ApiServerProcess&) = delete;

  /// dir is the scratch directory (kubeconfig, certificates, log).
  const std::string& dir() const { return dir_; }
  std::string kubeconfig() const { return dir_ + "/kubeconfig"; }
  int port() const { return port_; }
  pid_t pid() const { return process_->pid(); }
  /// log returns what the server printed so far.
  std::string log() const { return readWholeFile(dir_ + "/server.log"); }

 private:
  ApiServerProcess() = default;
  std::unique_ptr<Process> process_;
  std::string dir_;
  int port_ = 0;
};

}  // namespace ingot::testing
