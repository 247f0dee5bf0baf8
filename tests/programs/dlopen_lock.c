/* Loads a library with dlopen after the start (argv[1], or libdlopen_plugin.so next
 * to this program) and calls its plugin_work(), which takes a lock 5 times. Then
 * it lingers 300 ms: the recorder reads /proc/PID/maps when it sees the mapping. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  char path[PATH_MAX];
  if (argc > 1) {
    snprintf(path, sizeof(path), "%s", argv[1]);
  } else {
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0) return 2;
    path[n] = 0;
    char* slash = strrchr(path, '/');
    snprintf(slash + 1, sizeof(path) - (size_t)(slash + 1 - path), "libdlopen_plugin.so");
  }
  void* lib = dlopen(path, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "dlopen_lock: %s\n", dlerror());
    return 2;
  }
  void (*work)(void) = (void (*)(void))dlsym(lib, "plugin_work");
  if (!work) return 2;
  work();
  usleep(300000);
  return 0;
}
