import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTranscriptionServer,
  type TranscriptionServer,
} from '../../integration/engines/transcription-server.js';
import { type Stack, startStack } from '../../support/stack.js';

let stack: Stack;
let server: TranscriptionServer;

beforeAll(async () => {
  // An OpenAI-compatible server (transcribing what it receives), so the language in force shows in every segment.
  server = await startTranscriptionServer();
  stack = await startStack({
    workerEnv: { TRANSCRIPTION_ENGINE: 'openai', OPENAI_BASE_URL: server.baseUrl },
  });
  stack.startWorker('reconfigure-w1');
});
afterAll(async () => {
  await stack?.close();
  await server?.close();
});

interface Segment {
  text: string;
  language: string;
  absolute_start_time: string;
}

describe('PUT /bots/{platform}/{id}/config mid-meeting', () => {
  it('changes the language of the segments that follow', async () => {
    const { meetingId, nativeId } = await stack.createMeetingAndBot(
      {
        platform: 'google_meet',
        admission: { policy: 'open' },
        participants: [
          {
            name: 'Dana',
            voice: 'slt',
            utterances: [
              { at: 1, text: 'the first part of the meeting is in english' },
              { at: 14, text: 'the second part comes after the change' },
            ],
          },
        ],
      },
      { language: 'en' },
    );
    expect((await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000)).at(-1)).toBe(
      'active',
    );

    const transcriptOf = async () =>
      (await stack.api.request('GET', `/transcripts/google_meet/${nativeId}`, { key: stack.user.key })).body
        .segments as Segment[];
    await expect.poll(transcriptOf, { timeout: 60_000, interval: 500 }).toHaveLength(1);

    const change = await stack.api.request('PUT', `/bots/google_meet/${nativeId}/config`, {
      key: stack.user.key,
      json: { language: 'de' },
    });
    expect(change.status).toBe(202);
    const changedAt = Date.now();

    await stack.simulator.waitForSpeechDone(nativeId, { timeoutMs: 60_000 });
    await expect
      .poll(async () => (await transcriptOf()).filter((s) => Date.parse(s.absolute_start_time) > changedAt), {
        timeout: 60_000,
        interval: 500,
      })
      .not.toHaveLength(0);
    const segments = await transcriptOf();
    const before = segments.filter((s) => Date.parse(s.absolute_start_time) < changedAt);
    const after = segments.filter((s) => Date.parse(s.absolute_start_time) > changedAt);
    expect(new Set(before.map((s) => s.language))).toEqual(new Set(['en']));
    expect(new Set(after.map((s) => s.language))).toEqual(new Set(['de']));
    expect(server.requests.some((request) => request.fields.language === 'de')).toBe(true);

    await stack.api.request('DELETE', `/bots/google_meet/${nativeId}`, { key: stack.user.key });
  });
});
