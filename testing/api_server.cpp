// SPDX-License-Identifier: Apache-2.0
#include "testing/api_server.h"

#include <cstdlib>
#include <filesystem>

namespace ingot::testing {
namespace {

// Generous: on a loaded 2-core machine the interpreter alone can take tens of seconds to import.
constexpr Millis kStartTimeout{60'000};

}  // namespace

Result<std::unique_ptr<ApiServerProcess>> ApiServerProcess::start(const ApiServerOptions& options) {
  auto dir = makeTempDir(options.dir_prefix);
  if (!dir) {
    return dir.error();
  }
  auto s = std::unique_ptr<ApiServerProcess>(new ApiServerProcess());
  s->dir_ = *dir;
  std::vector<std::string> argv = {
      "/usr/bin/python3", options.script,  "--port",           "0",
      "--port-file",      *dir + "/port",  "--kubeconfig-out", *dir + "/kubeconfig",
      "--cert-dir",       *dir + "/certs", "--token",          options.token};
  if (!options.https) {
    argv.push_back("--insecure-http");
  }
  argv.insert(argv.end(), options.args.begin(), options.args.end());
  auto process = Process::spawn(argv, {}, *dir + "/server.log");
  if (!process) {
    return process.error();
  }
  s->process_ = std::move(*process);
  const std::string port_file = *dir + "/port";
  const bool up = waitFor(
      kStartTimeout, [&] { return std::filesystem::exists(port_file) || !s->process_->running(); });
  if (!up || !s->process_->running()) {
    return Error{ErrorCode::Unavailable, "test API server did not start:\n" + s->log()};
  }
  s->port_ = std::atoi(readWholeFile(port_file).c_str());
  if (s->port_ <= 0) {
    return Error{ErrorCode::Unavailable, "test API server wrote no port:\n" + s->log()};
  }
  return s;
}

ApiServerProcess::~ApiServerProcess() {
  if (process_) {
    process_->terminate(Millis(5000));
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace ingot::testing
