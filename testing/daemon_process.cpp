// SPDX-License-Identifier: Apache-2.0
#include "testing/daemon_process.h"

#include <atomic>

#include "common/daemon/endpoints.h"

namespace ingot::testing {

Result<void> DaemonProcess::launch(const std::string& binary,
                                   const std::string& name,
                                   const std::string& kubeconfig,
                                   const std::string& dir,
                                   const std::vector<std::string>& extra) {
  static std::atomic<int> counter{0};
  const std::string base = dir + "/" + name + "-" + std::to_string(++counter);
  binary_ = binary;
  log_path_ = base + ".log";
  ports_path_ = base + ".ports";
  std::vector<std::string> argv = {binary, "--kubeconfig=" + kubeconfig,
                                   "--namespace=metallb-system", "--ports-file=" + ports_path_,
                                   "--log-level=debug"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto p = Process::spawn(argv, {}, log_path_);
  if (!p) {
    return p.error();
  }
  process_ = std::move(*p);
  return {};
}

void DaemonProcess::readPorts() const {
  if (ports_read_) {
    return;
  }
  Result<std::pair<int, int>> ports = Error{ErrorCode::NotFound, "not yet"};
  waitFor(Millis(20'000), [&] {
    ports = daemon::readPortsFile(ports_path_);
    return ports.has_value() || !process_->running();
  });
  if (ports) {
    metrics_port_ = ports->first;
    health_port_ = ports->second;
    ports_read_ = true;
  }
}

int DaemonProcess::metricsPort() const {
  readPorts();
  return metrics_port_;
}

int DaemonProcess::healthPort() const {
  readPorts();
  return health_port_;
}

bool DaemonProcess::waitReady(Millis timeout) {
  return waitFor(timeout,
                 [this] {
                   if (!process_->running()) {
                     return true;  // stop waiting; reported below
                   }
                   const int port = healthPort();
                   if (port == 0) {
                     return false;
                   }
                   auto r = httpGet(port, "/readyz");
                   return r.has_value() && r->status == 200;
                 }) &&
         process_->running();
}

std::string DaemonProcess::metrics() const {
  const int port = metricsPort();
  if (port == 0) {
    return "";
  }
  auto r = httpGet(port, "/metrics");
  return r.has_value() && r->status == 200 ? r->body : std::string();
}

double DaemonProcess::buildInfo() const {
  // "<program> version <v> (revision <r>)\n"
  const std::string out = runCommand(binary_ + " --version").output;
  const size_t v = out.find(" version ");
  const size_t r = out.find(" (revision ");
  const size_t end = out.rfind(')');
  if (v == std::string::npos || r == std::string::npos || end == std::string::npos || end < r) {
    return -1;
  }
  const std::string version = out.substr(v + 9, r - v - 9);
  const std::string revision = out.substr(r + 11, end - r - 11);
  return metric("ingot_build_info{version=\"" + version + "\",revision=\"" + revision + "\"}");
}

}  // namespace ingot::testing
