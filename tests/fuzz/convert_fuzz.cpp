// libFuzzer target for `arec convert`'s reader: any bytes as a single-file recording, converted
// plainly and with --salvage. Malformed input must end in format_error (or a usage/system
// error), never a crash, a sanitizer report or an output file left behind.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>

#include "io/perf_data/perf_file_reader.hpp"
#include "convert/converter.hpp"
#include "io/usage_error.hpp"

namespace {

void convert_once(const std::string& input, const std::string& output, bool salvage) {
  arec::convert::convert_options options;
  options.input = input;
  options.output = output;
  options.salvage = salvage;
  arec::convert::convert_settings settings;
  settings.memory_budget = 8u << 20;
  try {
    arec::convert::convert(options, settings);
    ::unlink(output.c_str());  // a success: remove it so the check below sees only leftovers
  } catch (const arec::io::perf::format_error&) {
  } catch (const std::system_error&) {
  } catch (const arec::io::usage_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int fd = ::memfd_create("arec-convert-fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t written = 0;
  while (written < size) {
    ssize_t n = ::write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  std::string input = "/proc/self/fd/" + std::to_string(fd);
  std::string output = "/tmp/arec-convert-fuzz-" + std::to_string(::getpid()) + ".perf";
  convert_once(input, output, false);
  convert_once(input, output, true);
  if (::access(output.c_str(), F_OK) == 0) __builtin_trap();  // an output survived
  ::close(fd);
  return 0;
}
