// SPDX-License-Identifier: Apache-2.0
// The memberlist Secret MetalLB's controller creates at start-up (--ml-secret-name) so that the
// speakers (here: the agents) can mount the gossip key: key "secretkey", 16 random bytes as
// unpadded standard base64, owned by the controller's Deployment (--deployment). Created only
// when no Secret of that name exists; an existing one is never rotated.
#pragma once

#include <functional>
#include <string>

#include "api/types.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "kube/api_client.h"

namespace ingot::controller {

/// kMemberlistSecretKey is the data key the agents read (<--ml-secret-key-path>/secretkey).
inline constexpr const char* kMemberlistSecretKey = "secretkey";

/// RandomBytes fills a buffer with n cryptographically random bytes or fails.
using RandomBytes = std::function<Result<std::string>(size_t n)>;

/// systemRandom draws from OpenSSL's RAND_bytes.
Result<std::string> systemRandom(size_t n);

/// memberlistSecret returns the Secret to create: name in ns, data secretkey = key16 as
/// unpadded standard base64 (22 characters), one owner reference to the Deployment (apps/v1,
/// name and uid, as MetalLB sets it: not controller, no blockOwnerDeletion).
api::Secret memberlistSecret(const std::string& ns,
                             const std::string& name,
                             const api::OwnerReference& deployment,
                             const std::string& key16);

/// ensureMemberlistSecret creates the Secret unless one named `name` exists in ns. Returns true
/// when it created it. Errors (reading the Secret or the Deployment, creating) name the object;
/// a concurrent create by another replica (409) counts as existing.
Result<bool> ensureMemberlistSecret(k8s::ApiClient& api,
                                    const std::string& ns,
                                    const std::string& name,
                                    const std::string& deployment,
                                    log::Logger& logger,
                                    const RandomBytes& random = systemRandom);

}  // namespace ingot::controller
