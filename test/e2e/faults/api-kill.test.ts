import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRedis } from '../../support/redis.js';
import { type ApiProcess, type Stack, startStack } from '../../support/stack.js';
import { auditFaultMeeting, endFaultMeeting, expectNoContainers, startFaultMeeting } from './meeting.js';

/**
 * The API process is SIGKILLed while clients keep calling it, and started again on the same port.
 * No request ever gets a 5xx (refused connections while it is down are expected), every meeting a
 * POST /bots created is launched (no row without its launch job), the running bot never notices, and
 * its transcript is complete afterwards: every segment it published stored once, every meeting
 * ended, no container left.
 */

let stack: Stack;
let redis: Redis;

beforeAll(async () => {
  stack = await startStack({ workerEnv: { RECONCILE_INTERVAL_SECONDS: '2', BOT_LOG_LEVEL: 'debug' } });
  stack.startWorker('api-kill-worker', { BOT_SLOTS: '8' });
  redis = createTestRedis();
});
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
});

interface Tally {
  byStatus: Map<number, number>;
  refused: number;
  created: number[];
}

/** Reads and bot creations in a loop until `until` resolves; counts answers by status. */
async function traffic(
  baseUrl: () => string,
  key: string,
  nativeId: string,
  until: Promise<void>,
): Promise<Tally> {
  const tally: Tally = { byStatus: new Map(), refused: 0, created: [] };
  let done = false;
  void until.then(() => {
    done = true;
  });
  let round = 0;
  while (!done) {
    round += 1;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/meetings'],
      ['GET', `/transcripts/google_meet/${nativeId}`],
      ['GET', '/bots/status'],
    ];
    // Now and then a new bot, for a meeting the simulator doesn't know (it ends at once).
    if (round % 10 === 0) {
      const missing = `zzz-${String.fromCharCode(97 + ((round / 10) % 26))}kil-${String.fromCharCode(97 + Math.floor(round / 260))}aa`;
      calls.push([
        'POST',
        '/bots',
        {
          platform: 'google_meet',
          native_meeting_id: missing,
          meeting_url: `${stackSimulatorUrl}/${missing}`,
        },
      ]);
    }
    await Promise.all(
      calls.map(async ([method, path, body]) => {
        try {
          const response = await fetch(`${baseUrl()}${path}`, {
            method,
            headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
            ...(body ? { body: JSON.stringify(body) } : {}),
            signal: AbortSignal.timeout(10_000),
          });
          tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
          const json = (await response.json().catch(() => ({}))) as { id?: number };
          if (method === 'POST' && response.status === 201 && json.id) tally.created.push(json.id);
        } catch {
          tally.refused += 1;
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return tally;
}

let stackSimulatorUrl = '';

describe('the API killed and restarted under traffic', () => {
  it('never answers 5xx, leaves no half-made meeting, and the running bot and transcript carry on', async () => {
    stackSimulatorUrl = stack.simulatorUrl;
    const meeting = await startFaultMeeting(stack);
    const { meetingId, nativeId, containerId } = meeting;

    let api: ApiProcess = await stack.startApiProcess();
    const port = Number(new URL(api.baseUrl).port);
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const load = traffic(() => api.baseUrl, stack.user.key, nativeId, finished);

    await new Promise((resolve) => setTimeout(resolve, 4000));
    await stack.stopApiProcess(api, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    api = await stack.startApiProcess({ port });
    await new Promise((resolve) => setTimeout(resolve, 6000));
    finish();
    const tally = await load;
    console.log(
      `[api kill] answers by status ${JSON.stringify(Object.fromEntries(tally.byStatus))}, refused while down ${tally.refused}, bots created ${tally.created.length}`,
    );
    expect([...tally.byStatus.keys()].filter((status) => status >= 500)).toEqual([]);
    expect(tally.refused).toBeGreaterThan(0);
    expect(tally.byStatus.get(200) ?? 0).toBeGreaterThan(0);

    // Every meeting that exists (whether or not its creator saw the 201) was launched: none stuck in requested.
    const userMeetings: Array<{ id: number }> = await stack.api.database
      .db('meetings')
      .where({ user_id: stack.user.id })
      .select('id');
    for (const { id } of userMeetings) {
      expect(
        (
          await stack.waitForStatus(
            id,
            ['joining', 'awaiting_admission', 'active', 'completed', 'failed'],
            120_000,
          )
        ).at(-1),
      ).not.toBe('requested');
    }
    expect(userMeetings.map((m) => m.id)).toEqual(expect.arrayContaining(tally.created));

    // Each meeting's row came with its first status change (one transaction): nothing half-written.
    for (const { id } of userMeetings) expect((await stack.transitions(id))[0]?.to).toBe('requested');

    // The bot never noticed and its transcript grows on.
    expect((await stack.containersOf(meetingId)).map((c) => c.Id)).toEqual([containerId]);
    expect((await stack.transitions(meetingId)).map((event) => event.to)).toEqual([
      'requested',
      'joining',
      'awaiting_admission',
      'active',
    ]);
    const transcript = await fetch(`${api.baseUrl}/transcripts/google_meet/${nativeId}`, {
      headers: { 'X-API-Key': stack.user.key },
    });
    expect(transcript.status).toBe(200);
    expect(((await transcript.json()) as { segments: unknown[] }).segments.length).toBeGreaterThan(0);
    await stack.stopApiProcess(api);

    // The meeting ends as it should, with every segment the bot published stored once; the bots
    // sent to meetings that don't exist have ended too, and no container is left.
    await endFaultMeeting(stack, meeting);
    const figures = await auditFaultMeeting(stack, redis, meeting);
    for (const { id } of userMeetings)
      expect(['completed', 'failed']).toContain(
        (await stack.waitForStatus(id, ['completed', 'failed'])).at(-1),
      );
    await expectNoContainers(stack);
    console.log(
      `[api kill] ${userMeetings.length - 1} bot meetings stored for ${tally.created.length} 201s; ` +
        `meeting transcript ${JSON.stringify(figures)}`,
    );
  });
});
