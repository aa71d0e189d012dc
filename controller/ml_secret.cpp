// SPDX-License-Identifier: Apache-2.0
#include "controller/ml_secret.h"

#include <openssl/rand.h>

#include "api/codec.h"
#include "common/util/base64.h"
#include "kube/resources.h"
#include "kube/startup.h"

namespace ingot::controller {
namespace {

/// kKeyBytes is MetalLB's key size: 128 bits.
constexpr size_t kKeyBytes = 16;

std::string rawBase64(std::string_view bytes) {
  std::string out = encodeBase64(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  return out;
}

Result<api::OwnerReference> deploymentOwner(k8s::ApiClient& api,
                                            const std::string& ns,
                                            const std::string& deployment) {
  if (deployment.empty()) {
    return invalidArgument(
        "--ml-secret-name needs --deployment (or METALLB_DEPLOYMENT): the memberlist Secret is "
        "owned by the controller's Deployment");
  }
  return k8s::objectOwner(
      api, {k8s::resources::kDeployments, "apps/v1", "Deployment", "Deployment"}, ns, deployment);
}

}  // namespace

Result<std::string> systemRandom(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return Error{ErrorCode::Internal, "no random bytes for the memberlist key (RAND_bytes)"};
  }
  return out;
}

api::Secret memberlistSecret(const std::string& ns,
                             const std::string& name,
                             const api::OwnerReference& deployment,
                             const std::string& key16) {
  api::Secret s;
  s.metadata.name = name;
  s.metadata.namespace_ = ns;
  s.metadata.owner_references = {deployment};
  // The Secret's value is the base64 text itself (it reaches the agents as a file and MetalLB
  // once passed it as an environment variable); the API encodes that text once more.
  s.data[kMemberlistSecretKey] = encodeBase64(rawBase64(key16));
  return s;
}

Result<bool> ensureMemberlistSecret(k8s::ApiClient& api,
                                    const std::string& ns,
                                    const std::string& name,
                                    const std::string& deployment,
                                    log::Logger& logger,
                                    const RandomBytes& random) {
  auto existing = api.get(k8s::resources::kSecrets, ns, name);
  if (existing) {
    logger.debug("CreateMlSecret", "exists", "secret already exists, nothing to do",
                 {{"secret", ns + "/" + name}});
    return false;
  }
  if (existing.error().code != ErrorCode::NotFound) {
    return Error{existing.error().code,
                 "read Secret " + ns + "/" + name + ": " + existing.error().message};
  }
  auto owner = deploymentOwner(api, ns, deployment);
  if (!owner) return owner.error();
  auto key = random(kKeyBytes);
  if (!key) return key.error();
  if (key->size() != kKeyBytes) {
    return Error{ErrorCode::Internal, "the random source returned a key of the wrong size"};
  }
  auto created = api.create(k8s::resources::kSecrets, ns,
                            api::encodeJson(memberlistSecret(ns, name, *owner, *key)));
  if (!created) {
    if (created.error().code == ErrorCode::AlreadyExists) return false;  // another replica
    return Error{created.error().code,
                 "create Secret " + ns + "/" + name + ": " + created.error().message};
  }
  logger.info("CreateMlSecret", "created", "secret successfully created",
              {{"secret", ns + "/" + name}, {"owner", "Deployment/" + deployment}});
  return true;
}

}  // namespace ingot::controller
