// SPDX-License-Identifier: Apache-2.0
#include "kube/tests/integration/api_server.h"

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "common/json/scan.h"
#include "common/util/quote.h"
#include "kube/kubeconfig.h"
#include "kube/tests/test_util.h"

extern char** environ;

namespace ingot::k8s::testing {
namespace {

constexpr auto kStartTimeout = std::chrono::seconds(20);

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exited(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, WNOHANG) == pid;
}

}  // namespace

TestApiServer::TestApiServer(ApiServerOptions options) {
  char tmpl[] = "/tmp/ingot-kubeapi-XXXXXX";
  BOOST_REQUIRE(mkdtemp(tmpl) != nullptr);
  dir_ = tmpl;
  std::vector<std::string> args = {
      "/usr/bin/python3", INGOT_KUBEAPI_SERVER, "--port",           "0",
      "--port-file",      dir_ + "/port",       "--kubeconfig-out", dir_ + "/kubeconfig",
      "--cert-dir",       dir_ + "/certs",      "--token",          kToken};
  if (!options.https) args.push_back("--insecure-http");
  args.insert(args.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const std::string log_path = dir_ + "/server.log";
  pid_ = fork();
  BOOST_REQUIRE_MESSAGE(pid_ >= 0, "fork failed");
  if (pid_ == 0) {
    // Only async-signal-safe calls until exec. The server dies with this process even when a
    // test aborts before the destructor runs.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execve(argv[0], argv.data(), environ);
    _exit(127);
  }

  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (!std::filesystem::exists(dir_ + "/port")) {
    BOOST_REQUIRE_MESSAGE(!exited(pid_), "test API server exited:\n" + log());
    if (std::chrono::steady_clock::now() > deadline) {
      BOOST_FAIL("test API server did not start within 20 s:\n" + log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  port_ = std::atoi(slurp(dir_ + "/port").c_str());
  BOOST_REQUIRE(port_ > 0);
}

TestApiServer::~TestApiServer() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!exited(pid_)) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

ClientConfig TestApiServer::config() const {
  auto cfg = loadKubeconfig({dir_ + "/kubeconfig"});
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
  return slurp(dir_ + "/server.log");
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
