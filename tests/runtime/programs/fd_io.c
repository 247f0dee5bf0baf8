/* File descriptors in one thread, for the exact events of runtime/interpose_fd.cc:
   a pipe (its two ends made, one byte written and read), a socketpair (send,
   recv), a dup2 onto the pipe's write end, and the closes; the buffers are
   named in the manifest. Built with seer-cc and plain (preloaded runtime). */
#include <sys/socket.h>
#include <unistd.h>

#include "manifest.h"

char out_buf[12] = "hello pipe!";
char in_buf[16];
char sock_out[5] = "ping";
char sock_in[8];

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  manifest_open(argv[1]);
  int p[2], s[2];
  if (pipe(p) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, s) != 0) return 1;
  manifest_put("pipe_r", (void*)(long)p[0]);
  manifest_put("pipe_w", (void*)(long)p[1]);
  manifest_put("sock_a", (void*)(long)s[0]);
  manifest_put("sock_b", (void*)(long)s[1]);
  manifest_put("out_buf", out_buf);
  manifest_put("in_buf", in_buf);
  manifest_put("sock_out", sock_out);
  manifest_put("sock_in", sock_in);
  if (write(p[1], out_buf, 12) != 12) return 1;
  if (read(p[0], in_buf, sizeof in_buf) != 12) return 1;
  if (send(s[0], sock_out, 5, 0) != 5) return 1;
  if (recv(s[1], sock_in, sizeof sock_in, 0) != 5) return 1;
  if (dup2(s[0], p[1]) != p[1]) return 1;
  close(p[0]);
  close(p[1]);
  close(s[0]);
  close(s[1]);
  return 0;
}
