// seer's demo: a tiny multi-threaded "bank service" with three concurrency bugs,
// none of which fires in a normal run. `make demo` records one run and seer
// predicts all three from it. The lines marked DEMO-* are what the report names
// (tests/demo checks them).
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace {

// Bug 1, data race: handlers count requests without a lock; the stats thread
// reads the counter without one too.
long g_requests = 0;

struct Account {
  std::mutex mu;
  long balance = 100;
};
Account g_accounts[2];

void HandleRequest(int id) {
  g_requests = g_requests + 1;  // DEMO-RACE-WRITE
  (void)id;
}

void ReportStats() {
  std::printf("requests so far: %ld\n", g_requests);  // DEMO-RACE-READ
}

// Bug 2, lock-order inversion: transfer() locks the source account first, so two
// transfers in opposite directions can deadlock. In this run they are seconds
// apart, so it never does.
void Transfer(Account& from, Account& to, long amount) {
  std::lock_guard<std::mutex> a(from.mu);  // DEMO-DEADLOCK-FIRST
  std::lock_guard<std::mutex> b(to.mu);    // DEMO-DEADLOCK-SECOND
  from.balance -= amount;
  to.balance += amount;
}

// Bug 3, lost update: the interest is computed from a balance read under one
// hold of the lock and written under the next, so a correction in between is lost.
void AddInterest(Account& account) {
  long balance;
  {
    std::lock_guard<std::mutex> lock(account.mu);
    balance = account.balance;  // DEMO-ATOMICITY-READ
  }
  const long interest = balance / 100;
  {
    std::lock_guard<std::mutex> lock(account.mu);
    account.balance = balance + interest;  // DEMO-ATOMICITY-WRITE
  }
}

// An audit correction sets the balance.
void Correct(Account& account, long balance) {
  std::lock_guard<std::mutex> lock(account.mu);
  account.balance = balance;  // DEMO-ATOMICITY-REMOTE
}

void Pause(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

int main() {
  // Requests: handlers one after another in time, the stats thread later.
  std::vector<std::thread> handlers;
  for (int i = 0; i < 2; ++i)
    handlers.emplace_back([i] {
      Pause(20 * i);
      HandleRequest(i);
    });
  std::thread stats([] {
    Pause(60);
    ReportStats();
  });
  for (auto& t : handlers) t.join();
  stats.join();

  // Transfers in opposite directions, 200 ms apart.
  std::thread alice([] { Transfer(g_accounts[0], g_accounts[1], 10); });
  std::thread bob([] {
    Pause(200);
    Transfer(g_accounts[1], g_accounts[0], 5);
  });
  alice.join();
  bob.join();

  // Interest, then a correction once it is done.
  std::thread interest([] { AddInterest(g_accounts[0]); });
  std::thread teller([] {
    Pause(50);
    Correct(g_accounts[0], 50);
  });
  interest.join();
  teller.join();

  std::printf("balances: %ld %ld\n", g_accounts[0].balance, g_accounts[1].balance);
  return 0;
}
