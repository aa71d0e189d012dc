// SPDX-License-Identifier: Apache-2.0
#include "cli/bundle_archive.h"

#include <ctime>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

namespace ingot::cli {
namespace {

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

Error archiveError(const std::string& path, archive* a, const std::string& what) {
  const char* reason = archive_error_string(a);
  return Error{ErrorCode::Unavailable, "writing " + path + ": " + what + ": " +
                                           (reason != nullptr ? reason : "unknown error")};
}

Result<void> writeEntry(archive* a,
                        const std::string& path,
                        const std::string& name,
                        const std::string& content) {
  std::unique_ptr<archive_entry, EntryDeleter> entry(archive_entry_new());
  archive_entry_set_pathname(entry.get(), name.c_str());
  archive_entry_set_size(entry.get(), static_cast<la_int64_t>(content.size()));
  archive_entry_set_filetype(entry.get(), AE_IFREG);
  archive_entry_set_perm(entry.get(), 0600);
  archive_entry_set_mtime(entry.get(), std::time(nullptr), 0);
  if (archive_write_header(a, entry.get()) != ARCHIVE_OK) {
    return archiveError(path, a, name);
  }
  if (!content.empty() && archive_write_data(a, content.data(), content.size()) !=
                              static_cast<la_ssize_t>(content.size())) {
    return archiveError(path, a, name);
  }
  return {};
}

}  // namespace

Result<void> writeTarGz(const std::string& path,
                        const std::string& top_dir,
                        const std::vector<BundleFile>& files) {
  // Created here with mode 0600 (libarchive would use the umask's default).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Error{ErrorCode::Unavailable, "cannot create " + path};
  }
  std::unique_ptr<archive, ArchiveDeleter> a(archive_write_new());
  if (archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_open_fd(a.get(), fd) != ARCHIVE_OK) {
    ::close(fd);
    return archiveError(path, a.get(), "opening the archive");
  }
  for (const auto& f : files) {
    if (auto ok = writeEntry(a.get(), path, top_dir + "/" + f.path, f.content); !ok) {
      ::close(fd);
      return ok;
    }
  }
  const bool closed = archive_write_close(a.get()) == ARCHIVE_OK;
  auto error = closed ? Error{} : archiveError(path, a.get(), "closing the archive");
  if (::close(fd) != 0 || !closed) {
    return closed ? Error{ErrorCode::Unavailable, "writing " + path + ": close failed"} : error;
  }
  return {};
}

}  // namespace ingot::cli
