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

  it('is docker/bot-seccomp.json (rewrite it with `npx tsx scripts/write-bot-seccomp.ts`)', () => {
    const file = readFileSync(new URL('../../../docker/bot-seccomp.json', import.meta.url), 'utf8');
    expect(file).toBe(serializeBotSeccompProfile());
  });
});
