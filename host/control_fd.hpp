// control_fd: the system calls behind --control (record/session/control_channel): opening its
// fifos, and reading a command fd without ever blocking the control thread.
#pragma once

#include <string>

#include "io/unique_fd.hpp"

namespace arec::host {

// Opens a --control fifo read-write and non-blocking, as perf does: neither end waits for the
// other to open, and the controlling process may open and close its end again and again
// without the fifo ever reading as hung up. Throws std::system_error ("open PATH: ...").
io::unique_fd open_control_fifo(const std::string& path);

// Whether `fd` is an open descriptor (fd:N names one arec inherited).
bool is_open_fd(int fd);

// Appends to `into` whatever `fd` holds now, without waiting and without changing the fd's
// flags (an inherited fd's are its parent's too). Returns false once the fd reached its end
// (every writer of a pipe is gone). Throws std::system_error naming `name` on a read error.
bool read_available(int fd, std::string& into, const std::string& name);

}  // namespace arec::host
