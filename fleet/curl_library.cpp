#include "fleet/curl_library.hpp"

#include <stdexcept>

#include "base/shared_library.hpp"

namespace arec::fleet {
namespace {

class loaded_curl {
 public:
  // libcurl4 (OpenSSL) or libcurl3-gnutls: the same API and ABI under two names.
  loaded_curl() : library_({"libcurl.so.4", "libcurl-gnutls.so.4"}, "--push (libcurl)") {
    functions_.global_init = library_.function<decltype(curl_global_init)>("curl_global_init");
    functions_.easy_init = library_.function<decltype(curl_easy_init)>("curl_easy_init");
    functions_.easy_cleanup = library_.function<decltype(curl_easy_cleanup)>("curl_easy_cleanup");
    functions_.easy_reset = library_.function<decltype(curl_easy_reset)>("curl_easy_reset");
    functions_.easy_setopt =
        library_.function<CURLcode(CURL*, CURLoption, ...)>("curl_easy_setopt");
    functions_.easy_perform = library_.function<decltype(curl_easy_perform)>("curl_easy_perform");
    functions_.easy_getinfo =
        library_.function<CURLcode(CURL*, CURLINFO, ...)>("curl_easy_getinfo");
    functions_.easy_strerror =
        library_.function<decltype(curl_easy_strerror)>("curl_easy_strerror");
    functions_.slist_append = library_.function<decltype(curl_slist_append)>("curl_slist_append");
    functions_.slist_free_all =
        library_.function<decltype(curl_slist_free_all)>("curl_slist_free_all");
    // Not thread-safe, and must precede every handle: here, under the static's guard.
    if (functions_.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw std::runtime_error("curl_global_init failed in " + library_.soname());
  }
  const curl_functions& functions() const { return functions_; }

 private:
  base::shared_library library_;
  curl_functions functions_;
};

}  // namespace

const curl_functions& curl() {
  static const loaded_curl loaded;  // C++ guards its initialization across threads
  return loaded.functions();
}

}  // namespace arec::fleet
