// SPDX-License-Identifier: Apache-2.0
#include "controller/tests/support/cluster.h"

#include <filesystem>
#include <thread>

#include "api/codec.h"
#include "common/json/scan.h"
#include "common/util/quote.h"
#include "kube/kubeconfig.h"
#include "kube/resources.h"
#include "kube/rest_client.h"

namespace ingot::controller::testing {
namespace {

constexpr Millis kServerStartTimeout{20000};
constexpr int kWriteAttempts = 20;

bool retriable(const Error& e) {
  return e.code == ErrorCode::Unavailable || e.code == ErrorCode::Internal;
}

std::string quoted(const std::string& s) {
  return jsonQuote(s);
}

}  // namespace

Result<std::unique_ptr<KubeApi>> KubeApi::start(const std::vector<std::string>& extra_args) {
  auto dir = makeTempDir("ingot-ctrl-kubeapi");
  if (!dir) return dir.error();
  auto api = std::unique_ptr<KubeApi>(new KubeApi());
  api->dir_ = *dir;
  std::vector<std::string> argv = {
      "/usr/bin/python3", INGOT_KUBEAPI_SERVER, "--port",           "0",
      "--port-file",      *dir + "/port",       "--kubeconfig-out", *dir + "/kubeconfig",
      "--cert-dir",       *dir + "/certs",      "--token",          kTestToken};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  auto process = Process::spawn(argv, {}, *dir + "/server.log");
  if (!process) return process.error();
  api->process_ = std::move(*process);
  const auto deadline = Clock::now() + kServerStartTimeout;
  while (!std::filesystem::exists(*dir + "/port")) {
    if (!api->process_->running() || Clock::now() > deadline) {
      return Error{ErrorCode::Unavailable, "test API server did not start:\n" + api->log()};
    }
    std::this_thread::sleep_for(Millis(20));
  }
  api->port_ = std::atoi(readWholeFile(*dir + "/port").c_str());
  return api;
}

KubeApi::~KubeApi() {
  if (process_) process_->terminate(Millis(5000));
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string KubeApi::log() const {
  return readWholeFile(dir_ + "/server.log");
}

Result<k8s::ApiClientPtr> KubeApi::client() const {
  auto cfg = k8s::loadKubeconfig({kubeconfig()});
  if (!cfg) return cfg.error();
  k8s::RestOptions o;
  o.qps = 0;
  return k8s::makeRestClient(*cfg, o);
}

CommandResult KubeApi::kubectl(const std::string& args) const {
  return runCommand("KUBECACHEDIR=" + dir_ + "/kubectl-cache /usr/bin/kubectl --kubeconfig " +
                    kubeconfig() + " " + args);
}

Result<std::unique_ptr<ControllerProcess>> ControllerProcess::start(
    const std::string& kubeconfig, const std::string& dir, const std::vector<std::string>& extra) {
  static int counter = 0;
  auto c = std::unique_ptr<ControllerProcess>(new ControllerProcess());
  c->metrics_port_ = freePort();
  c->health_port_ = freePort();
  c->log_path_ = dir + "/controller-" + std::to_string(++counter) + ".log";
  std::vector<std::string> argv = {INGOT_CONTROLLER_BINARY,
                                   "--kubeconfig=" + kubeconfig,
                                   "--namespace=metallb-system",
                                   "--port=" + std::to_string(c->metrics_port_),
                                   "--health-probe-port=" + std::to_string(c->health_port_),
                                   "--log-level=debug"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto p = Process::spawn(argv, {}, c->log_path_);
  if (!p) return p.error();
  c->process_ = std::move(*p);
  return c;
}

bool ControllerProcess::waitReady(Millis timeout) {
  return waitFor(timeout,
                 [this] {
                   if (!process_->running()) return true;  // stop waiting; reported below
                   auto r = httpGet(health_port_, "/readyz");
                   return r.has_value() && r->status == 200;
                 }) &&
         process_->running();
}

std::string ControllerProcess::metrics() const {
  auto r = httpGet(metrics_port_, "/metrics");
  return r.has_value() && r->status == 200 ? r->body : std::string();
}

std::string serviceJson(const std::string& ns,
                        const std::string& name,
                        const std::map<std::string, std::string>& annotations,
                        const std::string& type,
                        const std::string& extra_spec) {
  std::string meta = R"({"name":)" + quoted(name) + R"(,"namespace":)" + quoted(ns);
  if (!annotations.empty()) {
    meta += R"(,"annotations":{)";
    bool first = true;
    for (const auto& [k, v] : annotations) {
      meta += (first ? "" : ",") + quoted(k) + ":" + quoted(v);
      first = false;
    }
    meta += "}";
  }
  meta += "}";
  std::string spec = R"({"type":)" + quoted(type) +
                     R"(,"ports":[{"port":80,"protocol":"TCP"}],"selector":{"app":)" +
                     quoted(name) + "}";
  if (!extra_spec.empty()) spec += "," + extra_spec;
  spec += "}";
  return R"({"apiVersion":"v1","kind":"Service","metadata":)" + meta + R"(,"spec":)" + spec + "}";
}

std::string poolJson(const std::string& name, const std::vector<std::string>& addresses) {
  std::string list;
  for (const auto& a : addresses) list += (list.empty() ? "" : ",") + quoted(a);
  return R"({"apiVersion":"metallb.io/v1beta1","kind":"IPAddressPool","metadata":{"name":)" +
         quoted(name) + R"(,"namespace":"metallb-system"},"spec":{"addresses":[)" + list + "]}}";
}

Result<void> createRetrying(k8s::ApiClient& api,
                            const k8s::ResourceRef& ref,
                            const std::string& ns,
                            const std::string& body) {
  Result<std::string> r = Error{ErrorCode::Internal, "not attempted"};
  for (int i = 0; i < kWriteAttempts; ++i) {
    r = api.create(ref, ns, body);
    if (r || r.error().code == ErrorCode::AlreadyExists) return {};
    if (!retriable(r.error())) break;
  }
  return r.error();
}

Result<void> removeRetrying(k8s::ApiClient& api,
                            const k8s::ResourceRef& ref,
                            const std::string& ns,
                            const std::string& name) {
  Result<void> r = Error{ErrorCode::Internal, "not attempted"};
  for (int i = 0; i < kWriteAttempts; ++i) {
    r = api.remove(ref, ns, name);
    if (r || r.error().code == ErrorCode::NotFound) return {};
    if (!retriable(r.error())) break;
  }
  return r;
}

Result<std::vector<api::Service>> listServices(k8s::ApiClient& api) {
  auto page = api.list(k8s::resources::kServices, "", {});
  if (!page) return page.error();
  std::vector<api::Service> out;
  for (const auto& item : page->items) {
    auto svc = api::decodeJson<api::Service>(item);
    if (!svc) return svc.error();
    out.push_back(std::move(*svc));
  }
  return out;
}

std::vector<std::string> ingressIps(const api::Service& svc) {
  std::vector<std::string> out;
  for (const auto& i : svc.status.ingress) out.push_back(i.ip);
  return out;
}

Result<api::IPAddressPoolStatus> poolStatusOf(k8s::ApiClient& api, const std::string& name) {
  auto raw = api.get(k8s::resources::kIpAddressPools, "metallb-system", name);
  if (!raw) return raw.error();
  auto pool = api::decodeJson<api::IPAddressPool>(*raw);
  if (!pool) return pool.error();
  return pool->status.value_or(api::IPAddressPoolStatus{});
}

Result<api::ConfigurationState> configurationState(k8s::ApiClient& api) {
  auto raw = api.get(k8s::resources::kConfigurationStates, "metallb-system", "controller");
  if (!raw) return raw.error();
  return api::decodeJson<api::ConfigurationState>(*raw);
}

Result<std::vector<std::string>> eventsFor(k8s::ApiClient& api,
                                           const std::string& ns,
                                           const std::string& name) {
  auto page = api.list(k8s::resources::kEvents, ns, {});
  if (!page) return page.error();
  std::vector<std::string> out;
  for (const auto& item : page->items) {
    auto about = json::stringAt(item, {"involvedObject", "name"});
    if (!about || *about != name) continue;
    const auto field = [&](std::initializer_list<std::string_view> path) {
      auto v = json::stringAt(item, path);
      return v.has_value() ? *v : std::string();
    };
    out.push_back(field({"type"}) + " " + field({"reason"}) + " " + field({"source", "component"}) +
                  ": " + field({"message"}));
  }
  return out;
}

}  // namespace ingot::controller::testing
