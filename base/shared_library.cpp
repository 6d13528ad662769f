#include "base/shared_library.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace arec::base {

shared_library::shared_library(std::initializer_list<std::string_view> sonames,
                               std::string_view purpose) {
  std::string reasons;
  for (std::string_view soname : sonames) {
    std::string name(soname);
    handle_ = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr) {
      soname_ = std::move(name);
      return;
    }
    const char* why = ::dlerror();
    reasons += reasons.empty() ? "" : "; ";
    reasons += why != nullptr ? why : name + ": cannot be loaded";
  }
  throw std::runtime_error(std::string(purpose) +
                           " needs a shared library that cannot be loaded (" + reasons + ")");
}

void* shared_library::symbol(const char* name, const char* version) const {
  ::dlerror();  // a null symbol is only an error when dlerror says so
  void* address = version != nullptr ? ::dlvsym(handle_, name, version) : ::dlsym(handle_, name);
  if (const char* why = ::dlerror(); why != nullptr || address == nullptr) {
    std::string symbol = version != nullptr ? std::string(name) + "@" + version : name;
    throw std::runtime_error(soname_ + " has no " + symbol +
                             (why != nullptr ? std::string(": ") + why : std::string()));
  }
  return address;
}

}  // namespace arec::base
