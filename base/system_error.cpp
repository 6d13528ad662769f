#include "base/system_error.hpp"

namespace arec::base {

void throw_system_error(int err, std::string_view call, std::string_view object) {
  std::string what{call};
  if (!object.empty()) {
    what += ' ';
    what += object;
  }
  throw std::system_error(err, std::system_category(), what);
}

}  // namespace arec::base
