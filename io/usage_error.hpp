// usage_error: a mistake in what the user typed, found before anything is opened.
#pragma once

#include <stdexcept>

namespace arec::io {

// what() is one line naming the bad option or value; the caller prints
// "arec: error: <what()>" and exits with status 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace arec::io
