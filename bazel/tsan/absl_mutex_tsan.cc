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

extern "C" {
void __tsan_mutex_pre_lock(void* addr, unsigned flags);
void __tsan_mutex_post_lock(void* addr, unsigned flags, int recursion);
int __tsan_mutex_pre_unlock(void* addr, unsigned flags);
void __tsan_mutex_post_unlock(void* addr, unsigned flags);
}

namespace {

// Flags from <sanitizer/tsan_interface.h>.
constexpr unsigned kReadLock = 1 << 3;
constexpr unsigned kTryLock = 1 << 4;
constexpr unsigned kTryLockFailed = 1 << 5;

#define TOOLGATE_STR2(x) #x
#define TOOLGATE_STR(x) TOOLGATE_STR2(x)

// The Itanium-mangled name of absl::<inline ns>::Mutex::<method>.
template <typename Fn>
Fn Real(const char* method_mangled) {
  const char* ns = TOOLGATE_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string name = "_ZN4absl" + std::to_string(std::strlen(ns)) + ns +
                           "5Mutex" + method_mangled;
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

ABSL_NAMESPACE_END
}  // namespace absl
