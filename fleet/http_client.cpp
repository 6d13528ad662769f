#include "fleet/http_client.hpp"

#include <curl/curl.h>

#include <mutex>
#include <stdexcept>

namespace arec::fleet {
namespace {

// curl_global_init is not thread-safe and must run once before any handle exists.
void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw std::runtime_error("curl_global_init failed");
    }
  });
}

struct header_list {
  curl_slist* list = nullptr;
  ~header_list() { curl_slist_free_all(list); }
  void add(const std::string& header) {
    curl_slist* grown = curl_slist_append(list, header.c_str());
    if (grown == nullptr) throw std::bad_alloc();
    list = grown;
  }
};

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

int check_abort(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load() ? 1 : 0;
}

}  // namespace

struct http_client::curl_handle {
  CURL* easy = nullptr;
  ~curl_handle() { curl_easy_cleanup(easy); }
};

http_client::http_client(http_timeouts timeouts, const std::atomic<bool>& abort)
    : handle_(std::make_unique<curl_handle>()), timeouts_(timeouts), abort_(abort) {
  init_curl_once();
  handle_->easy = curl_easy_init();
  if (handle_->easy == nullptr) throw std::runtime_error("curl_easy_init failed");
}

http_client::~http_client() = default;

http_response http_client::post(const std::string& url, const std::vector<std::string>& headers,
                                std::string_view body, const std::string& user,
                                const std::string& password) {
  CURL* easy = handle_->easy;
  curl_easy_reset(easy);  // keeps the connection cache, forgets the last request's options
  header_list list;
  for (const std::string& header : headers) list.add(header);
  list.add("Expect:");  // no 100-continue round trip before a large body
  http_response response;
  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_POST, 1L);
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, list.list);
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeouts_.connect.count()));
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(timeouts_.whole.count()));
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: we are a thread
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, check_abort);
  curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &abort_);
  curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
  if (!user.empty()) {
    curl_easy_setopt(easy, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(easy, CURLOPT_USERNAME, user.c_str());
    curl_easy_setopt(easy, CURLOPT_PASSWORD, password.c_str());
  }
  CURLcode result = curl_easy_perform(easy);
  if (result != CURLE_OK) {
    response.error = curl_easy_strerror(result);
    if (error[0] != '\0') response.error += std::string(": ") + error;
    response.body.clear();
    return response;
  }
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace arec::fleet
