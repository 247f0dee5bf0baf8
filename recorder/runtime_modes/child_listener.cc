#include "recorder/runtime_modes/child_listener.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "seer/ring_layout.h"

namespace seer::recorder {

ChildListener::~ChildListener() {
  if (fd_ >= 0) close(fd_);
  if (!path_.empty()) unlink(path_.c_str());
  if (!dir_.empty()) rmdir(dir_.c_str());
}

Status ChildListener::Open(uid_t owner) {
  const char* tmp = getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") + "/seer-record.XXXXXX";
  // mkdtemp makes it 0700: no other user can connect and write into a trace.
  if (mkdtemp(dir.data()) == nullptr)
    return Status::IOError("cannot create a directory for the processes' socket in " + dir + ": " + strerror(errno));
  dir_ = dir;
  path_ = dir_ + "/children";
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path_.size() >= sizeof addr.sun_path)
    return Status::InvalidArgument("TMPDIR is too long for a unix socket path: " + path_);
  memcpy(addr.sun_path, path_.c_str(), path_.size());
  fd_ = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) return Status::IOError(std::string("socket: ") + strerror(errno));
  if (bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || listen(fd_, 64) != 0) {
    const int err = errno;
    path_.clear();
    return Status::IOError("cannot listen on " + dir_ + "/children: " + strerror(err));
  }
  if (owner != static_cast<uid_t>(-1) && owner != geteuid() &&
      (chown(dir_.c_str(), owner, static_cast<gid_t>(-1)) != 0 ||
       chown(path_.c_str(), owner, static_cast<gid_t>(-1)) != 0))
    return Status::IOError("cannot give " + dir_ + " to user " + std::to_string(owner) + ": " + strerror(errno));
  return Status::Ok();
}

bool ChildListener::Next(ChildAsk* ask) {
  while (fd_ >= 0) {
    const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return false;  // EAGAIN: nobody is asking
    // The request follows the connect at once; a process that connected and
    // sends nothing within a second is not a runtime.
    pollfd p = {c, POLLIN, 0};
    rt::ChildRequest request = {};
    ucred cred = {};
    socklen_t cred_len = sizeof cred;
    const bool valid = poll(&p, 1, 1000) == 1 && recv(c, &request, sizeof request, 0) == sizeof request &&
                       request.magic == rt::kChildMagic && request.version == rt::kShmVersion &&
                       (request.how == rt::kChildForked || request.how == rt::kChildExeced) &&
                       getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) == 0 && cred.pid > 0;
    if (!valid) {
      close(c);
      continue;
    }
    ask->fd = c;
    ask->pid = cred.pid;
    ask->parent = static_cast<pid_t>(request.parent);
    ask->forked = request.how == rt::kChildForked;
    return true;
  }
  return false;
}

Status ChildListener::Answer(ChildAsk* ask, int area_fd) {
  char yes = 1;
  iovec iov = {&yes, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &area_fd, sizeof area_fd);
  const ssize_t sent = sendmsg(ask->fd, &msg, MSG_NOSIGNAL);
  const int err = errno;
  close(ask->fd);
  ask->fd = -1;
  if (sent != 1)
    return Status::IOError("process " + std::to_string(ask->pid) + " did not take its rings: " + strerror(err));
  return Status::Ok();
}

void ChildListener::Refuse(ChildAsk* ask) {
  close(ask->fd);
  ask->fd = -1;
}

}  // namespace seer::recorder
