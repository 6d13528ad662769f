// format_error: a perf.data file that does not follow the format. what() is
// "FILE: offset N: PROBLEM", so the user can look at the very byte.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace arec::perf_data {

class format_error : public std::runtime_error {
 public:
  format_error(std::string_view file, std::uint64_t offset, std::string_view problem);
  std::uint64_t offset() const { return offset_; }

 private:
  std::uint64_t offset_;
};

}  // namespace arec::perf_data
