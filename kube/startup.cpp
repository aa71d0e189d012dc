// SPDX-License-Identifier: Apache-2.0
#include "kube/startup.h"

#include <thread>

#include "common/json/scan.h"
#include "kube/kubeconfig.h"
#include "kube/resources.h"

namespace ingot::k8s {
namespace {

/// fatalAtOnce: failures that another try cannot fix.
bool fatalAtOnce(const Error& e) {
  return e.code == ErrorCode::Unauthorized || e.code == ErrorCode::Forbidden ||
         e.code == ErrorCode::InvalidArgument || e.message.find("TLS") != std::string::npos ||
         e.message.find("certificate") != std::string::npos;
}

std::string advice(const Error& e, const std::string& component) {
  switch (e.code) {
    case ErrorCode::Unauthorized:
      return "the API server rejected the credentials (401): check the token or client "
             "certificate of the kubeconfig / service account";
    case ErrorCode::Forbidden:
      return "the credentials may not list namespaces (403): check the " + component + "'s RBAC";
    default:
      break;
  }
  if (e.message.find("TLS") != std::string::npos ||
      e.message.find("certificate") != std::string::npos) {
    return "TLS verification of the API server failed: check the CA (certificate-authority "
           "of the kubeconfig, or the service account's ca.crt)";
  }
  return "the API server is unreachable: check the server address and the network";
}

}  // namespace

Result<void> preflight(ApiClient& api,
                       const std::string& server,
                       const std::string& ns,
                       log::Logger& logger,
                       const PreflightOptions& options) {
  ListOptions list;
  list.field_selector = "metadata.name=" + ns;
  Result<ListPage> page = Error{ErrorCode::Internal, "not attempted"};
  for (int attempt = 1; attempt <= std::max(1, options.attempts); ++attempt) {
    page = api.list(resources::kNamespaces, "", list);
    if (page || fatalAtOnce(page.error()) || attempt == options.attempts) break;
    logger.warn("startup", "api_retry", page.error().message,
                {{"server", server}, log::num("attempt", attempt)});
    if (options.sleep) {
      options.sleep(options.retry_delay);
    } else {
      std::this_thread::sleep_for(options.retry_delay);
    }
  }
  if (!page) {
    return Error{page.error().code, "cannot use the API server " + server + ": " +
                                        advice(page.error(), options.component) + " (" +
                                        page.error().message + ")"};
  }
  if (page->items.empty()) {
    logger.warn("startup", "namespace_missing",
                "the MetalLB namespace does not exist; no pools until it is created",
                {{"namespace", ns}});
  }
  return {};
}

Result<api::OwnerReference> objectOwner(ApiClient& api,
                                        const OwnerTarget& target,
                                        const std::string& ns,
                                        const std::string& name) {
  auto got = api.get(target.resource, ns, name);
  if (!got) {
    return Error{got.error().code,
                 "read " + target.label + " " + ns + "/" + name + ": " + got.error().message};
  }
  auto uid = json::stringAt(*got, {"metadata", "uid"});
  if (!uid || uid->empty()) {
    return invalidArgument(target.label + " " + ns + "/" + name + " has no metadata.uid");
  }
  api::OwnerReference owner;
  owner.api_version = target.api_version;
  owner.kind = target.kind;
  owner.name = name;
  owner.uid = *uid;
  return owner;
}

Result<api::OwnerReference> podOwner(ApiClient& api,
                                     const std::string& ns,
                                     const std::string& pod_name) {
  if (pod_name.empty()) return api::OwnerReference{};
  auto owner = objectOwner(api, {resources::kPods, "v1", "Pod", "pod"}, ns, pod_name);
  if (owner) owner->controller = true;
  return owner;
}

Result<Clients> connect(const std::string& kubeconfig,
                        const std::string& context,
                        const RestOptions& options,
                        RequestCounter& counter,
                        log::Logger& logger) {
  auto cfg = loadClientConfig(loadOptionsFromProcess(kubeconfig, context));
  if (!cfg) return Error{cfg.error().code, "load API client configuration: " + cfg.error().message};
  for (const auto& w : cfg->warnings) logger.warn("startup", "client_config", w);
  RestOptions counted = options;
  if (!counted.on_retry) {
    counted.on_retry = [&counter](RetryReason reason) { counter.countRetry(reason); };
  }
  auto main_rest = makeRestClient(*cfg, counted);
  if (!main_rest) return main_rest.error();
  auto events_rest = makeRestClient(*cfg, counted);
  if (!events_rest) return events_rest.error();
  Clients c;
  c.main_rest = std::move(*main_rest);
  c.events_rest = std::move(*events_rest);
  c.main = std::make_unique<InstrumentedClient>(*c.main_rest, counter);
  c.events = std::make_unique<InstrumentedClient>(*c.events_rest, counter);
  c.server = cfg->server;
  logger.info("startup", "client_config", "API client configured",
              {{"server", cfg->server}, {"source", cfg->source}});
  return c;
}

}  // namespace ingot::k8s
