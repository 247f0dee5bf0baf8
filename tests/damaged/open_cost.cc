// Prints what opening a trace costs: the LMDB structure check alone
// (CheckLmdbFile) and the whole TraceReader::Open (check, tables, checksum),
// three times each. The figures in docs/trace-format.md ("Damaged files") come
// from it: seer_trace_open_cost T.seer
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "seer/trace.h"
#include "store/lmdb_check.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: seer_trace_open_cost T.seer\n");
    return 2;
  }
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  struct stat st;
  if (stat(argv[1], &st) != 0) {
    std::perror(argv[1]);
    return 2;
  }
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    const int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
    seer::store::LmdbFileLayout layout;
    seer::Status check = seer::store::CheckLmdbFile(fd, static_cast<uint64_t>(st.st_size), &layout);
    close(fd);
    const auto t1 = std::chrono::steady_clock::now();
    std::unique_ptr<seer::TraceReader> reader;
    seer::Status open = seer::TraceReader::Open(argv[1], &reader);
    const auto t2 = std::chrono::steady_clock::now();
    if (!check.ok() || !open.ok()) {
      std::fprintf(stderr, "%s\n", (check.ok() ? open : check).ToString().c_str());
      return 2;
    }
    std::printf("check %.1f ms (%llu of %llu pages read), open %.1f ms\n", ms(t0, t1),
                static_cast<unsigned long long>(layout.pages_read),
                static_cast<unsigned long long>(layout.last_page + 1), ms(t1, t2));
  }
  return 0;
}
