#include "symbols/debuginfod_fetcher.hpp"

#include <elfutils/debuginfod.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "base/shared_library.hpp"
#include "io/unique_fd.hpp"

namespace arec::symbols {
namespace {

struct debuginfod_functions {
  decltype(&debuginfod_begin) begin = nullptr;
  decltype(&debuginfod_end) end = nullptr;
  decltype(&debuginfod_find_debuginfo) find_debuginfo = nullptr;
  decltype(&debuginfod_set_progressfn) set_progressfn = nullptr;
  decltype(&debuginfod_set_user_data) set_user_data = nullptr;
  decltype(&debuginfod_get_user_data) get_user_data = nullptr;
};

// libdebuginfod, loaded once per process; throws std::runtime_error saying what needs it.
const debuginfod_functions& libdebuginfod() {
  static const base::shared_library library(
      {"libdebuginfod.so.1"},
      "fetching debug files from DEBUGINFOD_URLS (elfutils' libdebuginfod, Debian: "
      "libdebuginfod1)");
  static const debuginfod_functions functions = [] {
    debuginfod_functions f;
    f.begin = library.function<decltype(debuginfod_begin)>("debuginfod_begin", "ELFUTILS_0.178");
    f.end = library.function<decltype(debuginfod_end)>("debuginfod_end", "ELFUTILS_0.178");
    f.find_debuginfo = library.function<decltype(debuginfod_find_debuginfo)>(
        "debuginfod_find_debuginfo", "ELFUTILS_0.178");
    f.set_progressfn = library.function<decltype(debuginfod_set_progressfn)>(
        "debuginfod_set_progressfn", "ELFUTILS_0.178");
    f.set_user_data = library.function<decltype(debuginfod_set_user_data)>(
        "debuginfod_set_user_data", "ELFUTILS_0.179");
    f.get_user_data = library.function<decltype(debuginfod_get_user_data)>(
        "debuginfod_get_user_data", "ELFUTILS_0.179");
    return f;
  }();
  return functions;
}

// Called by libdebuginfod while it transfers; non-zero aborts the transfer.
int on_progress(::debuginfod_client* client, long done, long /*total*/) {
  auto* self = static_cast<debuginfod_fetcher*>(libdebuginfod().get_user_data(client));
  return self && self->over_limits(done) ? 1 : 0;
}

}  // namespace

debuginfod_fetcher::debuginfod_fetcher(debuginfod_limits limits) : limits_(limits) {}

debuginfod_fetcher::~debuginfod_fetcher() {
  if (client_) libdebuginfod().end(static_cast<::debuginfod_client*>(client_));
}

bool debuginfod_fetcher::configured() {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  return urls && urls[std::strspn(urls, " \t")] != '\0';
}

bool debuginfod_fetcher::over_limits(long done) const {
  auto spent = spent_ + (std::chrono::steady_clock::now() - fetch_start_);
  return bytes_ + static_cast<std::uint64_t>(done > 0 ? done : 0) > limits_.bytes ||
         spent > limits_.time;
}

std::optional<std::string> debuginfod_fetcher::debuginfo(const perf_data::build_id& id) {
  if (failed_ || id.empty() || !configured()) return std::nullopt;
  try {
    const debuginfod_functions& f = libdebuginfod();
    if (!client_) {
      client_ = f.begin();
      if (!client_) throw std::runtime_error("debuginfod_begin failed");
      auto* raw = static_cast<::debuginfod_client*>(client_);
      f.set_user_data(raw, this);
      f.set_progressfn(raw, &on_progress);
    }
    fetch_start_ = std::chrono::steady_clock::now();
    char* found = nullptr;
    std::string hex = id.hex();
    int result = f.find_debuginfo(static_cast<::debuginfod_client*>(client_),
                                  reinterpret_cast<const unsigned char*>(hex.c_str()), 0, &found);
    spent_ += std::chrono::steady_clock::now() - fetch_start_;
    std::unique_ptr<char, decltype(&std::free)> path(found, &std::free);
    if (result < 0) {
      if (result != -ENOENT && warning_.empty())
        warning_ = "debuginfod: debug file of build-id " + hex + " not fetched: " +
                   std::strerror(-result) + " (its functions stay unnamed)";
      if (spent_ > limits_.time || bytes_ > limits_.bytes) {
        failed_ = true;
        warning_ = "debuginfod: the " + std::to_string(limits_.time.count()) + " s and " +
                   std::to_string(limits_.bytes >> 20) +
                   " MiB allowed for fetching are used up; later objects are not asked for";
      }
      return std::nullopt;
    }
    io::unique_fd fd(result);
    struct stat status {};
    if (::fstat(fd.get(), &status) == 0) bytes_ += static_cast<std::uint64_t>(status.st_size);
    ++files_;
    if (!path) return std::nullopt;
    return std::string(path.get());
  } catch (const std::runtime_error& error) {
    failed_ = true;
    warning_ = error.what();
    return std::nullopt;
  }
}

std::string debuginfod_fetcher::take_warning() {
  if (warned_ || warning_.empty()) return {};
  warned_ = true;
  return warning_;
}

}  // namespace arec::symbols
