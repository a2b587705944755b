import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatorClient } from '../../../simulator/client.js';
import { createSimulator, type Simulator } from '../../../simulator/server.js';
import {
  startTranscriptionServer,
  type TranscriptionServer,
} from '../../integration/engines/transcription-server.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';
import { botSegments, expectEndedWithMeeting, sendCommand, startBot, waitForStatus } from './bot-harness.js';

const prefix = uniquePrefix('bot-reconfigure');
const redis = createTestRedis();

describe.each(['google_meet', 'teams'] as const)('reconfiguring a bot on %s', (platform) => {
  let simulator: Simulator;
  let server: TranscriptionServer;

  beforeAll(async () => {
    simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
    // An OpenAI-compatible server, so the language in force is visible in requests and segments.
    server = await startTranscriptionServer();
  });

  afterAll(async () => {
    await simulator?.close();
    await server?.close();
    if (platform === 'teams') {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    }
  });

  it('applies a new language to the segments after the command and keeps transcribing', async () => {
    const client = new SimulatorClient(simulator.url);
    const meeting = await client.createMeeting({
      platform,
      admission: { policy: 'after', delaySeconds: 1 },
      participants: [
        {
          name: 'Alice Archer',
          utterances: [{ at: 1, text: 'Good morning everyone. We will review the schedule.' }],
        },
        {
          name: 'Bob Baker',
          utterances: [{ at: 12, text: 'The design work is finished and testing starts on Monday.' }],
        },
      ],
      endAt: 24,
    });
    const bot = startBot(
      {
        platform,
        meetingUrl: meeting.url,
        transcription: { engine: 'openai', baseUrl: server.baseUrl, model: 'whisper-1' },
      },
      prefix,
      simulator.url,
    );
    await waitForStatus(redis, prefix, bot, 'active');
    await client.waitFor(meeting.id, (m) => m.utterances[0]?.status === 'played', 'the first utterance', {
      timeoutMs: 60_000,
    });
    await sendCommand(redis, prefix, bot.config.meetingId, {
      type: 'reconfigure',
      language: 'de',
      botName: 'Renamed Notetaker',
      issuedAt: new Date().toISOString(),
    });
    await expectEndedWithMeeting(redis, prefix, bot);

    const played = (await client.getMeeting(meeting.id)).utterances;
    const second = Date.parse(played[1]!.startedAt!);
    const finals = (await botSegments(redis, prefix, bot.config.sessionId)).filter(
      (segment) => segment.final && segment.text.trim() !== '',
    );
    const before = finals.filter((segment) => Date.parse(segment.absoluteEndTime) < second);
    const after = finals.filter((segment) => Date.parse(segment.absoluteStartTime) >= second - 500);
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect(new Set(before.map((segment) => segment.language))).toEqual(new Set(['en']));
    expect(new Set(after.map((segment) => segment.language))).toEqual(new Set(['de']));
    expect(after.map((segment) => segment.speaker)).toContain('Bob Baker');
    expect(server.requests.some((request) => request.fields.language === 'de')).toBe(true);
    expect(bot.output()).toContain('Renamed Notetaker');
  });
});
