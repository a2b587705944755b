import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookHeaders } from '../../../shared/webhooks/signature.js';
import type { TestApi, TestUser } from '../../support/api.js';
import type { FakeBots } from '../../support/fake-bot.js';
import { transitionMeeting } from '../../support/meetings.js';
import { hasValidSignature, headerOf, type ReceivedWebhook } from '../../support/webhook-receiver.js';
import { startWebhookWorld, type WebhookWorld } from '../../support/webhook-service.js';

let world: WebhookWorld;
let api: TestApi;
let bots: FakeBots;

beforeAll(async () => {
  world = await startWebhookWorld();
  ({ api, bots } = world);
});
afterAll(() => world.close());

const receiver = () => world.receiver();

const statusChanges = (requests: ReceivedWebhook[]) =>
  requests.filter((request) => request.json.type === 'meeting.status_changed').map((r) => r.json.data);

/** Runs a meeting through its whole life as a bot would report it, then stops it through the API. */
async function runMeeting(user: TestUser, nativeId: string, extra: Record<string, unknown> = {}) {
  const { meetingId, sessionId } = await bots.startMeeting(user, nativeId, extra);
  await bots.event(meetingId, sessionId, 'joining');
  await bots.event(meetingId, sessionId, 'awaiting_admission');
  await bots.event(meetingId, sessionId, 'active');
  // Events and segments are ingested from separate streams: a real bot only speaks once it's in.
  await expect
    .poll(async () => (await api.request('GET', `/meetings/${meetingId}`, { key: user.key })).body.status, {
      timeout: 20_000,
    })
    .toBe('active');
  const storedTexts = async (): Promise<string[]> => {
    const transcript = await api.request('GET', `/transcripts/google_meet/${nativeId}`, { key: user.key });
    return transcript.body.segments.map((segment: { text: string }) => segment.text);
  };
  await bots.segment(meetingId, sessionId, { id: 's1', start: 1, text: 'still being said', final: false });
  // Stored before its final comes: one ingest batch keeps only a segment's latest text, so a final
  // read with its mutable version would leave nothing mutable to deliver.
  await expect.poll(storedTexts, { timeout: 20_000 }).toEqual(['still being said']);
  await bots.segment(meetingId, sessionId, { id: 's1', start: 1, text: 'hello everyone' });
  await bots.segment(meetingId, sessionId, { id: 's2', start: 3, text: 'shall we start', speaker: 'Bo' });
  await expect.poll(async () => (await storedTexts()).length).toBe(2);
  const stopped = await api.request('DELETE', `/bots/google_meet/${nativeId}`, { key: user.key });
  expect(stopped.status).toBe(202);
  return meetingId;
}

const LIFECYCLE = ['requested', 'joining', 'awaiting_admission', 'active', 'completed'];

describe('webhook deliveries', () => {
  it('a receiver gets every status change of a meeting in order, with valid signatures', async () => {
    const endpoint = await receiver();
    const user = await api.createUser();
    const settings = await api.request('PUT', '/user/webhook', {
      key: user.key,
      json: { webhook_url: endpoint.url },
    });
    expect(settings.status).toBe(200);
    expect(settings.body).toEqual({
      webhook_url: endpoint.url,
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      webhook_partial_segments: false,
    });
    const secret: string = settings.body.webhook_secret;

    const meetingId = await runMeeting(user, 'hoo-kord-erx');
    await expect.poll(() => statusChanges(endpoint.received).length, { timeout: 20_000 }).toBe(5);
    // Nothing more is coming: the segments went out in their place, before the meeting ended.
    const requests = endpoint.received;
    expect(requests.every((request) => hasValidSignature(request, secret))).toBe(true);
    expect(requests.some((request) => hasValidSignature(request, 'whsec_some-other-secret-123'))).toBe(false);

    const changes = statusChanges(requests);
    expect(changes.map((change) => change.status)).toEqual(LIFECYCLE);
    expect(changes.map((change) => change.previous_status)).toEqual([null, ...LIFECYCLE.slice(0, -1)]);
    expect(changes[4]).toMatchObject({ source: 'api', reason: 'stopped' });
    for (const change of changes) {
      expect(change.meeting).toEqual({
        id: meetingId,
        platform: 'google_meet',
        native_meeting_id: 'hoo-kord-erx',
      });
      expect(Date.parse(change.changed_at)).not.toBeNaN();
    }

    // Headers and body agree; ids are unique; types are what the body says.
    const ids = requests.map((request) => request.json.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const request of requests) {
      expect(headerOf(request, WebhookHeaders.id)).toBe(request.json.id);
      expect(headerOf(request, WebhookHeaders.type)).toBe(request.json.type);
      expect(headerOf(request, 'content-type')).toBe('application/json');
    }

    // Final segments only (the mutable copy of s1 was not sent), between `active` and `completed`.
    const types = requests.map((request) => request.json.type);
    const segmentEvents = requests.filter((request) => request.json.type === 'transcript.segments');
    const sent = segmentEvents.flatMap((request) => request.json.data.segments);
    expect(sent.map((segment: { text: string }) => segment.text)).toEqual([
      'hello everyone',
      'shall we start',
    ]);
    expect(sent.every((segment: { final: boolean }) => segment.final)).toBe(true);
    expect(sent[1]).toMatchObject({ segment_id: 's2', speaker: 'Bo', language: 'en', start: 3, end: 4 });
    const activeAt = requests.findIndex(
      (r) => r.json.type === 'meeting.status_changed' && r.json.data.status === 'active',
    );
    expect(types.indexOf('transcript.segments')).toBeGreaterThan(activeAt);
    expect(types.lastIndexOf('transcript.segments')).toBeLessThan(types.length - 1);

    // The user sees every delivery as delivered, once each.
    const deliveries = await api.request('GET', `/user/webhook/deliveries?meeting_id=${meetingId}`, {
      key: user.key,
    });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.deliveries).toHaveLength(requests.length);
    for (const delivery of deliveries.body.deliveries) {
      expect(delivery).toMatchObject({
        status: 'delivered',
        attempts: 1,
        last_status_code: 200,
        url: endpoint.url,
      });
    }
  });

  it('a receiver that fails 3 times then succeeds gets everything, exactly once per event id, in order', async () => {
    const endpoint = await receiver();
    endpoint.respond = ({ index }) => (index < 3 ? 500 : 200);
    const user = await api.createUser();
    // The bot's own endpoint and secret, rather than the user's.
    const secret = 'bot-secret-0123456789abcdef';
    const meetingId = await runMeeting(user, 'ret-ryth-ree', {
      webhook_url: endpoint.url,
      webhook_secret: secret,
    });
    await expect.poll(() => statusChanges(endpoint.accepted()).length, { timeout: 30_000 }).toBe(5);

    // The three failures were the first event, tried again with the same id and body.
    const [first, second, third, fourth] = endpoint.received;
    expect([first, second, third].map((request) => request!.answered)).toEqual([500, 500, 500]);
    expect(new Set([first, second, third, fourth].map((request) => request!.json.id)).size).toBe(1);
    expect(new Set([first, second, third, fourth].map((request) => request!.body)).size).toBe(1);

    const accepted = endpoint.accepted();
    const ids = accepted.map((request) => request.json.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(accepted.every((request) => hasValidSignature(request, secret))).toBe(true);
    expect(statusChanges(accepted).map((change) => change.status)).toEqual(LIFECYCLE);

    const deliveries = await api.request('GET', `/user/webhook/deliveries?meeting_id=${meetingId}`, {
      key: user.key,
    });
    const byId = new Map(deliveries.body.deliveries.map((d: { id: string }) => [d.id, d]));
    expect(new Set(byId.keys())).toEqual(new Set(ids));
    expect(byId.get(first!.json.id)).toMatchObject({
      status: 'delivered',
      attempts: 4,
      last_status_code: 200,
    });
  });

  it('sends mutable segments too when asked, and nothing for a user without a webhook', async () => {
    const endpoint = await receiver();
    const user = await api.createUser();
    await api.request('PUT', '/user/webhook', {
      key: user.key,
      json: { webhook_url: endpoint.url, webhook_partial_segments: true },
    });
    await runMeeting(user, 'par-tial-seg');
    await expect.poll(() => statusChanges(endpoint.received).length, { timeout: 20_000 }).toBe(5);
    const sent = endpoint.received
      .filter((request) => request.json.type === 'transcript.segments')
      .flatMap((request) =>
        request.json.data.segments.map((s: { text: string; final: boolean }) => [s.text, s.final]),
      );
    expect(sent).toEqual([
      ['still being said', false],
      ['hello everyone', true],
      ['shall we start', true],
    ]);

    const silent = await api.createUser();
    const meetingId = await runMeeting(silent, 'noh-ookh-ere');
    const deliveries = await api.request('GET', `/user/webhook/deliveries?meeting_id=${meetingId}`, {
      key: silent.key,
    });
    expect(deliveries.body.deliveries).toEqual([]);
  });

  it('catches up from Postgres when announcements were lost (the sweep)', async () => {
    const endpoint = await receiver();
    const user = await api.createUser();
    await api.request('PUT', '/user/webhook', { key: user.key, json: { webhook_url: endpoint.url } });
    const { meetingId } = await bots.startMeeting(user, 'swe-epin-gup');
    await expect.poll(() => endpoint.received.length, { timeout: 10_000 }).toBe(1);
    const countBefore = endpoint.received.length;
    // Committed without the announcement that normally follows (as if it was lost on the way).
    await transitionMeeting(api.database.db, meetingId, { to: 'failed', source: 'test', reason: 'quiet' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(endpoint.received.length).toBe(countBefore);
    await world.webhooks.service.sweep();
    await expect
      .poll(() => statusChanges(endpoint.received).map((c) => c.status), { timeout: 10_000 })
      .toEqual(['requested', 'failed']);
  });

  it('POST /user/webhook/test sends one signed webhook.test event now and reports the answer', async () => {
    const endpoint = await receiver();
    const user = await api.createUser();
    const none = await api.request('POST', '/user/webhook/test', { key: user.key });
    expect(none.status).toBe(409);
    expect(none.body).toEqual({ error: 'No webhook_url is set; set one with PUT /user/webhook' });

    const settings = await api.request('PUT', '/user/webhook', {
      key: user.key,
      json: { webhook_url: endpoint.url },
    });
    const ok = await api.request('POST', '/user/webhook/test', { key: user.key });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      id: expect.any(String),
      type: 'webhook.test',
      webhook_url: endpoint.url,
      delivered: true,
      status_code: 200,
      error: null,
    });
    const [sent] = endpoint.received;
    expect(sent!.json).toMatchObject({ id: ok.body.id, type: 'webhook.test' });
    expect(headerOf(sent!, WebhookHeaders.id)).toBe(ok.body.id);
    expect(hasValidSignature(sent!, settings.body.webhook_secret)).toBe(true);

    // The receiver's answer body ('receiver says no') is never shown: where private addresses are
    // allowed, it could be an internal service's page the user must not read through us.
    endpoint.respond = () => 503;
    const refused = await api.request('POST', '/user/webhook/test', { key: user.key });
    expect(refused.body).toMatchObject({ delivered: false, status_code: 503, error: 'HTTP 503' });
    expect(refused.text).not.toContain('receiver says no');
    endpoint.respond = () => 302;
    const redirected = await api.request('POST', '/user/webhook/test', { key: user.key });
    expect(redirected.body).toMatchObject({
      delivered: false,
      status_code: 302,
      error: 'HTTP 302 (redirects are not followed)',
    });
    expect(redirected.text).not.toContain('receiver says no');
    // Test events are not deliveries: nothing stored, nothing retried.
    const deliveries = await api.request('GET', '/user/webhook/deliveries', { key: user.key });
    expect(deliveries.body.deliveries).toEqual([]);
  });
});
