// ThreadSanitizer annotations for Debian's prebuilt Abseil (--config=tsan).
//
// libabsl_synchronization is not built with -fsanitize=thread, so TSan
// cannot see absl::Mutex acquire and release memory: every field guarded
// by a Mutex would be reported as a race. This file, linked into every
// binary only under --config=tsan, interposes the Mutex entry points the
// dynamic linker resolves (the executable's definitions win over the
// shared library's), tells TSan about the lock operation and calls the
// real function found with dlsym(RTLD_NEXT). Nothing here is built into a
// normal or shipped binary.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

extern "C" {
void __tsan_mutex_pre_lock(void* addr, unsigned flags);
void __tsan_mutex_post_lock(void* addr, unsigned flags, int recursion);
int __tsan_mutex_pre_unlock(void* addr, unsigned flags);
void __tsan_mutex_post_unlock(void* addr, unsigned flags);
void __tsan_acquire(void* addr);
void __tsan_release(void* addr);
}

namespace {

// Flags from <sanitizer/tsan_interface.h>.
constexpr unsigned kReadLock = 1 << 3;
constexpr unsigned kTryLock = 1 << 4;
constexpr unsigned kTryLockFailed = 1 << 5;

#define TOOLGATE_STR2(x) #x
#define TOOLGATE_STR(x) TOOLGATE_STR2(x)

// The Itanium-mangled name of absl::<inline ns>::<class>::<method>;
// `klass` is the mangled class name ("5Mutex", "7CondVar").
// `qualifiers` is "K" for a const method.
template <typename Fn>
Fn Real(const char* method_mangled, const char* klass = "5Mutex",
        const char* qualifiers = "") {
  const char* ns = TOOLGATE_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string name = std::string("_ZN") + qualifiers + "4absl" +
                           std::to_string(std::strlen(ns)) + ns + klass +
                           method_mangled;
  void* fn = dlsym(RTLD_NEXT, name.c_str());
  if (fn == nullptr) {
    std::fprintf(stderr, "absl_mutex_tsan: %s not found\n", name.c_str());
    std::abort();
  }
  return reinterpret_cast<Fn>(fn);
}

using VoidFn = void (*)(absl::Mutex*);
using BoolFn = bool (*)(absl::Mutex*);
using WhenFn = void (*)(absl::Mutex*, const absl::Condition&);
template <typename T>
using WhenForFn = bool (*)(absl::Mutex*, const absl::Condition&, T);
template <typename T>
using WaitForFn = bool (*)(absl::CondVar*, absl::Mutex*, T);

// A wait releases and re-acquires `mu` inside the uninstrumented library:
// TSan must see both, or the next thread to lock `mu` is a "double lock"
// (gRPC's threads wait on absl::CondVar through gpr_cv_wait).
// Only the outermost one annotates: the library's own calls between these
// entry points (WaitWithTimeout calls WaitWithDeadline) are interposed too.
thread_local int wait_depth = 0;

void AnnotateRelease(absl::Mutex* mu) {
  if (wait_depth++ > 0) return;
  __tsan_mutex_pre_unlock(mu, 0);
  __tsan_mutex_post_unlock(mu, 0);
}
void AnnotateAcquire(absl::Mutex* mu) {
  if (--wait_depth > 0) return;
  __tsan_mutex_pre_lock(mu, 0);
  __tsan_mutex_post_lock(mu, 0, 0);
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static const VoidFn real = Real<VoidFn>("4LockEv");
  __tsan_mutex_pre_lock(this, 0);
  real(this);
  __tsan_mutex_post_lock(this, 0, 0);
}

void Mutex::ReaderLock() {
  static const VoidFn real = Real<VoidFn>("10ReaderLockEv");
  __tsan_mutex_pre_lock(this, kReadLock);
  real(this);
  __tsan_mutex_post_lock(this, kReadLock, 0);
}

bool Mutex::TryLock() {
  static const BoolFn real = Real<BoolFn>("7TryLockEv");
  __tsan_mutex_pre_lock(this, kTryLock);
  const bool locked = real(this);
  __tsan_mutex_post_lock(this, kTryLock | (locked ? 0 : kTryLockFailed), 0);
  return locked;
}

bool Mutex::ReaderTryLock() {
  static const BoolFn real = Real<BoolFn>("13ReaderTryLockEv");
  const unsigned flags = kReadLock | kTryLock;
  __tsan_mutex_pre_lock(this, flags);
  const bool locked = real(this);
  __tsan_mutex_post_lock(this, flags | (locked ? 0 : kTryLockFailed), 0);
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  static const WhenFn real = Real<WhenFn>("8LockWhenERKNS0_9ConditionE");
  __tsan_mutex_pre_lock(this, 0);
  real(this, cond);
  __tsan_mutex_post_lock(this, 0, 0);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  static const WhenFn real = Real<WhenFn>("14ReaderLockWhenERKNS0_9ConditionE");
  __tsan_mutex_pre_lock(this, kReadLock);
  real(this, cond);
  __tsan_mutex_post_lock(this, kReadLock, 0);
}

void Mutex::Unlock() {
  static const VoidFn real = Real<VoidFn>("6UnlockEv");
  __tsan_mutex_pre_unlock(this, 0);
  real(this);
  __tsan_mutex_post_unlock(this, 0);
}

void Mutex::ReaderUnlock() {
  static const VoidFn real = Real<VoidFn>("12ReaderUnlockEv");
  __tsan_mutex_pre_unlock(this, kReadLock);
  real(this);
  __tsan_mutex_post_unlock(this, kReadLock);
}

void Mutex::Await(const Condition& cond) {
  static const WhenFn real = Real<WhenFn>("5AwaitERKNS0_9ConditionE");
  AnnotateRelease(this);
  real(this, cond);
  AnnotateAcquire(this);
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  static const auto real = Real<WhenForFn<Duration>>(
      "16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  AnnotateRelease(this);
  const bool met = real(this, cond, timeout);
  AnnotateAcquire(this);
  return met;
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  static const auto real =
      Real<WhenForFn<Time>>("17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  AnnotateRelease(this);
  const bool met = real(this, cond, deadline);
  AnnotateAcquire(this);
  return met;
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static const auto real = Real<WhenForFn<Duration>>(
      "19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  __tsan_mutex_pre_lock(this, 0);
  const bool met = real(this, cond, timeout);
  __tsan_mutex_post_lock(this, 0, 0);
  return met;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  static const auto real = Real<WhenForFn<Time>>(
      "20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  __tsan_mutex_pre_lock(this, 0);
  const bool met = real(this, cond, deadline);
  __tsan_mutex_post_lock(this, 0, 0);
  return met;
}

void CondVar::Wait(Mutex* mu) {
  using Fn = void (*)(CondVar*, Mutex*);
  static const Fn real = Real<Fn>("4WaitEPNS0_5MutexE", "7CondVar");
  AnnotateRelease(mu);
  real(this, mu);
  AnnotateAcquire(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  static const auto real = Real<WaitForFn<Duration>>(
      "15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE", "7CondVar");
  AnnotateRelease(mu);
  const bool timed_out = real(this, mu, timeout);
  AnnotateAcquire(mu);
  return timed_out;
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  static const auto real = Real<WaitForFn<Time>>(
      "16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE", "7CondVar");
  AnnotateRelease(mu);
  const bool timed_out = real(this, mu, deadline);
  AnnotateAcquire(mu);
  return timed_out;
}

// Notify happens before a wait that returns notified (the library's atomic
// flag is invisible to TSan, as its mutex was).
void Notification::Notify() {
  using Fn = void (*)(Notification*);
  static const Fn real = Real<Fn>("6NotifyEv", "12Notification");
  __tsan_release(this);
  real(this);
}

void Notification::WaitForNotification() const {
  using Fn = void (*)(const Notification*);
  static const Fn real =
      Real<Fn>("19WaitForNotificationEv", "12Notification", "K");
  real(this);
  __tsan_acquire(const_cast<Notification*>(this));
}

bool Notification::WaitForNotificationWithTimeout(Duration timeout) const {
  using Fn = bool (*)(const Notification*, Duration);
  static const Fn real = Real<Fn>(
      "30WaitForNotificationWithTimeoutENS0_8DurationE", "12Notification", "K");
  const bool notified = real(this, timeout);
  if (notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

bool Notification::WaitForNotificationWithDeadline(Time deadline) const {
  using Fn = bool (*)(const Notification*, Time);
  static const Fn real = Real<Fn>(
      "31WaitForNotificationWithDeadlineENS0_4TimeE", "12Notification", "K");
  const bool notified = real(this, deadline);
  if (notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

ABSL_NAMESPACE_END
}  // namespace absl

// Debian's gRPC (and the rest of Abseil) is not instrumented either: gRPC
// orders its threads with its own atomics, which TSan cannot see, so a
// memcpy or free that gRPC or absl::Status (carried between gRPC's threads)
// makes of a buffer our instrumented code filled is reported as a race.
// Interceptor calls made from inside these libraries are not checked; races
// between two accesses in toolgate's own code still are. (Linked statically
// into each binary, so this definition wins over the runtime's weak default.)
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:libgrpc.so.29\n"
         "called_from_lib:libgrpc++.so.1.51\n"
         "called_from_lib:libgpr.so.29\n"
         "called_from_lib:libabsl_status.so.20220623\n"
         "called_from_lib:libabsl_cord.so.20220623\n"
         "called_from_lib:libabsl_cord_internal.so.20220623\n"
         "called_from_lib:libssl.so.3\n"
         "called_from_lib:libcrypto.so.3\n"
         // gRPC's own threads, joined by its uninstrumented shutdown.
         "thread:grpc_core::Thread::Thread\n"
         "called_from_lib:libabsl_synchronization.so.20220623\n"
         "called_from_lib:libabsl_graphcycles_internal.so.20220623\n"
         // gRPC's header-only templates (built into our binaries, so
         // instrumented), ordered by its uninstrumented completion queues.
         "race:grpc::internal::\n";
}
