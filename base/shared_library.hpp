// shared_library: a library opened with dlopen at the moment a feature needs it, not at start.
// Used for the big ones only one command needs (libcurl for --push: ~6 MB of resident pages
// and ~40 libraries of its own; libarchive, libdw), so that a recording's RSS and start-up do
// not pay for them.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace arec::base {

class shared_library {
 public:
  // Opens the first of `sonames` that loads (RTLD_NOW | RTLD_LOCAL). Throws std::runtime_error
  // naming `purpose` (what needs it: "--push"), every soname tried and dlerror()'s reasons.
  shared_library(std::initializer_list<std::string_view> sonames, std::string_view purpose);
  // Stays loaded for the process's life: a library's own threads and atexit handlers (libcurl's
  // TLS back ends have both) must not outlive its code.
  ~shared_library() = default;
  shared_library(const shared_library&) = delete;
  shared_library& operator=(const shared_library&) = delete;

  // The address of `name`, as `Function*`. Throws std::runtime_error naming the symbol and the
  // library when it is missing (a library older than the one built against).
  template <typename Function>
  Function* function(const char* name) const {
    return reinterpret_cast<Function*>(symbol(name, nullptr));
  }
  // The same at one symbol version (dlvsym), where a library keeps a function's older
  // signatures beside its newest: the version the headers built against declare.
  template <typename Function>
  Function* function(const char* name, const char* version) const {
    return reinterpret_cast<Function*>(symbol(name, version));
  }

  const std::string& soname() const { return soname_; }

 private:
  void* symbol(const char* name, const char* version) const;

  void* handle_ = nullptr;
  std::string soname_;
};

}  // namespace arec::base
