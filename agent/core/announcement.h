// SPDX-License-Identifier: Apache-2.0
// Announcement: one prefix a node advertises over BGP. The agent's announce decision
// (agent/core/announce.h) produces it; the type is declared in config/announcement.h, below both
// the agent and frrgen, so that frrgen renders it without depending on the agent.
#pragma once

#include "config/announcement.h"

namespace ingot::agent {

using Announcement = config::Announcement;

}  // namespace ingot::agent
