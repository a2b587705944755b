/**
 * The seccomp profile bot containers run under: Docker's usual model (deny by default with EPERM,
 * allow the system calls of ordinary unprivileged programs, keep the administrator's calls out)
 * plus the three calls Chromium's namespace sandbox needs, so Chromium can keep its own sandbox
 * inside a container that has no capabilities and no-new-privileges.
 *
 * What Chromium's zygote does to sandbox its renderers: it creates each in new user, PID and
 * network namespaces (clone, or unshare for the user namespace), then takes away its file system
 * with chroot into an empty directory, and finally installs its own, much narrower seccomp filter.
 * Docker's default profile allows clone with namespace flags, unshare and chroot only to a
 * container holding CAP_SYS_ADMIN or CAP_SYS_CHROOT; a bot holds neither, so here they are allowed
 * on their own terms instead: new user, PID and network namespaces only (a mount, UTS, IPC or
 * cgroup namespace stays denied), and chroot.
 *
 * A process inside a new user namespace holds every capability there, so whatever those
 * capabilities unlock in the kernel is reachable through calls this profile allows. The calls that
 * would use them most (mount, bpf, keyctl, perf_event_open, kernel modules, setns, ptrace) stay
 * denied by this profile whatever capabilities the caller holds: seccomp filters by call, not by
 * capability. docs/how-a-bot-runs.md ("Chromium's sandbox") has the threat model.
 *
 * Left out beside Docker's default: io_uring (a large kernel surface nothing in the bot uses;
 * libuv falls back to threads); ptrace with process_vm_readv/writev (nothing in the bot debugs
 * another process); and socketcall: 32-bit x86's one call for every socket operation, whose
 * arguments are in memory where seccomp can't read them. Any x86-64 process can make 32-bit calls
 * (int 0x80), which the filter judges under the x86 sub-architecture, so with socketcall allowed a
 * broken-into bot could open any socket past the socket rules below; 32-bit programs have their own
 * socket call since Linux 4.3, and nothing in the bot is 32-bit.
 *
 * The same profile, as a file operators can read or pass to `docker run --security-opt seccomp=…`,
 * is docker/bot-seccomp.json (`npx tsx scripts/write-bot-seccomp.ts` writes it; a unit test checks
 * it is current).
 */

/** One rule of a Docker seccomp profile (the engine's JSON format). */
export interface SeccompRule {
  names: string[];
  action: 'SCMP_ACT_ALLOW' | 'SCMP_ACT_ERRNO';
  errnoRet?: number;
  args?: {
    index: number;
    value: number;
    valueTwo?: number;
    op: 'SCMP_CMP_EQ' | 'SCMP_CMP_NE' | 'SCMP_CMP_MASKED_EQ';
  }[];
  includes?: { arches?: string[] };
  excludes?: { arches?: string[] };
  comment?: string;
}

export interface SeccompProfile {
  defaultAction: 'SCMP_ACT_ERRNO';
  defaultErrnoRet: number;
  archMap: { architecture: string; subArchitectures: string[] }[];
  syscalls: SeccompRule[];
}

const EPERM = 1;
const ENOSYS = 38;

/** Namespace flags of clone and unshare (linux/sched.h). */
const CLONE_NEWNS = 0x0002_0000;
const CLONE_NEWCGROUP = 0x0200_0000;
const CLONE_NEWUTS = 0x0400_0000;
const CLONE_NEWIPC = 0x0800_0000;
/** The namespaces a bot may not create: Chromium's sandbox needs only user, PID and network ones. */
const FORBIDDEN_NAMESPACES = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC;

/** Socket families (linux/socket.h) and the one netlink protocol a bot may open. */
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const NETLINK_ROUTE = 0;

/**
 * The sockets a bot may open, and nothing else: local sockets (Chromium's IPC, Node's), IPv4 and
 * IPv6, and netlink with NETLINK_ROUTE only, which Chromium reads to follow network changes (and
 * glibc's getaddrinfo, Node's os.networkInterfaces for the interfaces). Refused, with EPERM:
 * AF_PACKET (raw frames: a process in a new user and network namespace holds CAP_NET_RAW there, so
 * only this profile keeps it out), netlink's other protocols (netfilter, xfrm, audit, uevents...),
 * AF_VSOCK, AF_ALG, AF_KEY and the other families, the usual routes into kernel bugs. An allow list,
 * one rule per family: runc splits a rule that tests one argument more than once into separate
 * rules that any one of them satisfies, so "not this and not that" can't be written as one rule.
 */
const SOCKET_RULES: SeccompRule[] = [
  ...[AF_UNIX, AF_INET, AF_INET6].map(
    (family): SeccompRule => ({
      names: ['socket'],
      action: 'SCMP_ACT_ALLOW',
      args: [{ index: 0, value: family, op: 'SCMP_CMP_EQ' }],
    }),
  ),
  {
    names: ['socket'],
    action: 'SCMP_ACT_ALLOW',
    args: [
      { index: 0, value: AF_NETLINK, op: 'SCMP_CMP_EQ' },
      { index: 2, value: NETLINK_ROUTE, op: 'SCMP_CMP_EQ' },
    ],
    comment: 'netlink with NETLINK_ROUTE only: Chromium follows network changes with it',
  },
];

/** personality() values glibc and Chromium use (PER_LINUX, PER_LINUX32, UNAME26 variants, and the query). */
const PERSONALITIES = [0x0000_0000, 0x0000_0008, 0x0002_0000, 0x0002_0008, 0xffff_ffff];

/**
 * The system calls of ordinary unprivileged programs, grouped by what they are for. 32-bit and
 * time64 names are there for 32-bit sub-architectures; names a kernel does not know are skipped.
 */
const ORDINARY_SYSCALLS: Record<string, string[]> = {
  files: [
    'access',
    'chdir',
    'chmod',
    'chown',
    'chown32',
    'close',
    'close_range',
    'copy_file_range',
    'creat',
    'dup',
    'dup2',
    'dup3',
    'faccessat',
    'faccessat2',
    'fadvise64',
    'fadvise64_64',
    'fallocate',
    'fchdir',
    'fchmod',
    'fchmodat',
    'fchown',
    'fchown32',
    'fchownat',
    'fcntl',
    'fcntl64',
    'fdatasync',
    'flock',
    'fstat',
    'fstat64',
    'fstatat64',
    'fstatfs',
    'fstatfs64',
    'fsync',
    'ftruncate',
    'ftruncate64',
    'futimesat',
    'getcwd',
    'getdents',
    'getdents64',
    'lchown',
    'lchown32',
    'link',
    'linkat',
    '_llseek',
    'lseek',
    'lstat',
    'lstat64',
    'mkdir',
    'mkdirat',
    'mknod',
    'mknodat',
    'name_to_handle_at',
    'newfstatat',
    'open',
    'openat',
    'openat2',
    'pread64',
    'preadv',
    'preadv2',
    'pwrite64',
    'pwritev',
    'pwritev2',
    'read',
    'readahead',
    'readlink',
    'readlinkat',
    'readv',
    'rename',
    'renameat',
    'renameat2',
    'rmdir',
    'sendfile',
    'sendfile64',
    'splice',
    'stat',
    'stat64',
    'statfs',
    'statfs64',
    'statx',
    'symlink',
    'symlinkat',
    'sync',
    'sync_file_range',
    'syncfs',
    'tee',
    'truncate',
    'truncate64',
    'umask',
    'unlink',
    'unlinkat',
    'utime',
    'utimensat',
    'utimensat_time64',
    'utimes',
    'vmsplice',
    'write',
    'writev',
  ],
  extendedAttributes: [
    'fgetxattr',
    'flistxattr',
    'fremovexattr',
    'fsetxattr',
    'getxattr',
    'lgetxattr',
    'listxattr',
    'llistxattr',
    'lremovexattr',
    'lsetxattr',
    'removexattr',
    'setxattr',
  ],
  fileEvents: [
    'epoll_create',
    'epoll_create1',
    'epoll_ctl',
    'epoll_ctl_old',
    'epoll_pwait',
    'epoll_pwait2',
    'epoll_wait',
    'epoll_wait_old',
    'eventfd',
    'eventfd2',
    'fanotify_mark',
    'inotify_add_watch',
    'inotify_init',
    'inotify_init1',
    'inotify_rm_watch',
    'ioctl',
    'pipe',
    'pipe2',
    'poll',
    'ppoll',
    'ppoll_time64',
    'pselect6',
    'pselect6_time64',
    'select',
    '_newselect',
    'signalfd',
    'signalfd4',
    'timerfd_create',
    'timerfd_gettime',
    'timerfd_gettime64',
    'timerfd_settime',
    'timerfd_settime64',
  ],
  asyncIo: [
    'io_cancel',
    'io_destroy',
    'io_getevents',
    'io_pgetevents',
    'io_pgetevents_time64',
    'io_setup',
    'io_submit',
  ],
  memory: [
    'brk',
    'madvise',
    'membarrier',
    'memfd_create',
    'memfd_secret',
    'mincore',
    'mlock',
    'mlock2',
    'mlockall',
    'mmap',
    'mmap2',
    'mprotect',
    'mremap',
    'msync',
    'munlock',
    'munlockall',
    'munmap',
    'pkey_alloc',
    'pkey_free',
    'pkey_mprotect',
    'process_mrelease',
    'remap_file_pages',
  ],
  processes: [
    'capget',
    'capset',
    'execve',
    'execveat',
    'exit',
    'exit_group',
    'fork',
    'get_robust_list',
    'get_thread_area',
    'getcpu',
    'getegid',
    'getegid32',
    'geteuid',
    'geteuid32',
    'getgid',
    'getgid32',
    'getgroups',
    'getgroups32',
    'getpgid',
    'getpgrp',
    'getpid',
    'getppid',
    'getpriority',
    'getresgid',
    'getresgid32',
    'getresuid',
    'getresuid32',
    'getrlimit',
    'getrusage',
    'getsid',
    'gettid',
    'getuid',
    'getuid32',
    'ioprio_get',
    'ioprio_set',
    'pidfd_open',
    'pidfd_send_signal',
    'prctl',
    'prlimit64',
    'restart_syscall',
    'rseq',
    'sched_get_priority_max',
    'sched_get_priority_min',
    'sched_getaffinity',
    'sched_getattr',
    'sched_getparam',
    'sched_getscheduler',
    'sched_rr_get_interval',
    'sched_rr_get_interval_time64',
    'sched_setaffinity',
    'sched_setattr',
    'sched_setparam',
    'sched_setscheduler',
    'sched_yield',
    'seccomp',
    'set_robust_list',
    'set_thread_area',
    'set_tid_address',
    'setfsgid',
    'setfsgid32',
    'setfsuid',
    'setfsuid32',
    'setgid',
    'setgid32',
    'setgroups',
    'setgroups32',
    'setpgid',
    'setpriority',
    'setregid',
    'setregid32',
    'setresgid',
    'setresgid32',
    'setresuid',
    'setresuid32',
    'setreuid',
    'setreuid32',
    'setrlimit',
    'setsid',
    'setuid',
    'setuid32',
    'sysinfo',
    'ugetrlimit',
    'uname',
    'vfork',
    'wait4',
    'waitid',
    'waitpid',
  ],
  threadsAndSync: ['futex', 'futex_time64', 'futex_waitv'],
  signals: [
    'alarm',
    'getitimer',
    'kill',
    'pause',
    'rt_sigaction',
    'rt_sigpending',
    'rt_sigprocmask',
    'rt_sigqueueinfo',
    'rt_sigreturn',
    'rt_sigsuspend',
    'rt_sigtimedwait',
    'rt_sigtimedwait_time64',
    'rt_tgsigqueueinfo',
    'setitimer',
    'sigaltstack',
    'sigprocmask',
    'sigreturn',
    'tgkill',
    'tkill',
  ],
  time: [
    'adjtimex',
    'clock_adjtime',
    'clock_adjtime64',
    'clock_getres',
    'clock_getres_time64',
    'clock_gettime',
    'clock_gettime64',
    'clock_nanosleep',
    'clock_nanosleep_time64',
    'gettimeofday',
    'nanosleep',
    'time',
    'timer_create',
    'timer_delete',
    'timer_getoverrun',
    'timer_gettime',
    'timer_gettime64',
    'timer_settime',
    'timer_settime64',
    'times',
  ],
  sockets: [
    'accept',
    'accept4',
    'bind',
    'connect',
    'getpeername',
    'getsockname',
    'getsockopt',
    'listen',
    'recv',
    'recvfrom',
    'recvmmsg',
    'recvmmsg_time64',
    'recvmsg',
    'send',
    'sendmmsg',
    'sendmsg',
    'sendto',
    'setsockopt',
    'shutdown',
    'socketpair',
  ],
  systemVIpcAndQueues: [
    'ipc',
    'mq_getsetattr',
    'mq_notify',
    'mq_open',
    'mq_timedreceive',
    'mq_timedreceive_time64',
    'mq_timedsend',
    'mq_timedsend_time64',
    'mq_unlink',
    'msgctl',
    'msgget',
    'msgrcv',
    'msgsnd',
    'semctl',
    'semget',
    'semop',
    'semtimedop',
    'semtimedop_time64',
    'shmat',
    'shmctl',
    'shmdt',
    'shmget',
  ],
  randomness: ['getrandom'],
  selfRestriction: ['landlock_add_rule', 'landlock_create_ruleset', 'landlock_restrict_self'],
};

/** Calls one architecture has and needs (thread-local storage, cache control, the LDT). */
const ARCHITECTURE_SYSCALLS: SeccompRule[] = [
  { names: ['arch_prctl'], action: 'SCMP_ACT_ALLOW', includes: { arches: ['amd64', 'x32'] } },
  { names: ['modify_ldt'], action: 'SCMP_ACT_ALLOW', includes: { arches: ['amd64', 'x32', 'x86'] } },
  {
    names: [
      'arm_fadvise64_64',
      'arm_sync_file_range',
      'sync_file_range2',
      'breakpoint',
      'cacheflush',
      'set_tls',
    ],
    action: 'SCMP_ACT_ALLOW',
    includes: { arches: ['arm', 'arm64'] },
  },
];

const NAMESPACE_FLAGS_ALLOWED = {
  index: 0,
  value: FORBIDDEN_NAMESPACES,
  valueTwo: 0,
  op: 'SCMP_CMP_MASKED_EQ',
} as const;

/** What Chromium's namespace sandbox needs (see the top of this file). */
const CHROMIUM_SANDBOX_SYSCALLS: SeccompRule[] = [
  {
    names: ['clone'],
    action: 'SCMP_ACT_ALLOW',
    args: [NAMESPACE_FLAGS_ALLOWED],
    comment: 'threads, processes, and new user, PID and network namespaces for Chromium sandbox',
  },
  {
    names: ['unshare'],
    action: 'SCMP_ACT_ALLOW',
    args: [NAMESPACE_FLAGS_ALLOWED],
    comment: 'Chromium sandbox moves into a new user namespace',
  },
  {
    // clone3 passes its flags in memory, where seccomp cannot read them: ENOSYS makes the C
    // library fall back to clone, whose flags the rule above checks.
    names: ['clone3'],
    action: 'SCMP_ACT_ERRNO',
    errnoRet: ENOSYS,
    comment: 'no clone3: its flags are out of reach of seccomp, so callers fall back to clone',
  },
  {
    names: ['chroot'],
    action: 'SCMP_ACT_ALLOW',
    comment: 'Chromium sandbox takes the file system away from renderers with chroot to an empty directory',
  },
];

export function botSeccompProfile(): SeccompProfile {
  return {
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: EPERM,
    archMap: [
      { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
      { architecture: 'SCMP_ARCH_AARCH64', subArchitectures: ['SCMP_ARCH_ARM'] },
    ],
    syscalls: [
      { names: Object.values(ORDINARY_SYSCALLS).flat().sort(), action: 'SCMP_ACT_ALLOW' },
      ...SOCKET_RULES,
      ...PERSONALITIES.map(
        (value): SeccompRule => ({
          names: ['personality'],
          action: 'SCMP_ACT_ALLOW',
          args: [{ index: 0, value, op: 'SCMP_CMP_EQ' }],
        }),
      ),
      ...ARCHITECTURE_SYSCALLS,
      ...CHROMIUM_SANDBOX_SYSCALLS,
    ],
  };
}

/** docker/bot-seccomp.json's text. */
export function serializeBotSeccompProfile(): string {
  return `${JSON.stringify(botSeccompProfile(), null, 2)}\n`;
}
