// SPDX-License-Identifier: Apache-2.0
#include "agent/instrumented_client.h"

namespace ingot::agent {

Result<std::string> InstrumentedClient::get(const k8s::ResourceRef& ref,
                                            std::string_view ns,
                                            std::string_view name) {
  return counted(ApiVerb::Get, inner_.get(ref, ns, name));
}

Result<k8s::ListPage> InstrumentedClient::list(const k8s::ResourceRef& ref,
                                               std::string_view ns,
                                               const k8s::ListOptions& options) {
  return counted(ApiVerb::List, inner_.list(ref, ns, options));
}

k8s::WatchOutcome InstrumentedClient::watch(const k8s::ResourceRef& ref,
                                            std::string_view ns,
                                            const k8s::WatchOptions& options,
                                            const k8s::WatchHandler& handler,
                                            std::stop_token stop) {
  // Counted when it starts: a watch lasts minutes.
  metrics_.countRequest(ApiVerb::Watch, false);
  k8s::WatchOutcome out = inner_.watch(ref, ns, options, handler, std::move(stop));
  if (out.end == k8s::WatchEnd::Failed) metrics_.countRequestError(ApiVerb::Watch);
  return out;
}

Result<std::string> InstrumentedClient::create(const k8s::ResourceRef& ref,
                                               std::string_view ns,
                                               std::string_view body) {
  return counted(ApiVerb::Create, inner_.create(ref, ns, body));
}

Result<std::string> InstrumentedClient::update(const k8s::ResourceRef& ref,
                                               std::string_view ns,
                                               std::string_view name,
                                               std::string_view body) {
  return counted(ApiVerb::Update, inner_.update(ref, ns, name, body));
}

Result<std::string> InstrumentedClient::patch(const k8s::ResourceRef& ref,
                                              std::string_view ns,
                                              std::string_view name,
                                              k8s::PatchType type,
                                              std::string_view body) {
  return counted(ApiVerb::Patch, inner_.patch(ref, ns, name, type, body));
}

Result<std::string> InstrumentedClient::updateStatus(const k8s::ResourceRef& ref,
                                                     std::string_view ns,
                                                     std::string_view name,
                                                     std::string_view body) {
  return counted(ApiVerb::UpdateStatus, inner_.updateStatus(ref, ns, name, body));
}

Result<std::string> InstrumentedClient::patchStatus(const k8s::ResourceRef& ref,
                                                    std::string_view ns,
                                                    std::string_view name,
                                                    k8s::PatchType type,
                                                    std::string_view body) {
  return counted(ApiVerb::PatchStatus, inner_.patchStatus(ref, ns, name, type, body));
}

Result<void> InstrumentedClient::remove(const k8s::ResourceRef& ref,
                                        std::string_view ns,
                                        std::string_view name) {
  return counted(ApiVerb::Delete, inner_.remove(ref, ns, name));
}

}  // namespace ingot::agent
