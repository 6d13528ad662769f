#include "debuginfod_server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <regex>

#include "recorder.hpp"

namespace arec::e2e {

std::optional<std::string> missing_debuginfod() {
  if (std::filesystem::exists("/usr/bin/debuginfod")) return std::nullopt;
  return "no debuginfod server (Debian: debuginfod; scripts/install-deps.sh)";
}

std::string free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), size), 0);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size), 0);
  ::close(fd);
  return std::to_string(ntohs(address.sin_port));
}

std::string build_id_of(const std::string& binary) {
  test::command_result notes = test::run_command({"readelf", "-n", binary});
  auto at = notes.out.find("Build ID: ");
  EXPECT_NE(at, std::string::npos) << notes.describe();
  return at == std::string::npos ? std::string{} : notes.out.substr(at + 10, 40);
}

stripped_program make_stripped_program(const test::temp_dir& dir) {
  stripped_program made{dir.file("hot_pair"), dir.file("hot_pair.full"), dir.file("served"), ""};
  std::filesystem::create_directory(made.served);
  std::filesystem::copy_file(test_program("hot_pair"), made.full);
  test::command_result debug = test::run_command(
      {"objcopy", "--only-keep-debug", made.full, made.served + "/hot_pair.debug"});
  EXPECT_EQ(debug.exit_code, 0) << debug.describe();
  test::command_result strip =
      test::run_command({"strip", "--strip-all", "-o", made.stripped, made.full});
  EXPECT_EQ(strip.exit_code, 0) << strip.describe();
  made.build_id = build_id_of(made.stripped);
  return made;
}

debuginfod_server::debuginfod_server(const test::temp_dir& dir, const std::string& served,
                                     const std::string& build_id)
    : debuginfod_server(dir, served, build_id, free_port()) {}

debuginfod_server::debuginfod_server(const test::temp_dir& dir, const std::string& served,
                                     const std::string& build_id, const std::string& port)
    : url_("http://127.0.0.1:" + port),
      process_(
          test::child_process::spawn({"debuginfod", "-v", "-p", port, "-d", dir.file("db.sqlite"),
                                      "-F", served, "-t", "0", "-g", "0"})) {
  // Ready once it serves the file it indexes at start (a condition, bounded by a minute).
  const std::string probe = url_ + "/buildid/" + build_id + "/debuginfo";
  bool serving = false;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::minutes(1);
       !serving && std::chrono::steady_clock::now() < until;) {
    serving = test::run_command({"curl", "-sf", "-o", "/dev/null", probe}).exit_code == 0;
    if (!serving) ::usleep(50'000);  // between polls of the condition, not a wait for it
  }
  if (!serving) url_.clear();
}

std::vector<std::string> debuginfod_server::stop_and_list_asked() {
  process_.send_signal(SIGTERM);
  test::command_result log = process_.wait(std::chrono::minutes(1));
  std::vector<std::string> asked;
  const std::regex buildid_request("/buildid/([0-9a-f]+)/");
  std::smatch found;
  for (auto it = log.err.cbegin(); std::regex_search(it, log.err.cend(), found, buildid_request);
       it = found[0].second)
    asked.push_back(found[1]);
  return asked;
}

}  // namespace arec::e2e
