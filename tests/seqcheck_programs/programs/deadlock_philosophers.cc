// Five dining philosophers, each taking the fork on its left, then the one on its
// right: the classic cycle through all five threads and all five forks. They eat
// one after another in time, so this run completes; if all five picked up their
// left fork at once, none could take its right one.
// seer-record: ebpf inproc
// seer-deadlock: table threads=5
#include <array>
#include <mutex>
#include <thread>
#include <vector>

#include "order.h"

namespace {

constexpr int kPhilosophers = 5;
std::array<std::mutex, kPhilosophers> forks;
std::array<long, kPhilosophers> meals;

void Dine(int i) {
  sleep_ms(i * STAGGER_MS);
  std::mutex& left = forks[i];
  std::mutex& right = forks[(i + 1) % kPhilosophers];
  for (int round = 0; round < 2; ++round) {
    std::lock_guard<std::mutex> hold_left(left);    // DEADLOCK(table) held
    std::lock_guard<std::mutex> hold_right(right);  // DEADLOCK(table) blocked
    meals[i]++;
  }
}

}  // namespace

int main() {
  start_watchdog();
  std::vector<std::thread> table;
  for (int i = 0; i < kPhilosophers; ++i) table.emplace_back(Dine, i);
  for (std::thread& t : table) t.join();
  return 0;
}
