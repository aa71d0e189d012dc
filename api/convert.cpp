// SPDX-License-Identifier: Apache-2.0
#include "api/convert.h"

#include "api/describe.h"

namespace ingot::api {

BGPPeer toV1beta2(const BGPPeerV1beta1& peer) {
  BGPPeer out;
  copyShared(peer, out);
  return out;
}

BGPPeerV1beta1 toV1beta1(const BGPPeer& peer) {
  BGPPeerV1beta1 out;
  copyShared(peer, out);
  return out;
}

}  // namespace ingot::api
