// SPDX-License-Identifier: Apache-2.0
// writeTarGz: what libarchive reads back is exactly what was written, under the top directory,
// and the file is private (0600); an unwritable path is an error naming it.
#include "cli/bundle_archive.h"

#include <filesystem>
#include <map>
#include <string>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <boost/test/unit_test.hpp>

namespace {

using namespace ingot::cli;
namespace fs = std::filesystem;

std::map<std::string, std::string> readTarGz(const std::string& path) {
  std::map<std::string, std::string> out;
  archive* a = archive_read_new();
  archive_read_support_filter_gzip(a);
  archive_read_support_format_tar(a);
  BOOST_TEST_REQUIRE(archive_read_open_filename(a, path.c_str(), 10240) == ARCHIVE_OK);
  archive_entry* entry = nullptr;
  while (archive_read_next_header(a, &entry) == ARCHIVE_OK) {
    std::string content(static_cast<size_t>(archive_entry_size(entry)), '\0');
    if (!content.empty()) {
      archive_read_data(a, content.data(), content.size());
    }
    out[archive_entry_pathname(entry)] = content;
  }
  archive_read_free(a);
  return out;
}

BOOST_AUTO_TEST_CASE(tar_gz_round_trip) {
  const fs::path dir =
      fs::temp_directory_path() / ("ingot-bundle-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "b.tar.gz").string();
  std::string big(300000, 'x');
  big[12345] = '\0';
  const std::vector<BundleFile> files = {
      {"index.json", "{}\n"}, {"metallb/pools.json", "[1,2]"}, {"empty.txt", ""}, {"big", big}};
  BOOST_TEST_REQUIRE(writeTarGz(path, "top", files).has_value());
  const auto got = readTarGz(path);
  BOOST_TEST(got.size() == files.size());
  for (const auto& f : files) {
    BOOST_TEST_REQUIRE(got.count("top/" + f.path) == 1u, f.path);
    BOOST_TEST((got.at("top/" + f.path) == f.content), f.path);
  }
  struct stat st {};
  BOOST_TEST_REQUIRE(::stat(path.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0600u);
  const auto bad = writeTarGz((dir / "missing" / "b.tar.gz").string(), "top", files);
  BOOST_TEST_REQUIRE(!bad.has_value());
  BOOST_TEST(bad.error().message.find("missing/b.tar.gz") != std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
