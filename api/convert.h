// SPDX-License-Identifier: Apache-2.0
// BGPPeer conversion between the deprecated v1beta1 shape and the v1beta2 storage shape
// (MetalLB's api/v1beta1 conversion): the fields both versions have are copied 1:1, including
// metadata. "Both have" is decided by JSON key from the two fields() tables (api/describe.h), so a
// field added to both versions converts without touching this code.
#pragma once

#include "api/types.h"

namespace ingot::api {

/// toV1beta2 converts a v1beta1 BGPPeer; fields only v1beta2 has keep their defaults.
BGPPeer toV1beta2(const BGPPeerV1beta1& peer);

/// toV1beta1 converts a v1beta2 BGPPeer, dropping the fields v1beta1 lacks (dynamicASN,
/// localASN, interface, connectTime, passwordSecret, enableGracefulRestart, vrf, disableMP,
/// dualStackAddressFamily), as MetalLB's conversion webhook does.
BGPPeerV1beta1 toV1beta1(const BGPPeer& peer);

}  // namespace ingot::api
