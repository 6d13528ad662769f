// usage_error: a mistake in what the user typed, found before anything is opened.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace arec::base {

// what() is one line naming the bad option or value; the caller prints
// "arec: error: <what()>" and exits with status 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "'text'", for naming what the user typed in a usage message.
inline std::string quoted(std::string_view text) {
  std::string result = "'";
  result += text;
  result += '\'';
  return result;
}

}  // namespace arec::base
