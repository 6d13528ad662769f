// curl_library: the libcurl entry points http_client calls, loaded when the first client is
// made (base::shared_library), so that only `arec --push` maps libcurl and its dependencies.
// The types and constants still come from <curl/curl.h>; the ABI of libcurl.so.4 is stable.
#pragma once

#include <curl/curl.h>

namespace arec::fleet {

struct curl_functions {
  CURLcode (*global_init)(long flags) = nullptr;
  CURL* (*easy_init)() = nullptr;
  void (*easy_cleanup)(CURL* easy) = nullptr;
  void (*easy_reset)(CURL* easy) = nullptr;
  CURLcode (*easy_setopt)(CURL* easy, CURLoption option, ...) = nullptr;
  CURLcode (*easy_perform)(CURL* easy) = nullptr;
  CURLcode (*easy_getinfo)(CURL* easy, CURLINFO info, ...) = nullptr;
  const char* (*easy_strerror)(CURLcode code) = nullptr;
  curl_slist* (*slist_append)(curl_slist* list, const char* text) = nullptr;
  void (*slist_free_all)(curl_slist* list) = nullptr;
};

// libcurl, loaded and curl_global_init'ed once per process (thread-safe; a failed load is
// tried again by the next call). Throws std::runtime_error saying what is missing.
const curl_functions& curl();

}  // namespace arec::fleet
