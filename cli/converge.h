// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

#include "api/types.h"
#include "common/util/result.h"
#include "config/config.h"
#include "controller/core/reprocess.h"

namespace ingot::cli {

/// applyOutcome writes what the controller would write back into the Service (status and
/// annotations), so a later pass, or the agent, sees it as the API server would return it.
void applyOutcome(api::Service& svc, const controller::ServiceOutcome& outcome);

/// convergeServices runs the controller's full passes on services until no pass asks for another
/// (it freed room or changed sharing; at most 8 passes), exactly as the controller's work queue
/// would. Every event of every pass is kept once, in order. services are updated in place with
/// the final status and annotations.
Result<controller::PlanResult> convergeServices(const config::Config& config,
                                                std::vector<api::Service>& services,
                                                const controller::Options& options);

}  // namespace ingot::cli
