import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  botSeccompProfile,
  type SeccompRule,
  serializeBotSeccompProfile,
} from '../../../worker/runtime/bot-seccomp-profile.js';

const profile = botSeccompProfile();
const rulesFor = (name: string): SeccompRule[] =>
  profile.syscalls.filter((rule) => rule.names.includes(name));
const allowedOutright = (name: string) =>
  rulesFor(name).some((rule) => rule.action === 'SCMP_ACT_ALLOW' && !rule.args && !rule.includes);

const CLONE_NEWNS = 0x2_0000;
const CLONE_NEWCGROUP = 0x200_0000;
const CLONE_NEWUTS = 0x400_0000;
const CLONE_NEWIPC = 0x800_0000;
const CLONE_NEWUSER = 0x1000_0000;
const CLONE_NEWPID = 0x2000_0000;
const CLONE_NEWNET = 0x4000_0000;

/** What the engine's filter answers for a call with these flags as its first argument. */
function flagsAllowed(name: string, flags: number): boolean {
  return rulesFor(name).some(
    (rule) =>
      rule.action === 'SCMP_ACT_ALLOW' &&
      (rule.args ?? []).every(
        (arg) =>
          arg.index !== 0 || arg.op !== 'SCMP_CMP_MASKED_EQ' || (flags & arg.value) === (arg.valueTwo ?? 0),
      ),
  );
}

/**
 * What the engine's filter answers for socket(domain, type, protocol): allowed when some allow rule
 * holds, each of its conditions on its own argument (the profile never tests one argument twice).
 */
function socketAllowed(domain: number, type: number, protocol: number): boolean {
  const argument = [domain, type, protocol];
  return rulesFor('socket').some(
    (rule) =>
      rule.action === 'SCMP_ACT_ALLOW' &&
      !rule.includes &&
      (rule.args ?? []).every((arg) => {
        const value = argument[arg.index]!;
        if (arg.op === 'SCMP_CMP_EQ') return value === arg.value;
        if (arg.op === 'SCMP_CMP_NE') return value !== arg.value;
        return (value & arg.value) === (arg.valueTwo ?? 0);
      }),
  );
}

describe('the bot seccomp profile', () => {
  it('denies by default with EPERM, as Docker does', () => {
    expect(profile.defaultAction).toBe('SCMP_ACT_ERRNO');
    expect(profile.defaultErrnoRet).toBe(1);
  });

  it("lets Chromium's sandbox create user, PID and network namespaces and chroot, but no other namespace", () => {
    const sandboxFlags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;
    expect(flagsAllowed('clone', sandboxFlags)).toBe(true);
    expect(flagsAllowed('unshare', CLONE_NEWUSER)).toBe(true);
    expect(allowedOutright('chroot')).toBe(true);
    for (const other of [CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC]) {
      expect(flagsAllowed('clone', sandboxFlags | other)).toBe(false);
      expect(flagsAllowed('unshare', other)).toBe(false);
    }
    // A thread (no namespace flags) is still a clone like any other.
    expect(flagsAllowed('clone', 0x3d0f00)).toBe(true);
  });

  it('answers clone3 with ENOSYS, so callers fall back to clone (whose flags it can read)', () => {
    expect(rulesFor('clone3')).toEqual([expect.objectContaining({ action: 'SCMP_ACT_ERRNO', errnoRet: 38 })]);
  });

  it('keeps what a namespace’s capabilities would reach denied, whatever the caller holds', () => {
    for (const name of [
      'mount',
      'umount2',
      'pivot_root',
      'setns',
      'bpf',
      'keyctl',
      'add_key',
      'request_key',
      'perf_event_open',
      'init_module',
      'finit_module',
      'delete_module',
      'kexec_load',
      'reboot',
      'ptrace',
      'process_vm_readv',
      'process_vm_writev',
      'userfaultfd',
      'open_by_handle_at',
      'io_uring_setup',
      'sethostname',
      'syslog',
    ]) {
      expect(rulesFor(name), name).toEqual([]);
    }
  });

  it('allows what Node, Chromium and the recognizer call every moment', () => {
    for (const name of [
      'read',
      'write',
      'openat',
      'mmap',
      'futex',
      'epoll_pwait',
      'getrandom',
      'memfd_create',
      'seccomp',
      'prctl',
    ]) {
      expect(allowedOutright(name), name).toBe(true);
    }
  });

  it('never tests one argument twice in a rule (runc would split such a rule into rules any one of them passes)', () => {
    for (const rule of profile.syscalls) {
      const indexes = (rule.args ?? []).map((arg) => arg.index);
      expect(new Set(indexes).size, rule.names.join(',')).toBe(indexes.length);
    }
  });

  it('opens local, IPv4, IPv6 and NETLINK_ROUTE sockets only: no AF_PACKET, no other netlink protocol', () => {
    const [AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_KEY, AF_ALG, AF_VSOCK] = [
      1, 2, 10, 16, 17, 15, 38, 40,
    ];
    const [NETLINK_ROUTE, NETLINK_XFRM, NETLINK_AUDIT, NETLINK_NETFILTER, NETLINK_KOBJECT_UEVENT] = [
      0, 6, 9, 12, 15,
    ];
    const SOCK_STREAM = 1;
    const SOCK_DGRAM = 2;
    const SOCK_RAW = 3;
    const SOCK_CLOEXEC = 0o2000000;
    const ETH_P_ALL = 0x0300; // htons(3), as a packet socket is asked for
    expect(socketAllowed(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)).toBe(true);
    expect(socketAllowed(AF_INET, SOCK_STREAM, 6)).toBe(true);
    expect(socketAllowed(AF_INET6, SOCK_DGRAM, 17)).toBe(true);
    expect(socketAllowed(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)).toBe(true);
    for (const protocol of [NETLINK_XFRM, NETLINK_AUDIT, NETLINK_NETFILTER, NETLINK_KOBJECT_UEVENT]) {
      expect(socketAllowed(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol), `netlink ${protocol}`).toBe(false);
    }
    for (const type of [SOCK_RAW, SOCK_DGRAM]) {
      expect(socketAllowed(AF_PACKET, type, ETH_P_ALL)).toBe(false);
      expect(socketAllowed(AF_PACKET, type, 0)).toBe(false);
    }
    for (const family of [AF_KEY, AF_ALG, AF_VSOCK]) {
      expect(socketAllowed(family, SOCK_STREAM, 0), `family ${family}`).toBe(false);
    }
  });

  it('has no socketcall, whose socket arguments seccomp cannot read (reachable from x86-64 through int 0x80)', () => {
    expect(rulesFor('socketcall')).toEqual([]);
    expect(profile.archMap[0]?.subArchitectures).toContain('SCMP_ARCH_X86');
  });

  it('is docker/bot-seccomp.json (rewrite it with `npx tsx scripts/write-bot-seccomp.ts`)', () => {
    const file = readFileSync(new URL('../../../docker/bot-seccomp.json', import.meta.url), 'utf8');
    expect(file).toBe(serializeBotSeccompProfile());
  });
});
