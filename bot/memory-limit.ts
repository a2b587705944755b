import { readFileSync } from 'node:fs';

/** Where the container's own memory cgroup reports OOM kills: cgroup v2, then v1. */
const COUNTERS = [
  { file: '/sys/fs/cgroup/memory.events', pattern: /^oom_kill (\d+)$/m },
  { file: '/sys/fs/cgroup/memory/memory.oom_control', pattern: /^oom_kill (\d+)$/m },
] as const;

/**
 * How many processes the kernel has killed in this container for hitting its memory limit (0 when
 * the counter can't be read). A browser process killed this way looks like a crash to the bot; this
 * tells the two apart, so the meeting ends `out_of_memory` and the operator knows to raise BOT_MEMORY_MB.
 */
export function oomKillCount(): number {
  for (const { file, pattern } of COUNTERS) {
    try {
      const match = pattern.exec(readFileSync(file, 'utf8'));
      if (match) return Number(match[1]);
    } catch {
      // Not this cgroup version (or not in a container): try the next.
    }
  }
  return 0;
}
