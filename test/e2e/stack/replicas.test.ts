import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels } from '../../../worker/runtime/bot-runtime.js';
import { type Stack, startStack } from '../../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

describe('two worker replicas and 20 launches', () => {
  it('start exactly one container per meeting', async () => {
    const created = new Map<string, number>();
    const events = (await stack.docker.getEvents({
      filters: {
        type: ['container'],
        event: ['create'],
        label: [`${Labels.deployment}=${stack.api.prefix}`],
      },
    })) as NodeJS.ReadableStream & { destroy(): void };
    events.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        const event = JSON.parse(line) as { Actor?: { Attributes?: Record<string, string> } };
        const meetingId = event.Actor?.Attributes?.[Labels.meetingId];
        if (meetingId) created.set(meetingId, (created.get(meetingId) ?? 0) + 1);
      }
    });

    const workers = [
      stack.startWorker('replica-a', { BOT_SLOTS: '3' }),
      stack.startWorker('replica-b', { BOT_SLOTS: '3' }),
    ];
    // Meetings the simulator doesn't know: each bot opens the page, finds no meeting and ends, freeing its slot.
    const meetingIds: number[] = [];
    for (let index = 0; index < 20; index += 1) {
      const nativeId = `zz${String.fromCharCode(97 + Math.floor(index / 26))}-miss-${String.fromCharCode(97 + (index % 26))}aa`;
      const response = await stack.api.request('POST', '/bots', {
        key: stack.user.key,
        json: {
          platform: 'google_meet',
          native_meeting_id: nativeId,
          meeting_url: `${stack.simulatorUrl}/${nativeId}`,
        },
      });
      expect(response.status).toBe(201);
      meetingIds.push(response.body.id);
    }

    try {
      for (const meetingId of meetingIds) {
        const seen = await stack.waitForStatus(meetingId, ['failed', 'completed'], 600_000);
        expect(seen.at(-1)).toBe('failed');
      }
      const ends = await Promise.all(meetingIds.map(async (id) => (await stack.transitions(id)).at(-1)));
      // Each unexpected end with its detail (exit code, last log lines), to say why when it fails.
      const unexpected = ends.filter((end) => end?.reason !== 'meeting_not_found');
      expect(unexpected.map((end) => `${end?.reason}: ${end?.detail}`)).toEqual([]);
      await expect
        .poll(async () => (await Promise.all(meetingIds.map((id) => stack.containersOf(id)))).flat(), {
          timeout: 60_000,
        })
        .toEqual([]);
    } finally {
      events.destroy();
    }

    expect([...created.keys()].sort()).toEqual(meetingIds.map(String).sort());
    expect([...created.values()].every((count) => count === 1)).toBe(true);
    const launchedBy = await stack.api.database.db('meetings').whereIn('id', meetingIds).pluck('worker_id');
    expect(new Set(launchedBy)).toEqual(new Set(['replica-a', 'replica-b']));
    for (const worker of workers) await stack.stopWorker(worker);
  });
});
