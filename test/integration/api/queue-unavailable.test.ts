import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisBotCommands } from '../../../shared/bots/command-channel.js';
import { bullBotJobs } from '../../../shared/bots/jobs.js';
import { createBotQueues } from '../../../shared/infra/queues.js';
import { listTransitions } from '../../../shared/meetings/transitions-store.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { advanceMeeting } from '../../support/meetings.js';

// Port 9 (discard) has no Redis: every enqueue fails fast, as when Redis is down.
const unreachable = new Redis('redis://127.0.0.1:9', {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  lazyConnect: true,
});
unreachable.on('error', () => {});
const deadQueues = createBotQueues(unreachable, 'unreachable');
deadQueues.launch.on('error', () => {});
deadQueues.control.on('error', () => {});

let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  api = await startTestApi({
    jobs: () => bullBotJobs(deadQueues),
    commands: redisBotCommands(unreachable, 'unreachable'),
  });
  user = await api.createUser();
});
afterAll(async () => {
  await api.close();
  unreachable.disconnect();
});

/** An active meeting stored directly (no bot can be queued through this API). */
async function activeMeeting(nativeMeetingId: string): Promise<number> {
  const [row] = await api.database
    .db('meetings')
    .insert({
      user_id: user.id,
      platform: 'google_meet',
      native_meeting_id: nativeMeetingId,
      status: 'requested',
      meeting_url: `https://meet.google.com/${nativeMeetingId}`,
      bot_name: 'Bot',
    })
    .returning('id');
  await advanceMeeting(api.database.db, row.id, 'active');
  return row.id;
}

describe('when the job queue is unreachable', () => {
  it('POST /bots answers 503 and leaves no meeting in flight', async () => {
    const response = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot() });
    expect(response.status).toBe(503);
    expect(Object.keys(response.body)).toEqual(['error']);
    const rows = await api.database.db('meetings').where({ user_id: user.id });
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe('failed');
    const transitions = await listTransitions(api.database.db, rows[0].id);
    expect(transitions.at(-1)?.reason).toMatch(/launch_not_queued/);
    // The failed attempt does not hold a concurrency slot or block a retry.
    const status = await api.request('GET', '/bots/status', { key: user.key });
    expect(status.body.running_bots).toEqual([]);
  });

  it('DELETE /bots still completes the meeting (the reconciler removes the container later)', async () => {
    await activeMeeting('liv-ebot-abc');
    const response = await api.request('DELETE', '/bots/google_meet/liv-ebot-abc', { key: user.key });
    expect(response.status).toBe(202);
    expect(response.body.status).toBe('completed');
  });

  it('PUT /bots/.../config answers 503 and keeps the saved settings when the bot cannot be reached', async () => {
    const meetingId = await activeMeeting('rec-onfi-gdd');
    const response = await api.request('PUT', '/bots/google_meet/rec-onfi-gdd/config', {
      key: user.key,
      json: { language: 'en' },
    });
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      error: 'Redis unavailable; the new configuration was saved but not sent to the bot. Try again shortly.',
    });
    const row = await api.database.db('meetings').where({ id: meetingId }).first();
    expect(row.language).toBe('en');
  });
});
