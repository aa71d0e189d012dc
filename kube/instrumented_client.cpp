// SPDX-License-Identifier: Apache-2.0
#include "kube/instrumented_client.h"

#include <array>

namespace ingot::k8s {

std::string_view apiVerbName(ApiVerb verb) {
  static constexpr std::array<std::string_view, kApiVerbCount> kNames = {
      "get",   "list",          "watch",        "create", "update",
      "patch", "update_status", "patch_status", "delete"};
  return kNames[static_cast<size_t>(verb)];
}

Result<std::string> InstrumentedClient::get(const ResourceRef& ref,
                                            std::string_view ns,
                                            std::string_view name) {
  return counted(ApiVerb::Get, inner_.get(ref, ns, name));
}

Result<ListPage> InstrumentedClient::list(const ResourceRef& ref,
                                          std::string_view ns,
                                          const ListOptions& options) {
  return counted(ApiVerb::List, inner_.list(ref, ns, options));
}

WatchOutcome InstrumentedClient::watch(const ResourceRef& ref,
                                       std::string_view ns,
                                       const WatchOptions& options,
                                       const WatchHandler& handler,
                                       std::stop_token stop) {
  // Counted when it starts: a watch lasts minutes.
  counter_.countRequest(ApiVerb::Watch, false);
  WatchOutcome out = inner_.watch(ref, ns, options, handler, std::move(stop));
  if (out.end == WatchEnd::Failed) counter_.countRequestError(ApiVerb::Watch);
  return out;
}

Result<std::string> InstrumentedClient::create(const ResourceRef& ref,
                                               std::string_view ns,
                                               std::string_view body) {
  return counted(ApiVerb::Create, inner_.create(ref, ns, body));
}

Result<std::string> InstrumentedClient::update(const ResourceRef& ref,
                                               std::string_view ns,
                                               std::string_view name,
                                               std::string_view body) {
  return counted(ApiVerb::Update, inner_.update(ref, ns, name, body));
}

Result<std::string> InstrumentedClient::patch(const ResourceRef& ref,
                                              std::string_view ns,
                                              std::string_view name,
                                              PatchType type,
                                              std::string_view body) {
  return counted(ApiVerb::Patch, inner_.patch(ref, ns, name, type, body));
}

Result<std::string> InstrumentedClient::updateStatus(const ResourceRef& ref,
                                                     std::string_view ns,
                                                     std::string_view name,
                                                     std::string_view body) {
  return counted(ApiVerb::UpdateStatus, inner_.updateStatus(ref, ns, name, body));
}

Result<std::string> InstrumentedClient::patchStatus(const ResourceRef& ref,
                                                    std::string_view ns,
                                                    std::string_view name,
                                                    PatchType type,
                                                    std::string_view body) {
  return counted(ApiVerb::PatchStatus, inner_.patchStatus(ref, ns, name, type, body));
}

Result<void> InstrumentedClient::remove(const ResourceRef& ref,
                                        std::string_view ns,
                                        std::string_view name) {
  return counted(ApiVerb::Delete, inner_.remove(ref, ns, name));
}

}  // namespace ingot::k8s
