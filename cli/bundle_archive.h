// SPDX-License-Identifier: Apache-2.0
// Writing a support bundle: a gzip-compressed tar (POSIX pax) of in-memory files, with libarchive.
#pragma once

#include <string>
#include <vector>

#include "common/util/result.h"

namespace ingot::cli {

/// BundleFile is one file of the archive: its path below the archive's top directory.
struct BundleFile {
  std::string path;
  std::string content;
};

/// writeTarGz writes files under top_dir/ into a new FILE.tar.gz at path (mode 0600: a bundle
/// describes the cluster). The error names the file and libarchive's reason.
Result<void> writeTarGz(const std::string& path,
                        const std::string& top_dir,
                        const std::vector<BundleFile>& files);

}  // namespace ingot::cli
