import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownerOf } from '../../../../worker/ingest/ingest-shard.js';

const sessions = Array.from({ length: 4000 }, () => randomUUID());

function shares(members: string[]): Map<string, string[]> {
  const byMember = new Map(members.map((member) => [member, [] as string[]]));
  for (const session of sessions) byMember.get(ownerOf(session, members))!.push(session);
  return byMember;
}

describe('the owner of a bot session among the ingesting workers', () => {
  it('is the same whatever order the members are listed in', () => {
    const members = ['worker-a', 'worker-b', 'worker-c'];
    for (const session of sessions.slice(0, 200)) {
      expect(ownerOf(session, members)).toBe(ownerOf(session, [...members].reverse()));
    }
  });

  it('spreads sessions evenly: four workers each take about a quarter', () => {
    const byMember = shares(['worker-0', 'worker-1', 'worker-2', 'worker-3']);
    for (const share of byMember.values()) {
      expect(share.length).toBeGreaterThan(sessions.length * 0.2);
      expect(share.length).toBeLessThan(sessions.length * 0.3);
    }
  });

  it('moves only the sessions the new worker takes when one joins, and only the leaver’s when one leaves', () => {
    const before = ['worker-0', 'worker-1', 'worker-2'];
    const after = [...before, 'worker-3'];
    let moved = 0;
    for (const session of sessions) {
      const from = ownerOf(session, before);
      const to = ownerOf(session, after);
      if (from !== to) {
        expect(to).toBe('worker-3');
        moved += 1;
      }
      // worker-3 leaving gives back exactly what it took.
      expect(ownerOf(session, before)).toBe(from);
    }
    expect(moved).toBeGreaterThan(sessions.length * 0.15);
    expect(moved).toBeLessThan(sessions.length * 0.35);
  });

  it('is the only member when there is one', () => {
    expect(ownerOf(sessions[0]!, ['worker-a'])).toBe('worker-a');
  });
});
