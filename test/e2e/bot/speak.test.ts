import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatorClient } from '../../../simulator/client.js';
import { createSimulator, type Simulator } from '../../../simulator/server.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';
import { normaliseWords, wordErrorRate } from '../../support/wer.js';
import { botSegments, expectEndedWithMeeting, sendCommand, startBot, waitForStatus } from './bot-harness.js';

const prefix = uniquePrefix('bot-speak');
const redis = createTestRedis();

const SENTENCE = 'Good morning everyone, the quarterly report is ready for review.';
const LONG_TEXT =
  'Let me walk you through the plan for the next release. First we finish the design work. ' +
  'Then we test every feature on both platforms. After that we write the documentation. ' +
  'Finally we ship it to our customers and listen to what they say.';

const PLATFORMS = ['google_meet', 'teams', 'zoom'] as const;

describe.each(PLATFORMS)('the bot speaking on %s', (platform) => {
  let simulator: Simulator;

  beforeAll(async () => {
    simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await simulator?.close();
    // The last platform's cleanup is the file's.
    if (platform === PLATFORMS.at(-1)) {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    }
  });

  it('is heard by the meeting, mutes after, and stops mid-sentence when told', async () => {
    const client = new SimulatorClient(simulator.url);
    const meeting = await client.createMeeting({
      platform,
      admission: { policy: 'after', delaySeconds: 1 },
      participants: [{ name: 'Alice Archer', utterances: [{ at: 1, text: 'Hello, can you hear me?' }] }],
      endAt: 50,
    });
    const bot = startBot({ platform, meetingUrl: meeting.url }, prefix, simulator.url);
    await waitForStatus(redis, prefix, bot, 'active');
    await client.waitFor(meeting.id, (m) => m.utterances[0]?.status === 'played', 'Alice spoke', {
      timeoutMs: 60_000,
    });

    await sendCommand(redis, prefix, bot.config.meetingId, {
      type: 'speak',
      requestId: 'first',
      text: SENTENCE,
      issuedAt: new Date().toISOString(),
    });
    const heard = await client.waitFor(
      meeting.id,
      (m) => m.bot.heard[0]?.status === 'recognized' && m.bot.micOn === false,
      'the sentence heard and the microphone off again',
      { timeoutMs: 45_000 },
    );
    const first = heard.bot.heard[0]!;
    const wer = wordErrorRate(SENTENCE, first.text ?? '');
    expect(wer.rate, `heard "${first.text}"`).toBeLessThanOrEqual(0.35);

    const asked = Date.now();
    await sendCommand(redis, prefix, bot.config.meetingId, {
      type: 'speak',
      requestId: 'long',
      text: LONG_TEXT,
      issuedAt: new Date().toISOString(),
    });
    await client.waitFor(meeting.id, (m) => m.bot.heard[1]?.firstAudibleAt != null, 'the long text started', {
      timeoutMs: 20_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await sendCommand(redis, prefix, bot.config.meetingId, {
      type: 'speak.stop',
      issuedAt: new Date().toISOString(),
    });
    const stopped = await client.waitFor(
      meeting.id,
      (m) => m.bot.heard[1]?.status === 'recognized' && m.bot.micOn === false,
      'the interrupted speech recognized and the microphone off',
      { timeoutMs: 30_000 },
    );
    const second = stopped.bot.heard[1]!;
    const heardWords = normaliseWords(second.text ?? '').length;
    expect(heardWords).toBeGreaterThan(0);
    expect(heardWords).toBeLessThan(normaliseWords(LONG_TEXT).length / 2);
    expect(Date.parse(second.closedAt!) - asked).toBeLessThan(12_000);

    await expectEndedWithMeeting(redis, prefix, bot);
    // The bot's own voice never enters its transcript.
    const transcript = (await botSegments(redis, prefix, bot.config.sessionId))
      .filter((segment) => segment.final)
      .map((segment) => segment.text)
      .join(' ');
    expect(transcript).not.toMatch(/quarterly|release|documentation/i);
  });
});
