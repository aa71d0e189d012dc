// SPDX-License-Identifier: Apache-2.0
#include "cli/cluster.h"

#include <algorithm>

#include "common/json/json.h"
#include "kube/kubeconfig.h"
#include "kube/resources.h"
#include "kube/rest_client.h"

namespace ingot::cli {

Result<ClusterConnection> connectCluster(const std::string& kubeconfig_flag,
                                         const std::string& context) {
  auto config = k8s::loadClientConfig(k8s::loadOptionsFromProcess(kubeconfig_flag, context));
  if (!config) {
    return config.error();
  }
  k8s::RestOptions options;
  options.user_agent = "ingotctl";
  options.request_timeout = std::chrono::seconds(20);
  auto client = k8s::makeRestClient(*config, options);
  if (!client) {
    return Error{client.error().code,
                 "API client from " + config->source + ": " + client.error().message};
  }
  return ClusterConnection{std::move(*client), config->source, config->server, config->token,
                           config->warnings};
}

std::vector<Kind> metallbConfigKinds() {
  namespace r = k8s::resources;
  const std::string v1beta1 = "metallb.io/v1beta1";
  return {{r::kIpAddressPools, v1beta1, "IPAddressPool"},
          {r::kL2Advertisements, v1beta1, "L2Advertisement"},
          {r::kBgpAdvertisements, v1beta1, "BGPAdvertisement"},
          {r::kBgpPeers, "metallb.io/v1beta2", "BGPPeer"},
          {r::kBfdProfiles, v1beta1, "BFDProfile"},
          {r::kCommunities, v1beta1, "Community"}};
}

Result<std::vector<json::Value>> listObjects(k8s::ApiClient& client,
                                             const Kind& kind,
                                             const std::string& ns,
                                             const k8s::ListOptions& options) {
  k8s::ListOptions page_options = options;
  page_options.limit = page_options.limit > 0 ? page_options.limit : 500;
  std::vector<json::Value> out;
  for (;;) {
    auto page = client.list(kind.ref, ns, page_options);
    if (!page) {
      return page.error();
    }
    for (const auto& item : page->items) {
      auto v = json::parse(item);
      if (!v || !v->isObject()) {
        return Error{ErrorCode::Internal, "list " + kind.ref.plural + ": an item is not an object"};
      }
      putMember(*v, "apiVersion", json::Value::string(kind.api_version));
      putMember(*v, "kind", json::Value::string(kind.kind));
      out.push_back(std::move(*v));
    }
    if (page->continue_token.empty()) {
      return out;
    }
    page_options.continue_token = page->continue_token;
  }
}

void putMember(json::Value& object, const std::string& key, json::Value value) {
  const auto& keys = object.keys();
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) {
      object.items()[i] = std::move(value);
      return;
    }
  }
  object.set(key, std::move(value));
}

json::Value withoutMembers(const json::Value& object, const std::vector<std::string>& drop) {
  json::Value out = json::Value::object(object.line());
  for (size_t i = 0; i < object.keys().size(); ++i) {
    const auto& key = object.keys()[i];
    if (std::find(drop.begin(), drop.end(), key) == drop.end()) {
      out.set(key, object.items()[i]);
    }
  }
  return out;
}

const json::Value* memberAt(const json::Value& v, const std::vector<std::string>& keys) {
  const json::Value* at = &v;
  for (const auto& k : keys) {
    if (!at->isObject()) {
      return nullptr;
    }
    at = at->find(k);
    if (at == nullptr) {
      return nullptr;
    }
  }
  return at;
}

std::string stringAt(const json::Value& v, const std::vector<std::string>& keys) {
  const json::Value* at = memberAt(v, keys);
  return at != nullptr && at->isString() ? at->text() : "";
}

}  // namespace ingot::cli
