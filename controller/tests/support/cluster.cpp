// SPDX-License-Identifier: Apache-2.0
#include "controller/tests/support/cluster.h"

#include "api/codec.h"
#include "common/json/scan.h"
#include "common/util/quote.h"
#include "kube/kubeconfig.h"
#include "kube/resources.h"
#include "kube/rest_client.h"

namespace ingot::controller::testing {
namespace {

constexpr int kWriteAttempts = 20;

bool retriable(const Error& e) {
  return e.code == ErrorCode::Unavailable || e.code == ErrorCode::Internal;
}

std::string quoted(const std::string& s) {
  return jsonQuote(s);
}

}  // namespace

Result<std::unique_ptr<KubeApi>> KubeApi::start(const std::vector<std::string>& extra_args) {
  ApiServerOptions o;
  o.script = INGOT_KUBEAPI_SERVER;
  o.token = kTestToken;
  o.args = extra_args;
  o.dir_prefix = "ingot-ctrl-kubeapi";
  auto server = ApiServerProcess::start(o);
  if (!server) return server.error();
  auto api = std::unique_ptr<KubeApi>(new KubeApi());
  api->server_ = std::move(*server);
  return api;
}

KubeApi::~KubeApi() = default;

Result<k8s::ApiClientPtr> KubeApi::client() const {
  auto cfg = k8s::loadKubeconfig({kubeconfig()});
  if (!cfg) return cfg.error();
  k8s::RestOptions o;
  o.qps = 0;
  return k8s::makeRestClient(*cfg, o);
}

CommandResult KubeApi::kubectl(const std::string& args) const {
  return runCommand("KUBECACHEDIR=" + dir() + "/kubectl-cache /usr/bin/kubectl --kubeconfig " +
                    kubeconfig() + " " + args);
}

Result<std::unique_ptr<ControllerProcess>> ControllerProcess::start(
    const std::string& kubeconfig, const std::string& dir, const std::vector<std::string>& extra) {
  auto c = std::unique_ptr<ControllerProcess>(new ControllerProcess());
  if (auto ok = c->launch(INGOT_CONTROLLER_BINARY, "controller", kubeconfig, dir, extra); !ok) {
    return ok.error();
  }
  return c;
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
