// An account whose methods lock a std::recursive_mutex, so that one method may
// call another; its audit step also takes the log's mutex. A logger thread holds
// the log's mutex and asks the account for its balance. The cycle account -> log
// -> account goes through the recursive mutex, which the depositing thread holds
// twice: only its outermost acquisition takes it (the nested one cannot block),
// and a deadlock report must name that one as held.
// seer-record: ebpf inproc
// seer-deadlock: audit threads=2
#include <mutex>
#include <thread>

#include "order.h"

namespace {

std::mutex log_mutex;
long log_lines;

class Account {
 public:
  void Deposit(long amount) {
    std::lock_guard<std::recursive_mutex> hold(mu_);  // DEADLOCK(audit) held
    balance_ += amount;
    Audit();
  }

  long Balance() {
    std::lock_guard<std::recursive_mutex> hold(mu_);  // DEADLOCK(audit) blocked
    return balance_;
  }

 private:
  void Audit() {
    std::lock_guard<std::recursive_mutex> again(mu_);  // nested: this thread holds it already
    std::lock_guard<std::mutex> log(log_mutex);        // DEADLOCK(audit) blocked
    log_lines++;
  }

  std::recursive_mutex mu_;
  long balance_ = 0;
};

Account account;
long logged_balance;

void Depositor() { account.Deposit(10); }

void Logger() {
  sleep_ms(STAGGER_MS);
  std::lock_guard<std::mutex> hold(log_mutex);  // DEADLOCK(audit) held
  logged_balance = account.Balance();
}

}  // namespace

int main() {
  start_watchdog();
  std::thread depositor(Depositor), logger(Logger);
  depositor.join();
  logger.join();
  return 0;
}
