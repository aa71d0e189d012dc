// SPDX-License-Identifier: Apache-2.0
// The BGPPeer conversion webhook (/convert): a ConversionReview (apiextensions.k8s.io/v1 or
// v1beta1, answered in the version it came in) converting BGPPeers between metallb.io/v1beta1 and
// v1beta2 with api/convert.h. Only spec and apiVersion change; metadata and status are returned as
// sent, as the API server requires. Pure.
#pragma once

#include <string>
#include <string_view>

#include "common/util/result.h"

namespace ingot::controller::webhook {

/// convertReview answers a ConversionReview body. A body that is not a ConversionReview is an
/// error (InvalidArgument, for an HTTP 400); a review whose objects cannot be converted is
/// answered with result.status "Failure" and a message naming the object and the reason.
Result<std::string> convertReview(std::string_view body);

/// failureStatus renders a metav1 Status with code 400 and message, for bodies that are not
/// reviews at all.
std::string failureStatus(std::string_view message);

}  // namespace ingot::controller::webhook
