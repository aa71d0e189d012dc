// SPDX-License-Identifier: Apache-2.0
#include "common/util/result.h"
