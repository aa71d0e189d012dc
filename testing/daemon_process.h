// SPDX-License-Identifier: Apache-2.0
// DaemonProcess: one ingot-controller or ingot-agent child against a test API server. It starts
// the daemon with --ports-file, so the daemon picks its own metrics and health ports on 127.0.0.1
// and reports them (no port is guessed and handed over); killed by PID when destroyed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "testing/process.h"

namespace ingot::testing {

/// DaemonProcess is one running daemon. Daemon-specific test kits derive from it and start it
/// with their binary.
class DaemonProcess {
 public:
  virtual ~DaemonProcess() = default;
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  Process& process() { return *process_; }
  const std::string& logPath() const { return log_path_; }
  std::string log() const { return readWholeFile(log_path_); }

  /// metricsPort / healthPort return the ports the daemon reported (waiting up to 20 s for its
  /// ports file); 0 when it reported none (it exited first, or the endpoint is disabled).
  int metricsPort() const;
  int healthPort() const;

  /// waitReady polls /readyz until 200 (true) or the timeout / the process exits (false).
  bool waitReady(Millis timeout);

  /// metrics returns the /metrics text ("" when unreachable).
  std::string metrics() const;

  /// metric reads one series from /metrics; -1 when it is absent or the endpoint unreachable.
  double metric(const std::string& series) const {
    return metricValue(metrics(), series).value_or(-1);
  }

  /// buildInfo reads ingot_build_info for the version and revision the daemon's binary prints
  /// with --version: 1 when the daemon exports exactly those, else -1.
  double buildInfo() const;

 protected:
  DaemonProcess() = default;

  /// launch runs binary with --kubeconfig, --namespace=metallb-system, --ports-file,
  /// --log-level=debug and extra; the log goes to <dir>/<name>-<n>.log.
  Result<void> launch(const std::string& binary,
                      const std::string& name,
                      const std::string& kubeconfig,
                      const std::string& dir,
                      const std::vector<std::string>& extra);

 private:
  void readPorts() const;

  std::unique_ptr<Process> process_;
  std::string binary_;
  std::string log_path_;
  std::string ports_path_;
  mutable int metrics_port_ = 0;
  mutable int health_port_ = 0;
  mutable bool ports_read_ = false;
};

}  // namespace ingot::testing
