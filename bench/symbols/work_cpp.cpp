// work_cpp: a C++ workload for bench/symbol_bytes. Spends ~1 s in its own templates and in
// libstdc++ (std::map, std::string, streams), so its recording has samples in several objects.
#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

volatile std::size_t sink;

[[gnu::noinline]] std::map<std::string, int> count_words(const std::vector<std::string>& words) {
  std::map<std::string, int> counts;
  for (const auto& w : words) ++counts[w];
  return counts;
}

[[gnu::noinline]] std::vector<std::string> make_words(unsigned seed) {
  std::vector<std::string> words;
  for (unsigned i = 0; i < 20000; ++i) {
    std::ostringstream text;
    text << "w" << ((i * 2654435761u) ^ seed) % 5000;
    words.push_back(text.str());
  }
  std::sort(words.begin(), words.end());
  return words;
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  unsigned seed = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(1)) {
    sink = sink + count_words(make_words(++seed)).size();
  }
  return 0;
}
