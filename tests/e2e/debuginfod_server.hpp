// debuginfod_server: a real elfutils debuginfod on 127.0.0.1, with a scratch database in a test's
// temp dir, serving the debug files of a directory the test makes: what the debuginfod tests of
// export and of the recorder's end fetch from. Also the stripped fixture program it serves.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {

// Why the debuginfod tests cannot run here (no server installed), or nullopt.
std::optional<std::string> missing_debuginfod();

// A TCP port free on 127.0.0.1 now (bound, read and closed: the server binds it next).
std::string free_port();

// hot_pair stripped (strip --strip-all: .symtab gone) at dir/hot_pair, its full build at
// dir/hot_pair.full and its debug file (objcopy --only-keep-debug) in dir/served.
struct stripped_program {
  std::string stripped, full, served, build_id;
};
stripped_program make_stripped_program(const test::temp_dir& dir);

class debuginfod_server {
 public:
  // Starts it over `served`, ready once it serves `build_id`'s debug file (a condition, polled,
  // bounded by a minute); url() is empty when it never was.
  debuginfod_server(const test::temp_dir& dir, const std::string& served,
                    const std::string& build_id);
  const std::string& url() const noexcept { return url_; }
  // Stops it; the build-ids it was asked about (readiness polls included), from its log.
  std::vector<std::string> stop_and_list_asked();

 private:
  debuginfod_server(const test::temp_dir& dir, const std::string& served,
                    const std::string& build_id, const std::string& port);
  std::string url_;
  test::child_process process_;
};

// The build-id of an ELF file, as readelf -n shows it ("" when it has none).
std::string build_id_of(const std::string& binary);

}  // namespace arec::e2e
