#include "fleet/http_client.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "fleet/curl_library.hpp"

namespace arec::fleet {
namespace {

struct header_list {
  const curl_functions& api;
  curl_slist* list = nullptr;
  ~header_list() { api.slist_free_all(list); }
  void add(const std::string& header) {
    curl_slist* grown = api.slist_append(list, header.c_str());
    if (grown == nullptr) throw std::bad_alloc();
    list = grown;
  }
};

// The body kept of an answer, up to http_client::max_kept_body: past it the transfer ends
// (returning less than was given makes libcurl stop with CURLE_WRITE_ERROR).
struct body_sink {
  std::string body;
  bool full = false;
};

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& sink = *static_cast<body_sink*>(user);
  std::size_t given = size * count;
  std::size_t room = http_client::max_kept_body - sink.body.size();
  sink.body.append(data, std::min(given, room));
  if (given <= room) return given;
  sink.full = true;
  return 0;
}

// Keeps the Retry-After header's value (bounded: it is a number or a date) from the header lines
// libcurl hands over one at a time.
std::size_t keep_retry_after(char* data, std::size_t size, std::size_t count, void* user) {
  constexpr std::string_view name = "retry-after:";
  std::string_view line(data, size * count);
  if (line.size() > name.size() && line.size() < name.size() + 128) {
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(line[i])) == name[i];
    if (same) *static_cast<std::string*>(user) = std::string(line.substr(name.size()));
  }
  return size * count;
}

int check_abort(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load() ? 1 : 0;
}

}  // namespace

struct http_client::curl_handle {
  const curl_functions& api = curl();  // loads libcurl the first time
  CURL* easy = nullptr;
  ~curl_handle() { api.easy_cleanup(easy); }
};

http_client::http_client(http_timeouts timeouts, const std::atomic<bool>& abort)
    : handle_(std::make_unique<curl_handle>()), timeouts_(timeouts), abort_(abort) {
  handle_->easy = handle_->api.easy_init();
  if (handle_->easy == nullptr) throw std::runtime_error("curl_easy_init failed");
}

http_client::~http_client() = default;

http_response http_client::post(const std::string& url, const std::vector<std::string>& headers,
                                std::string_view body, const std::string& user,
                                const std::string& password) {
  const curl_functions& api = handle_->api;
  CURL* easy = handle_->easy;
  api.easy_reset(easy);  // keeps the connection cache, forgets the last request's options
  header_list list{api};
  for (const std::string& header : headers) list.add(header);
  list.add("Expect:");  // no 100-continue round trip before a large body
  http_response response;
  body_sink sink;
  char error[CURL_ERROR_SIZE] = {};
  api.easy_setopt(easy, CURLOPT_URL, url.c_str());
  api.easy_setopt(easy, CURLOPT_POST, 1L);
  api.easy_setopt(easy, CURLOPT_POSTFIELDS, body.data());
  api.easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  api.easy_setopt(easy, CURLOPT_HTTPHEADER, list.list);
  api.easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  api.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeouts_.connect.count()));
  api.easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(timeouts_.whole.count()));
  api.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: we are a thread
  api.easy_setopt(easy, CURLOPT_WRITEFUNCTION, append_body);
  api.easy_setopt(easy, CURLOPT_WRITEDATA, &sink);
  api.easy_setopt(easy, CURLOPT_HEADERFUNCTION, keep_retry_after);
  api.easy_setopt(easy, CURLOPT_HEADERDATA, &response.retry_after);
  api.easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, check_abort);
  api.easy_setopt(easy, CURLOPT_XFERINFODATA, &abort_);
  api.easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
  api.easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
  if (!user.empty()) {
    api.easy_setopt(easy, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    api.easy_setopt(easy, CURLOPT_USERNAME, user.c_str());
    api.easy_setopt(easy, CURLOPT_PASSWORD, password.c_str());
  }
  CURLcode result = api.easy_perform(easy);
  if (result != CURLE_OK && !(result == CURLE_WRITE_ERROR && sink.full)) {
    response.error = api.easy_strerror(result);
    if (error[0] != '\0') response.error += std::string(": ") + error;
    return response;
  }
  api.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response.status);
  // Where a redirect points, for the message: following it would send the token and the
  // profiles wherever an answer says.
  const char* location = nullptr;
  if (api.easy_getinfo(easy, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location != nullptr)
    response.location = location;
  response.body = std::move(sink.body);
  return response;
}

}  // namespace arec::fleet
