#include "record/session/control_channel.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "base/usage_error.hpp"
#include "host/control_fd.hpp"
#include "io/output_path.hpp"

namespace arec::record {
namespace {

// strtoul with base 0, as perf reads fd numbers; nullopt when no digit was read or the
// number is no descriptor. `end` is where the number stopped.
std::optional<int> read_fd_number(const std::string& text, std::size_t from, std::size_t& end) {
  const char* start = text.c_str() + from;
  char* stop = nullptr;
  errno = 0;
  unsigned long value = std::strtoul(start, &stop, 0);
  end = from + static_cast<std::size_t>(stop - start);
  if (stop == start || errno != 0 || value > static_cast<unsigned long>(INT_MAX))
    return std::nullopt;  // perf would take "-1" as a huge number: no descriptor either way
  return static_cast<int>(value);
}

std::optional<control_spec> parse_fd_spec(const std::string& text) {
  control_spec spec;
  std::size_t end = 0;
  std::optional<int> control = read_fd_number(text, 3, end);
  if (!control) return std::nullopt;
  spec.control_fd = *control;
  std::size_t comma = text.find(',');
  // Without a comma perf ignores what follows the number; with one, both must be whole.
  if (comma == std::string::npos) return spec;
  if (end != comma) return std::nullopt;
  std::optional<int> ack = read_fd_number(text, comma + 1, end);
  if (!ack || end != text.size()) return std::nullopt;
  spec.ack_fd = *ack;
  return spec;
}

constexpr std::size_t max_command_bytes = 63;  // perf's EVLIST_CTL_CMD_MAX_LEN, less its NUL

// A command as it may be shown on a terminal: bytes other than printable ASCII as \xHH.
std::string printable(std::string_view text) {
  std::string shown;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      shown.push_back(c);
      continue;
    }
    constexpr char digits[] = "0123456789abcdef";
    shown += "\\x";
    shown.push_back(digits[byte >> 4]);
    shown.push_back(digits[byte & 0xf]);
  }
  return shown;
}

}  // namespace

std::optional<control_spec> parse_control_spec(std::string_view text) {
  if (text.starts_with("fd:")) return parse_fd_spec(std::string(text));
  if (!text.starts_with("fifo:")) return std::nullopt;
  text.remove_prefix(5);
  if (text.empty() || text.front() == ',') return std::nullopt;
  control_spec spec;
  spec.fifo = true;
  std::size_t comma = text.find(',');
  spec.control_path = std::string(text.substr(0, comma));
  if (comma != std::string_view::npos) spec.ack_path = std::string(text.substr(comma + 1));
  return spec;
}

std::vector<std::string> split_control_commands(std::string_view bytes) {
  std::vector<std::string> commands;
  std::string current;
  auto finish = [&] {
    if (!current.empty()) commands.push_back(std::move(current));
    current.clear();
  };
  for (char c : bytes) {
    if (c == '\n' || c == '\0') {
      finish();
      continue;
    }
    current.push_back(c);
    if (current.size() == max_command_bytes) finish();
  }
  finish();
  return commands;
}

control_command parse_control_command(std::string_view text) {
  struct verb_name {
    std::string_view name;
    control_verb verb;
    bool takes_argument;
  };
  // perf's order of comparison: "disable" is tried after "enable", and so on.
  constexpr verb_name verbs[] = {
      {"enable", control_verb::enable, true},      {"disable", control_verb::disable, true},
      {"snapshot", control_verb::snapshot, false}, {"evlist", control_verb::evlist, true},
      {"stop", control_verb::stop, false},         {"ping", control_verb::ping, false},
  };
  for (const verb_name& known : verbs) {
    if (!text.starts_with(known.name)) continue;
    control_command command{.verb = known.verb};
    std::string_view rest = text.substr(known.name.size());
    if (!known.takes_argument || rest.empty()) return command;
    if (rest.front() == ' ')
      command.argument = std::string(rest.substr(1));
    else
      command.malformed = true;
    return command;
  }
  return {};
}

bool carry_out(const control_command& command, const control_actions& actions) {
  switch (command.verb) {
    case control_verb::enable:
    case control_verb::disable: {
      bool on = command.verb == control_verb::enable;
      const char* done = on ? "enabled" : "disabled";
      if (command.malformed) {
        actions.say("arec: failed: wrong command");
      } else if (!command.argument) {
        actions.sample_all(on);
        actions.say(std::string("arec: events ") + done);
      } else if (actions.sample_one(*command.argument, on)) {
        actions.say("arec: event " + *command.argument + " " + done);
      } else {
        actions.say("arec: failed: can't find '" + *command.argument + "' event");
      }
      return true;
    }
    case control_verb::evlist: {
      char detail = 0;
      if (command.argument == "-v") detail = 'v';
      if (command.argument == "-g") detail = 'g';
      if (command.argument == "-F") detail = 'F';
      if (command.malformed || (command.argument && detail == 0))
        actions.say("arec: failed: wrong command");
      else
        actions.list_events(detail);
      return true;
    }
    case control_verb::stop:
      actions.stop();
      return true;
    case control_verb::snapshot:
      // Returns once the snapshot's file is written, so the ack says it is there (perf 6.1
      // takes none from overwrite rings and acks at once).
      if (actions.snapshot) actions.snapshot();
      return true;
    case control_verb::ping:
      return true;
    case control_verb::unsupported:
      break;
  }
  return false;
}

std::string unknown_commands::note(std::string_view text) {
  if (said_enough_ || std::find(said_.begin(), said_.end(), text) != said_.end()) return "";
  if (said_.size() == max_said) {
    said_enough_ = true;
    return "arec: --control: more unknown commands came; they are ignored without a word";
  }
  said_.emplace_back(text);
  return "arec: --control: unknown command '" + printable(text) +
         "' ignored and not acknowledged, as perf does (the commands are enable, disable, "
         "snapshot, evlist, stop and ping)";
}

control_channel control_channel::open(const control_spec& spec,
                                      const std::function<void(const std::string&)>& say) {
  control_channel channel;
  if (!spec.fifo) {
    channel.name_ = "--control fd " + std::to_string(spec.control_fd);
    if (host::is_open_fd(spec.control_fd))
      channel.control_fd_ = spec.control_fd;
    else
      say("arec: warning: --control: fd " + std::to_string(spec.control_fd) +
          " is not open: no command can arrive");
    channel.ack_fd_ = spec.ack_fd;
    return channel;
  }
  auto open_fifo = [](const std::string& path) {
    try {
      return host::open_control_fifo(path);
    } catch (const std::system_error& error) {
      throw base::usage_error("--control: Failed to open '" + path +
                              "': " + std::strerror(error.code().value()));
    }
  };
  channel.name_ = "--control fifo " + spec.control_path;
  channel.owned_control_ = open_fifo(spec.control_path);
  channel.control_fd_ = channel.owned_control_.get();
  if (!spec.ack_path.empty()) {
    channel.owned_ack_ = open_fifo(spec.ack_path);
    channel.ack_fd_ = channel.owned_ack_.get();
  }
  return channel;
}

control_channel::control_channel(control_channel&&) noexcept = default;
control_channel::~control_channel() = default;

void control_channel::serve(const async::executor& on, control_actions actions) {
  if (control_fd_ < 0) return;
  actions_ = std::move(actions);
  readable_ = std::make_unique<async::readiness>(on, control_fd_);
  async::spawn_detached(on, serve_loop());
}

// The fd is watched edge-triggered (Asio's epoll reactor): a wakeup that comes while no wait is
// queued is lost. Every wait is therefore preceded, with no suspension in between, by reading
// everything there is: the loop's thread cannot poll epoll between the two, so bytes that
// arrive after the read leave their wakeup for the wait that follows.
async::task<void> control_channel::serve_loop() {
  bool open = take_commands();
  while (open) {
    bool woken = co_await readable_->readable();
    if (!woken) co_return;  // cancelled, or an fd epoll cannot watch (read once, above)
    open = take_commands();
  }
  co_return;
}

bool control_channel::take_commands() {
  std::string bytes;
  bool open = true;
  try {
    open = host::read_available(control_fd_, bytes, name_);
  } catch (const std::system_error& error) {
    actions_.say(std::string("arec: ") + error.what());
    open = false;
  }
  for (const std::string& text : split_control_commands(bytes)) {
    control_command command = parse_control_command(text);
    if (carry_out(command, actions_))
      acknowledge();
    else if (std::string line = unknown_.note(text); !line.empty())
      actions_.say(line);
    if (command.verb == control_verb::stop) return false;  // what follows is not read, as in perf
  }
  return open;
}

void control_channel::acknowledge() {
  if (ack_fd_ < 0 || ack_failed_) return;
  try {
    io::write_all(ack_fd_, std::as_bytes(std::span(control_ack.data(), control_ack.size())),
                  "--control ack fd " + std::to_string(ack_fd_));
  } catch (const std::system_error& error) {
    ack_failed_ = true;  // said once: a reader that went away stays away
    actions_.say(std::string("arec: ") + error.what());
  }
}

}  // namespace arec::record
