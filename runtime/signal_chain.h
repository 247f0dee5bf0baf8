// A signal the runtime handles itself (SIGTRAP, for the watchpoints): the
// runtime's handler stays installed, the program's handler for that signal is
// kept aside by the interposed sigaction() (interpose_signal.cc) and runs for
// every trap that is not the runtime's.
#pragma once

namespace seer::rt {

// Installs the runtime's SIGTRAP handler: WatchTrap first, then the program's
// handler (behind the trampoline, as for any signal), or the default action.
// False (errno set) when sigaction() refused. Installs once, however often called.
bool InstallRuntimeSigtrap();

// Gives SIGTRAP back to the program (the detach of an attached process): its
// disposition as it last gave it, or as it was before the install. False
// (errno set) when sigaction() refused; the runtime's handler stays then.
bool UninstallRuntimeSigtrap();

// libc's raise(), past the runtime's interposer (which records a signal a thread
// sends itself as synchronisation): for the runtime's own re-raise of a signal
// whose default action it lets run, from a handler (nothing may be recorded there).
int RaiseUnrecorded(int sig);

}  // namespace seer::rt
