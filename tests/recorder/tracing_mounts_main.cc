// seer_tracing_mounts STATE [--deny-mount] REPORT COMMAND [ARGS...]
//
// Runs COMMAND in a private mount namespace where tracefs and debugfs are as
// STATE says (none, tracefs, debugfs; tests/recorder/tracing_mounts.h),
// whatever the machine has mounted, and without changing the machine's
// mounts. --deny-mount: COMMAND runs under a seccomp filter that makes
// mount(2) fail with EPERM, as a container runtime's default profile does
// (root keeps CAP_SYS_ADMIN, so it is the filter that refuses). After COMMAND
// exits, writes the namespace's tracefs and debugfs mounts ("TYPE MOUNTPOINT"
// lines) to REPORT, and exits with COMMAND's status.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "tests/recorder/tracing_mounts.h"

namespace {

bool DenyMount() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mount, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog = {sizeof filter / sizeof filter[0], filter};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  using seer::testing::TracingState;
  int arg = 1;
  TracingState state;
  if (argc < 4 || !seer::testing::ParseTracingState(argv[arg++], &state)) {
    fprintf(stderr, "usage: seer_tracing_mounts none|tracefs|debugfs [--deny-mount] REPORT COMMAND [ARGS...]\n");
    return 2;
  }
  const bool deny_mount = strcmp(argv[arg], "--deny-mount") == 0;
  if (deny_mount) ++arg;
  if (argc - arg < 2) {
    fprintf(stderr, "seer_tracing_mounts: give REPORT and COMMAND\n");
    return 2;
  }
  const char* report = argv[arg++];
  seer::Status st = seer::testing::EnterTracingMountNamespace(state);
  if (!st.ok()) {
    fprintf(stderr, "seer_tracing_mounts: %s\n", st.ToString().c_str());
    return 2;
  }
  const pid_t child = fork();
  if (child < 0) {
    perror("seer_tracing_mounts: fork");
    return 2;
  }
  if (child == 0) {
    if (deny_mount && !DenyMount()) {
      perror("seer_tracing_mounts: seccomp");
      _exit(2);
    }
    execvp(argv[arg], argv + arg);
    perror("seer_tracing_mounts: exec");
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::ofstream out(report);
  for (const std::string& m : seer::testing::TracingMounts()) out << m << "\n";
  if (!out.flush()) {
    fprintf(stderr, "seer_tracing_mounts: cannot write %s\n", report);
    return 2;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
