// http_client: one HTTP/1.1 POST at a time through libcurl, with a connect timeout, a timeout on
// the whole request, and an abort flag that ends a transfer early (used at shutdown). The
// connection is kept between posts, as a push every 15 s would otherwise connect every time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace arec::fleet {

struct http_response {
  long status = 0;    // the HTTP status; 0 when no answer came
  std::string body;   // the answer's body (a Connect error's JSON), its first max_kept_body bytes
  std::string error;  // when status is 0: why ("Couldn't connect to server: ...")
  std::string location;     // a redirect's target (3xx), which is never followed
  std::string retry_after;  // the Retry-After header's value, when there is one
};

struct http_timeouts {
  std::chrono::milliseconds connect{5'000};
  std::chrono::milliseconds whole{30'000};
};

class http_client {
 public:
  // What is kept of an answer's body: a Connect error is a few hundred bytes; a server or proxy
  // answering megabytes must not grow arec. The transfer ends there.
  static constexpr std::size_t max_kept_body = 64 * 1024;

  // `abort` is read during transfers; when it becomes true the transfer ends with an error.
  http_client(http_timeouts timeouts, const std::atomic<bool>& abort);
  ~http_client();
  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;

  // POSTs `body` to `url` with `headers` ("Name: value" each) and basic auth when `user` is not
  // empty. Never throws for network failures: they come back in http_response::error.
  http_response post(const std::string& url, const std::vector<std::string>& headers,
                     std::string_view body, const std::string& user = {},
                     const std::string& password = {});

 private:
  struct curl_handle;
  std::unique_ptr<curl_handle> handle_;
  http_timeouts timeouts_;
  const std::atomic<bool>& abort_;
};

}  // namespace arec::fleet
