// Cost of seer's sync probe against an empty uprobe on the same functions, in one
// run: a child process runs N pthread_mutex_lock/unlock pairs natively, under an
// empty BPF uprobe on both functions, and under seer's probes (ring buffer drained
// by this process), and reports ns per call for each.
#include <bpf/libbpf.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>

#include "recorder/ebpf/sync_probes.h"
#include "recorder/elf_file.h"
#include "recorder/proc_maps.h"
#include "seer_empty.skel.h"

namespace {

pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// A child that, each time it reads a byte, runs `pairs` lock/unlock pairs and
// writes back the elapsed seconds.
struct Worker {
  pid_t pid = 0;
  int to_child = -1, from_child = -1;

  void Start(long pairs) {
    int a[2], b[2];
    if (pipe(a) != 0 || pipe(b) != 0) exit(2);
    pid = fork();
    if (pid == 0) {
      close(a[1]);
      close(b[0]);
      char c;
      while (read(a[0], &c, 1) == 1) {
        double t0 = Now();
        for (long i = 0; i < pairs; ++i) {
          pthread_mutex_lock(&g_mu);
          pthread_mutex_unlock(&g_mu);
        }
        double dt = Now() - t0;
        if (write(b[1], &dt, sizeof(dt)) != sizeof(dt)) _exit(1);
      }
      _exit(0);
    }
    close(a[0]);
    close(b[1]);
    to_child = a[1];
    from_child = b[0];
  }

  double Run() {
    char c = 1;
    double dt = 0;
    if (write(to_child, &c, 1) != 1 || read(from_child, &dt, sizeof(dt)) != sizeof(dt)) exit(2);
    return dt;
  }

  void Stop() {
    close(to_child);
    waitpid(pid, nullptr, 0);
  }
};

}  // namespace

int main(int argc, char** argv) {
  long pairs = argc > 1 ? atol(argv[1]) : 200000;
  std::vector<seer::recorder::Mapping> maps;
  if (!seer::recorder::ReadProcMaps(getpid(), &maps).ok()) return 2;
  const seer::recorder::Mapping* libc = seer::recorder::FindMappedFile(maps, "libc.so");
  if (!libc) return 2;
  std::map<std::string, seer::recorder::FunctionLocation> where;
  if (!seer::recorder::ResolveFunctions(libc->path, {"pthread_mutex_lock", "pthread_mutex_unlock"}, &where).ok())
    return 2;

  Worker w;
  w.Start(pairs);
  w.Run();  // warm up
  double native = w.Run();

  // Empty uprobe on both functions.
  seer_empty_bpf* empty = seer_empty_bpf__open_and_load();
  if (!empty) {
    fprintf(stderr, "cannot load the empty probe (root needed)\n");
    return 2;
  }
  std::vector<bpf_link*> links;
  for (const char* fn : {"pthread_mutex_lock", "pthread_mutex_unlock"})
    links.push_back(
        bpf_program__attach_uprobe(empty->progs.empty_enter, false, w.pid, libc->path.c_str(), where[fn].file_offset));
  double with_empty = w.Run();
  for (bpf_link* l : links) bpf_link__destroy(l);
  seer_empty_bpf__destroy(empty);

  // seer's probes, drained by a thread of this process.
  seer::recorder::SyncProbes probes;
  seer::Status st = probes.Open(w.pid, libc->path, 64u << 20);
  if (!st.ok()) {
    fprintf(stderr, "%s\n", st.ToString().c_str());
    return 2;
  }
  std::atomic<bool> done{false};
  std::atomic<uint64_t> records{0};
  std::thread drain([&] {
    auto count = [&](const sync_event&) { records.fetch_add(1, std::memory_order_relaxed); };
    while (!done.load()) {
      if (!probes.Poll(10, count).ok()) break;
    }
    if (!probes.Poll(0, count).ok()) return;
  });
  double with_seer = w.Run();
  done = true;
  drain.join();
  uint64_t lost = 0;
  for (uint64_t n : probes.Lost()) lost += n;
  probes.Close();
  w.Stop();

  double calls = 2.0 * static_cast<double>(pairs);
  double native_ns = native / calls * 1e9;
  double empty_ns = (with_empty - native) / calls * 1e9;
  double seer_ns = (with_seer - native) / calls * 1e9;
  printf("pairs                 %ld (lock+unlock = 2 probed calls each)\n", pairs);
  printf("native                %.1f ns/call\n", native_ns);
  printf("empty uprobe          +%.0f ns/call\n", empty_ns);
  printf("seer probe            +%.0f ns/call (records %llu, lost %llu)\n", seer_ns,
         static_cast<unsigned long long>(records.load()), static_cast<unsigned long long>(lost));
  printf("seer / empty          %.2fx\n", seer_ns / empty_ns);
  return 0;
}
