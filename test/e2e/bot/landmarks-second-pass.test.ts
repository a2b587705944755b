/**
 * The second-round landmarks of docs/platform-landmarks.md (what other public bots rely on), row by row: each
 * test switches the row's trap on in the simulator and runs the real bot session (driver, capture,
 * recognizer, Redis outbox) against it in real Chromium, so a change that breaks a row names it.
 * One Chromium and one simulator serve every row; each row gets a fresh browser context.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { type Browser, type Page, chromium as playwrightChromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserSession,
  chromiumArgs,
  launchBrowser,
  openBrowserSession,
} from '../../../bot/browser.js';
import { featureMergingLauncher } from '../../../bot/chromium-launcher.js';
import { EndSignal, type Outcome } from '../../../bot/end-signal.js';
import { createEngine } from '../../../bot/engines/index.js';
import { type MeetingPage, openMeetingPageIn } from '../../../bot/meeting-page.js';
import { Outbox } from '../../../bot/outbox.js';
import { readEvidence } from '../../../bot/platforms/page-actions.js';
import { BotSession } from '../../../bot/session.js';
import type { SignalledSpeakingChange } from '../../../bot/speakers/attribution.js';
import { type BotConfigInput, botConfigSchema } from '../../../shared/contract/bot-config.js';
import type { BotCommand } from '../../../shared/contract/commands.js';
import type { Platform } from '../../../shared/contract/platforms.js';
import type { Logger } from '../../../shared/infra/logger.js';
import { type CreateMeetingInput, type MeetingSnapshot, SimulatorClient } from '../../../simulator/client.js';
import { createSimulator, type Simulator } from '../../../simulator/server.js';
import { HOST_CHROMIUM } from '../../support/chromium.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { solidPng } from '../../support/png.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';
import { botEvents, botSegments, statusTrail } from './bot-harness.js';

const prefix = uniquePrefix('landmarks');
const redis = createTestRedis();
const BOT_NAME = 'Meetbot Notetaker';
const ALICE = 'Alice Example';
const BOB = 'Bob Builder';
const LINE = 'Good morning everyone, let us begin.';
const ROW_TIMEOUT = 90_000;

let simulator: Simulator;
let client: SimulatorClient;
let chromium: BrowserSession;
/** A Chromium whose own language is German, as on a German host (the locale rows start it). */
let germanChromium: Browser | null = null;
let nextMeetingId = 500_000 + Math.floor(Math.random() * 100_000);
const running: RowBot[] = [];

beforeAll(async () => {
  simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
  client = new SimulatorClient(simulator.url);
  const config = botConfigFor('google_meet', 'http://127.0.0.1/abc-defg-hij');
  chromium = await launchBrowser(config.browser, pino({ level: 'silent' }));
});

afterAll(async () => {
  // A row that failed half-way leaves its bot running: end it before its browser goes.
  await Promise.all(running.map((bot) => bot.stop()));
  await chromium?.close();
  await germanChromium?.close();
  await simulator?.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

function botConfigFor(platform: Platform, meetingUrl: string, extra: Partial<BotConfigInput> = {}) {
  return botConfigSchema.parse({
    meetingId: nextMeetingId++,
    sessionId: randomUUID(),
    platform,
    meetingUrl,
    botName: BOT_NAME,
    language: 'en',
    redisUrl: TEST_REDIS_URL,
    streamPrefix: prefix,
    // As workers send it: the bot's own streams, where the harness reads.
    streams: 'own',
    extraAllowedOrigins: simulator ? [simulator.url] : [],
    logLevel: 'info',
    browser: HOST_CHROMIUM,
    ...extra,
  });
}

/** One bot session running in the shared Chromium, with what a row's test needs to look at. */
interface RowBot {
  sessionId: string;
  /** The session's outcome, published like the bot's main does. */
  done: Promise<Outcome>;
  /** Lifecycle statuses published so far (the final one included once `done` resolved). */
  trail(): Promise<string[]>;
  speaking: SignalledSpeakingChange[];
  page(): Page;
  meetingPage(): MeetingPage;
  /** The session's log lines, for failure messages. */
  log(): string;
  /** What the page showed (its app's text) when the session closed it; null before. */
  lastText(): string | null;
  /** A command as the bot's command reader hands it over (speak, screen, chat…). */
  command(command: BotCommand): void;
  stop(): Promise<Outcome>;
}

function startBot(
  platform: Platform,
  meetingUrl: string,
  extra: Partial<BotConfigInput> = {},
  browser?: Browser,
  { readsChat = false }: { readsChat?: boolean } = {},
): RowBot {
  const config = botConfigFor(platform, meetingUrl, extra);
  const lines: string[] = [];
  const log: Logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
  const outbox = new Outbox(redis, config, log);
  const end = new EndSignal();
  const speaking: SignalledSpeakingChange[] = [];
  let browserSession: BrowserSession | null = null;
  let meetingPage: MeetingPage | null = null;
  let lastText: string | null = null;
  const session = new BotSession({
    config,
    outbox,
    // As the bot's main, for the chat rows: the chat it reads goes out through the outbox (the
    // other rows leave the chat panel closed, as they were written).
    ...(readsChat && { chatSink: outbox }),
    log,
    createEngine,
    end,
    openPage: async (pageConfig, hooks, pageLog) => {
      browserSession = await openBrowserSession(browser ?? chromium.browser, pageLog, { ownsBrowser: false });
      meetingPage = await openMeetingPageIn(
        browserSession,
        pageConfig,
        {
          onSpeaking: (change) => {
            speaking.push(change);
            hooks.onSpeaking(change);
          },
          onFatal: hooks.onFatal,
        },
        pageLog,
      );
      const { close } = meetingPage;
      const page = browserSession.page;
      meetingPage.close = async () => {
        lastText =
          (
            await page
              .locator('#app, #root') // Zoom's page mounts in #root, as the real web client does
              .textContent({ timeout: 2000 })
              .catch(() => null)
          )?.trim() ?? null;
        await close();
      };
      return meetingPage;
    },
  });
  const done = session
    .run()
    .catch((error: unknown): Outcome => ({ status: 'failed', reason: 'crashed', detail: String(error) }))
    .then(async (outcome) => {
      await outbox.event(outcome);
      await outbox.drain();
      return outcome;
    });
  const bot: RowBot = {
    sessionId: config.sessionId,
    done,
    trail: async () => statusTrail(await botEvents(redis, prefix, config.sessionId)),
    speaking,
    page: () => {
      if (!browserSession) throw new Error('the bot has no page yet');
      return browserSession.page;
    },
    meetingPage: () => {
      if (!meetingPage) throw new Error('the bot has no page yet');
      return meetingPage;
    },
    log: () => lines.slice(-60).join(''),
    lastText: () => lastText,
    command: (command) => session.handleCommand(command),
    stop: async () => {
      end.end({ status: 'completed', reason: 'stopped', detail: 'test' });
      return done;
    },
  };
  running.push(bot);
  return bot;
}

async function meetingWith(
  platform: Platform,
  input: Omit<CreateMeetingInput, 'platform'>,
): Promise<MeetingSnapshot> {
  return client.createMeeting({ platform, ...input });
}

/** Waits for a lifecycle status; the failure message carries the bot's log. */
async function waitForStatus(bot: RowBot, status: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await bot.trail()).some((entry) => entry === status || entry.startsWith(`${status}:`))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the bot never reported ${status}; trail ${await bot.trail()}; log:\n${bot.log()}`);
}

async function expectTrail(bot: RowBot, expected: string[]): Promise<void> {
  await bot.done;
  expect(await bot.trail(), bot.log()).toEqual(expected);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type MeetingParticipants = NonNullable<CreateMeetingInput['participants']>;
/** Alice says LINE a second into the call. */
const ALICE_SPEAKS: MeetingParticipants = [
  { name: ALICE, voice: 'slt', utterances: [{ at: 1, text: LINE }] },
];
/** Alice says LINE, then Bob answers: the rows that check both names. */
const ALICE_AND_BOB_SPEAK: MeetingParticipants = [
  ...ALICE_SPEAKS,
  { name: BOB, voice: 'rms', utterances: [{ at: 6, text: 'Thank you, the numbers look good.' }] },
];

/** The host ends the meeting; the bot's trail must close with completed:meeting_ended. */
async function endMeetingAndExpectCompleted(bot: RowBot, meetingId: string): Promise<void> {
  await client.endMeeting(meetingId);
  await expectTrail(bot, ['joining', 'awaiting_admission', 'active', 'completed:meeting_ended']);
}

/** The bot is in the meeting's lobby and has reported awaiting_admission. */
async function waitInLobby(bot: RowBot, meetingId: string): Promise<void> {
  await client.waitForBotState(meetingId, 'lobby', { timeoutMs: 30_000 });
  await waitForStatus(bot, 'awaiting_admission', 10_000);
}

/** The bot keeps waiting in the lobby for `waitMs`; then the host admits it and it goes active. */
async function admitAfterWaiting(bot: RowBot, meetingId: string, waitMs: number): Promise<void> {
  await pause(waitMs);
  expect(await bot.trail()).toEqual(['joining', 'awaiting_admission']);
  await client.admit(meetingId);
  await waitForStatus(bot, 'active');
}

/**
 * A bot sits through a meeting (open admission, the page set up by `input`) where Alice speaks,
 * then Bob; the host ends it once they're done and the bot's trail closes with meeting_ended.
 */
async function aliceAndBobSpeakThrough(
  platform: Platform,
  input: Omit<CreateMeetingInput, 'platform' | 'admission' | 'participants'>,
): Promise<{ bot: RowBot; meeting: MeetingSnapshot }> {
  const meeting = await meetingWith(platform, {
    admission: { policy: 'open' },
    participants: ALICE_AND_BOB_SPEAK,
    ...input,
  });
  const bot = startBot(platform, meeting.url);
  await waitForStatus(bot, 'active');
  await client.waitForSpeechDone(meeting.id, { timeoutMs: 40_000 });
  await endMeetingAndExpectCompleted(bot, meeting.id);
  return { bot, meeting };
}

/** The names each of the page's speaking signals reported talking (WebRTC sources aside). */
function namesBySignal(bot: RowBot): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  for (const change of bot.speaking) {
    if (change.signal === 'webrtc' || !change.speaking) continue;
    names.set(change.signal, new Set([...(names.get(change.signal) ?? []), change.name]));
  }
  return names;
}

/** Every name any page signal reported talking. */
function pageNames(bot: RowBot): Set<string> {
  return new Set([...namesBySignal(bot).values()].flatMap((names) => [...names]));
}

/** The bot published speech, and every non-empty segment is attributed to one of `names`, each of them used. */
async function expectSpeakers(bot: RowBot, names: string[]): Promise<void> {
  const spoken = (await botSegments(redis, prefix, bot.sessionId)).filter((s) => s.text.trim() !== '');
  expect(spoken.length, bot.log()).toBeGreaterThan(0);
  expect(new Set(spoken.map((segment) => segment.speaker)), bot.log()).toEqual(new Set(names));
}

/**
 * The German-page rows' ending: once Alice and Bob have spoken the bot is stopped, leaves through
 * the page's leave button onto the German "left" screen, and attributed speech to both.
 */
async function stopAndExpectGermanLeave(bot: RowBot, meetingId: string): Promise<void> {
  await client.waitForSpeechDone(meetingId, { timeoutMs: 40_000 });
  expect(await bot.stop()).toMatchObject({ status: 'completed', reason: 'stopped' });
  const final = await client.getMeeting(meetingId);
  expect(final.bot, bot.log()).toMatchObject({ state: 'left', leaveReason: 'leave_button' });
  expect(bot.lastText()).toContain('Sie haben die Besprechung verlassen');
  expect(await bot.trail()).toEqual(['joining', 'awaiting_admission', 'active', 'completed:stopped']);
  expect(pageNames(bot)).toEqual(new Set([ALICE, BOB]));
  await expectSpeakers(bot, [ALICE, BOB]);
}

/**
 * Chromium as it runs on a German host: a context that doesn't choose a language gets German
 * (checked here, so the locale rows prove the bot's own choice of English).
 */
async function germanHost(): Promise<Browser> {
  if (!germanChromium) {
    const { executablePath } = botConfigFor('google_meet', 'http://127.0.0.1/abc-defg-hij').browser;
    germanChromium = await playwrightChromium.launch({
      executablePath: await featureMergingLauncher(executablePath),
      args: [...chromiumArgs(HOST_CHROMIUM), '--accept-lang=de-DE,de'],
    });
  }
  const probe = await germanChromium.newContext();
  try {
    const page = await probe.newPage();
    expect(await page.evaluate(() => navigator.language)).toBe('de-DE');
  } finally {
    await probe.close();
  }
  return germanChromium;
}

/** The Accept-Language header the page's requests carry, as a local echo server receives it. */
async function acceptLanguageSentBy(page: Page): Promise<string> {
  const echo = createServer((request, response) => {
    response.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
    response.end(request.headers['accept-language'] ?? '');
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = echo.address() as AddressInfo;
    return await page.evaluate(async (url) => (await fetch(url)).text(), `http://127.0.0.1:${port}/`);
  } finally {
    echo.close();
  }
}

describe('second pass, Google Meet', () => {
  it(
    "Meet: tile names in span.notranslate → speaker names come from it, not the tile's other spans",
    async () => {
      const meeting = await meetingWith('google_meet', {
        admission: { policy: 'open' },
        traps: { notranslateNames: true },
        participants: ALICE_SPEAKS,
      });
      const bot = startBot('google_meet', meeting.url);
      await waitForStatus(bot, 'active');
      // The trap is on: the tile's first text is a hover label, the name is in span.notranslate.
      const texts = await bot
        .page()
        .locator(`.tile[data-participant-id="${meeting.participants[0]!.deviceId}"] span`)
        .allTextContents();
      expect(texts[0]).toBe(`More options for ${ALICE}`);
      await client.waitForSpeechDone(meeting.id, { timeoutMs: 30_000 });
      await endMeetingAndExpectCompleted(bot, meeting.id);
      expect(pageNames(bot)).toEqual(new Set([ALICE]));
      await expectSpeakers(bot, [ALICE]);
    },
    ROW_TIMEOUT,
  );

  it(
    'Meet: recording-consent dialog → its data-mdc-dialog-action="ok" button is pressed; media starts only then',
    async () => {
      const meeting = await meetingWith('google_meet', {
        admission: { policy: 'after', delaySeconds: 1 },
        traps: { consentDialog: true },
        participants: [
          { name: ALICE, voice: 'slt', utterances: [{ at: 0.5, text: 'Welcome to the call.' }] },
        ],
      });
      const bot = startBot('google_meet', meeting.url);
      await waitForStatus(bot, 'active');
      const answered = await client.waitForBotState(meeting.id, 'in_call', { timeoutMs: 10_000 });
      expect(answered.bot.history.map((entry) => entry.state)).toEqual([
        'prejoin',
        'lobby',
        'admitted',
        'in_call',
      ]);
      expect(Date.parse(answered.bot.mediaStartedAt!)).toBeGreaterThan(Date.parse(answered.bot.admittedAt!));
      const done = await client.waitForSpeechDone(meeting.id, { timeoutMs: 30_000 });
      expect(done.utterances.map((u) => u.status)).toEqual(['played']);
      await endMeetingAndExpectCompleted(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );

  it.each([
    ['…admits you to the call', 'Please wait until the meeting host admits you to the call'],
    ['waiting to be let in', 'Waiting to be let in…'],
  ] as const)(
    'Meet: lobby text "%s" → lobby (waits, then is admitted)',
    async (_row, lobbyText) => {
      const meeting = await meetingWith('google_meet', {
        admission: { policy: 'host' },
        traps: { lobbyText },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('google_meet', meeting.url);
      await waitInLobby(bot, meeting.id);
      expect(await bot.page().locator('body').textContent()).toContain(lobbyText);
      await admitAfterWaiting(bot, meeting.id, 2500);
      await endMeetingAndExpectCompleted(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );

  it(
    'Meet: "You left the meeting" alone after asking to join → admission_denied',
    async () => {
      const meeting = await meetingWith('google_meet', {
        admission: { policy: 'deny', delaySeconds: 1 },
        traps: { deniedAsLeft: true },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('google_meet', meeting.url);
      await expectTrail(bot, ['joining', 'awaiting_admission', 'failed:admission_denied']);
      expect((await client.getMeeting(meeting.id)).bot.state).toBe('denied');
      expect(bot.lastText()).toBe('You left the meeting');
    },
    ROW_TIMEOUT,
  );

  it(
    'Meet: in-page screen with the heading "Sign in" → sign_in_required',
    async () => {
      const meeting = await meetingWith('google_meet', {
        traps: { signInScreen: true },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('google_meet', meeting.url);
      await expectTrail(bot, ['joining', 'failed:sign_in_required']);
      const final = await client.getMeeting(meeting.id);
      expect(final.bot.askedAt).toBeNull();
      expect(await bot.done).toMatchObject({ detail: '"sign in" screen' });
      expect(bot.lastText()).toMatch(/^Sign in/);
    },
    ROW_TIMEOUT,
  );

  it(
    'Meet: People list (role="list", aria-label "Participants") → rows name everyone; each row\'s mic level follows its speech',
    async () => {
      const meeting = await meetingWith('google_meet', {
        admission: { policy: 'open' },
        traps: { peoplePanelOpen: true },
        participants: [
          { name: ALICE, voice: 'slt', utterances: [{ at: 3, text: LINE }] },
          { name: BOB, voice: 'rms' },
        ],
      });
      const bot = startBot('google_meet', meeting.url);
      await waitForStatus(bot, 'active');
      const page = bot.page();
      const evidence = await readEvidence(page);
      expect(evidence.people).toEqual([
        { name: BOT_NAME, self: true },
        { name: ALICE, self: false },
        { name: BOB, self: false },
      ]);
      const observation = await bot.meetingPage().driver.observe();
      expect(observation).toEqual({
        screen: { kind: 'in_call' },
        others: 2,
        people: { names: [ALICE, BOB], complete: true },
      });
      // Item 3 builds on this element: its opacity must rise while that person talks, and only then.
      await page.evaluate(() => {
        const peak: Record<string, number> = {};
        Object.assign(window, { __micPeak: peak });
        setInterval(() => {
          const rows = document.querySelectorAll('[role=list][aria-label="Participants"] [role=listitem]');
          rows.forEach((row) => {
            const level = row.querySelector('.mic-level');
            const name = row.getAttribute('aria-label') ?? '';
            peak[name] = Math.max(peak[name] ?? 0, Number(level ? getComputedStyle(level).opacity : -1));
          });
        }, 50);
      });
      await client.waitForSpeechDone(meeting.id, { timeoutMs: 30_000 });
      const peak = await page.evaluate(
        () => (window as unknown as { __micPeak: Record<string, number> }).__micPeak,
      );
      expect(peak[ALICE]).toBeGreaterThan(0.4);
      expect(peak[BOB]).toBe(0);
      expect(peak[BOT_NAME]).toBe(0);
      await endMeetingAndExpectCompleted(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );

  it.each([
    [
      'data-audio-level hidden: a generated class that churns per page load',
      { hidden: ['audio_level'] },
      ['tile_changes'],
      ['audio_level', 'speaking_class'],
    ],
    [
      'the class hidden: data-audio-level only',
      { hidden: ['tile_class'] },
      ['audio_level', 'tile_changes'],
      ['speaking_class'],
    ],
    [
      'a known real class (Oaajhc), data-audio-level hidden',
      { hidden: ['audio_level'], tileClass: 'Oaajhc' },
      ['speaking_class', 'tile_changes'],
      ['audio_level'],
    ],
  ] as const)(
    'Meet: speaking state as churning generated classes or data-audio-level, neither alone (%s) → speaker names',
    async (_row, speaking, showing, silent) => {
      const { bot } = await aliceAndBobSpeakThrough('google_meet', {
        speaking: {
          hidden: [...speaking.hidden],
          ...('tileClass' in speaking ? { tileClass: speaking.tileClass } : {}),
        },
      });
      const signals = namesBySignal(bot);
      for (const signal of showing) expect(signals.get(signal), signal).toEqual(new Set([ALICE, BOB]));
      for (const signal of silent) expect(signals.get(signal), signal).toBeUndefined();
      await expectSpeakers(bot, [ALICE, BOB]);
    },
    ROW_TIMEOUT,
  );

  it(
    "Meet: WebRTC receivers' per-source audio levels (getSynchronizationSources) → who is talking, when",
    async () => {
      const { bot, meeting } = await aliceAndBobSpeakThrough('google_meet', {
        audio: { mode: 'slots', trackDelaySeconds: 0 },
      });
      // Each line went to its own audio slot, a source of its own; each source talked about as
      // long as its line (the levels' hangover bridges the gaps between words).
      const played = (await client.getMeeting(meeting.id)).utterances;
      const talk = new Map<string, number>();
      const opened = new Map<string, number>();
      for (const change of bot.speaking.filter((c) => c.signal === 'webrtc')) {
        expect(change.name).toMatch(/^source:ssrc:\d+$/);
        if (change.speaking) opened.set(change.name, change.at);
        else if (opened.has(change.name)) {
          talk.set(change.name, (talk.get(change.name) ?? 0) + change.at - opened.get(change.name)!);
          opened.delete(change.name);
        }
      }
      const seconds = [...talk.values()].sort((a, b) => a - b);
      const lines = played.map((u) => u.durationSeconds).sort((a, b) => a - b);
      expect(seconds.length, JSON.stringify([...talk])).toBe(2);
      seconds.forEach((talked, index) => {
        expect(talked).toBeGreaterThan(lines[index]! * 0.6);
        expect(talked).toBeLessThan(lines[index]! + 1.5);
      });
      await expectSpeakers(bot, [ALICE, BOB]);
    },
    ROW_TIMEOUT,
  );
});

/**
 * Locale (item 4): a German meeting page. As built, the bot asks for English (Meet: `hl=en` on the
 * URL; Teams: its context's en-US locale and Accept-Language) and transcribes as usual; with the
 * page ignoring that, the driver goes through the German texts: join, lobby, dialogs, speaker names
 * and the leave.
 */
describe('second pass, locale', () => {
  it(
    'Meet: locale: hl=en forces English on a German page → the English UI, transcribed normally',
    async () => {
      const meeting = await meetingWith('google_meet', {
        admission: { policy: 'after', delaySeconds: 1 },
        traps: { locale: 'de' },
        participants: ALICE_SPEAKS,
      });
      const bot = startBot('google_meet', meeting.url, {}, await germanHost());
      await waitForStatus(bot, 'active');
      const page = bot.page();
      expect(new URL(page.url()).searchParams.get('hl')).toBe('en');
      await expect(page.getByRole('button', { name: 'Leave call', exact: true }).count()).resolves.toBe(1);
      await expect(page.getByRole('button', { name: 'Anruf verlassen', exact: true }).count()).resolves.toBe(
        0,
      );
      await client.waitForSpeechDone(meeting.id, { timeoutMs: 30_000 });
      await endMeetingAndExpectCompleted(bot, meeting.id);
      expect(bot.lastText()).toContain('Your host ended the meeting for everyone');
      await expectSpeakers(bot, [ALICE]);
    },
    ROW_TIMEOUT,
  );

  it(
    'Meet: locale: German texts ("Teilnahme anfordern", "Jetzt teilnehmen", …) still resolve when hl=en is ignored → joins, waits, answers the dialog, hears names, leaves',
    async () => {
      const meeting = await meetingWith('google_meet', {
        admission: { policy: 'host' },
        traps: {
          locale: 'de',
          ignoreLanguageHints: true,
          recordingDialog: true,
          resetTogglesOnAdmission: true,
          leaveConfirmation: true,
        },
        participants: ALICE_AND_BOB_SPEAK,
      });
      const bot = startBot('google_meet', meeting.url);
      await waitInLobby(bot, meeting.id);
      const page = bot.page();
      expect(new URL(page.url()).searchParams.get('hl')).toBe('en');
      expect(await page.locator('body').textContent()).toContain('Teilnahme wird angefragt');
      expect(bot.log()).toContain('pressed \\"teilnahme anfordern\\"');
      const asked = await client.getMeeting(meeting.id);
      expect(asked.bot).toMatchObject({ name: BOT_NAME, micOn: false, cameraOn: false });
      await admitAfterWaiting(bot, meeting.id, 2000);
      // The dialog's German "Jetzt teilnehmen" let media start; the toggles Meet turned back on are off again.
      await client.waitFor(
        meeting.id,
        (m) => m.bot.state === 'in_call' && !m.bot.micOn && !m.bot.cameraOn,
        'the bot in the call with mic and camera off',
      );
      await expect(page.getByRole('button', { name: 'Anruf verlassen', exact: true }).count()).resolves.toBe(
        1,
      );
      await stopAndExpectGermanLeave(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );

  it(
    "Teams: locale: the context's en-US locale / Accept-Language gives the English UI on a German page → transcribed normally",
    async () => {
      const meeting = await meetingWith('teams', {
        admission: { policy: 'host' },
        traps: { locale: 'de' },
        participants: ALICE_SPEAKS,
      });
      const bot = startBot('teams', meeting.url, {}, await germanHost());
      await client.waitForBotState(meeting.id, 'lobby', { timeoutMs: 30_000 });
      const page = bot.page();
      expect(await page.evaluate(() => navigator.language)).toBe('en-US');
      expect(await acceptLanguageSentBy(page)).toMatch(/^en-US\b/);
      expect(await page.locator('body').textContent()).toContain('Someone will let you in shortly');
      await client.admit(meeting.id);
      await waitForStatus(bot, 'active');
      await client.waitForSpeechDone(meeting.id, { timeoutMs: 30_000 });
      await endMeetingAndExpectCompleted(bot, meeting.id);
      expect(bot.lastText()).toContain('Meeting ended');
      await expectSpeakers(bot, [ALICE]);
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: locale: German texts still resolve when the browser language is ignored → launcher, modal, lobby, speaker names, leave with confirmation',
    async () => {
      const meeting = await meetingWith('teams', {
        admission: { policy: 'host' },
        traps: {
          locale: 'de',
          ignoreLanguageHints: true,
          launcherAriaLabels: true,
          noAudioVideoModal: true,
          leaveConfirmation: true,
        },
        participants: ALICE_AND_BOB_SPEAK,
      });
      const bot = startBot('teams', meeting.url);
      await waitInLobby(bot, meeting.id);
      const page = bot.page();
      expect(await page.locator('body').textContent()).toContain('Jemand wird Sie in Kürze einlassen');
      expect(bot.log()).toContain('continued in the browser');
      expect(bot.log()).toContain('continued without audio or video');
      const asked = await client.getMeeting(meeting.id);
      expect(asked.bot).toMatchObject({ name: BOT_NAME, micOn: false, cameraOn: false });
      await admitAfterWaiting(bot, meeting.id, 2000);
      await expect(page.getByRole('button', { name: 'Verlassen', exact: true }).count()).resolves.toBe(1);
      await stopAndExpectGermanLeave(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );
});

describe('second pass, Microsoft Teams', () => {
  it.each([
    ['checkbox-like inputs (checked)', true],
    ['switches with aria-checked', false],
  ] as const)(
    'Teams: toggle-mute / toggle-video as %s → joins with mic and camera off',
    async (_row, toggleInputs) => {
      const meeting = await meetingWith('teams', {
        admission: { policy: 'open' },
        traps: { toggleInputs },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('teams', meeting.url);
      // A bot's Chromium starting on a loaded run took more than the default 30 s once.
      await client.waitFor(meeting.id, (m) => m.bot.askedAt !== null, 'the bot to ask to join', {
        timeoutMs: 90_000,
      });
      await waitForStatus(bot, 'active');
      const asked = await client.getMeeting(meeting.id);
      expect({ micOn: asked.bot.micOn, cameraOn: asked.bot.cameraOn }, bot.log()).toEqual({
        micOn: false,
        cameraOn: false,
      });
      expect(bot.log()).toContain('"switches":["microphone off","camera off"]');
      await endMeetingAndExpectCompleted(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: the camera toggle labelled "Turn on video" / "Turn off video" → an image goes on as the camera and off again',
    async () => {
      const meeting = await meetingWith('teams', {
        admission: { policy: 'open' },
        traps: { videoToggleLabels: true },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('teams', meeting.url);
      await waitForStatus(bot, 'active');
      await expect(
        bot.page().getByRole('button', { name: 'Turn on video', exact: true }).count(),
      ).resolves.toBe(1);
      const issuedAt = () => new Date().toISOString();
      bot.command({
        type: 'screen.show',
        image: { base64: solidPng(160, 90, [30, 200, 60]).toString('base64') },
        issuedAt: issuedAt(),
      });
      const shown = await client.waitFor(
        meeting.id,
        (m) => m.bot.cameraOn === true && m.bot.video.showing,
        'the image as the camera',
        { timeoutMs: 30_000 },
      );
      expect(shown.bot.video.averageColor?.[1], bot.log()).toBeGreaterThan(150);
      bot.command({ type: 'screen.stop', issuedAt: issuedAt() });
      await client.waitFor(meeting.id, (m) => !m.bot.cameraOn, 'the camera off', { timeoutMs: 30_000 });
      await endMeetingAndExpectCompleted(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: the chat compose box labelled "Type a new message", without data-tid="ckeditor" → the bot writes in it',
    async () => {
      const meeting = await meetingWith('teams', {
        admission: { policy: 'open' },
        traps: { chatNewMessageInput: true },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('teams', meeting.url, {}, undefined, { readsChat: true });
      await waitForStatus(bot, 'active');
      const text = 'Notes will follow by email';
      bot.command({ type: 'chat.send', id: randomUUID(), text, issuedAt: new Date().toISOString() });
      const written = await client.waitFor(
        meeting.id,
        (m) => m.chat.some((c) => c.text === text),
        'the bot message in the chat',
        { timeoutMs: 30_000 },
      );
      expect(written.chat.find((c) => c.text === text)?.from, bot.log()).toBe('bot');
      await expect(
        bot.page().locator('[role="textbox"][aria-label="Type a new message"]:not([data-tid])').count(),
      ).resolves.toBe(1);
      await endMeetingAndExpectCompleted(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: launcher buttons named by aria-label (their text is title + description) → continues in the browser',
    async () => {
      const meeting = await meetingWith('teams', {
        admission: { policy: 'open' },
        traps: { launcherAriaLabels: true },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('teams', meeting.url);
      await waitForStatus(bot, 'active');
      expect(bot.log()).toContain('continued in the browser');
      await endMeetingAndExpectCompleted(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: lobby Cancel (data-tid="prejoin-cancel-button") while waiting → still the lobby; the bot leaves through it',
    async () => {
      const meeting = await meetingWith('teams', {
        admission: { policy: 'host' },
        traps: { lobbyCancel: true },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('teams', meeting.url, { automaticLeave: { admissionTimeoutSeconds: 6 } });
      await waitInLobby(bot, meeting.id);
      await expect(bot.page().locator('[data-tid="prejoin-cancel-button"]').isVisible()).resolves.toBe(true);
      await expectTrail(bot, ['joining', 'awaiting_admission', 'failed:admission_timeout']);
      const final = await client.getMeeting(meeting.id);
      expect(final.bot.history.map((entry) => entry.state)).toEqual(['prejoin', 'lobby', 'left']);
      expect(final.bot.leaveReason).toBe('lobby_cancel');
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: "Looks like the meeting URL is incorrect. Please check the URL and try again." (one sentence) → meeting_not_found',
    async () => {
      const bot = startBot('teams', `${simulator.url}/meet/987654321098?p=Nope12`);
      await expectTrail(bot, ['joining', 'failed:meeting_not_found']);
      expect(bot.lastText()).toBe(
        'Looks like the meeting URL is incorrect. Please check the URL and try again.',
      );
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: the light client reloads with lightExperience=false → the bot survives the reload and joins',
    async () => {
      const meeting = await meetingWith('teams', {
        admission: { policy: 'after', delaySeconds: 1 },
        traps: { fullExperienceReload: true },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('teams', meeting.url);
      await waitForStatus(bot, 'active', 45_000);
      expect(new URL(bot.page().url()).searchParams.get('lightExperience')).toBe('false');
      const joined = await client.getMeeting(meeting.id);
      expect(joined.bot).toMatchObject({ state: 'in_call', name: BOT_NAME, micOn: false, cameraOn: false });
      await endMeetingAndExpectCompleted(bot, meeting.id);
    },
    ROW_TIMEOUT,
  );

  it.each([
    ['"We need to verify your info before you can join"', 'verify_info'],
    ['"Sign in to continue"', 'sign_in_to_continue'],
    ['"Enter your email, phone, or Skype"', 'enter_email'],
    ['"Pick an account"', 'pick_account'],
    ['login form with input[name="loginfmt"]', 'login_form'],
  ] as const)(
    'Teams: sign-in family, %s → sign_in_required',
    async (_row, signIn) => {
      const meeting = await meetingWith('teams', { traps: { signIn }, participants: [{ name: ALICE }] });
      const bot = startBot('teams', meeting.url);
      await expectTrail(bot, ['joining', 'failed:sign_in_required']);
      expect((await client.getMeeting(meeting.id)).bot.askedAt).toBeNull();
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: "Verify you\'re a real person" (a challenge for anonymous guests) → verification_required',
    async () => {
      const meeting = await meetingWith('teams', {
        traps: { signIn: 'real_person' },
        participants: [{ name: ALICE }],
      });
      const bot = startBot('teams', meeting.url);
      await expectTrail(bot, ['joining', 'failed:verification_required']);
      expect((await client.getMeeting(meeting.id)).bot.askedAt).toBeNull();
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: speaking as style/class/aria changes on voice-level-stream-outline (vdi-frame-occlusion never changing) → speaker names',
    async () => {
      const { bot } = await aliceAndBobSpeakThrough('teams', {
        speaking: { hidden: ['outline_class'] },
      });
      const signals = namesBySignal(bot);
      expect(signals.get('speaking_class')).toBeUndefined();
      expect(signals.get('outline_style')).toEqual(new Set([ALICE, BOB]));
      expect(signals.get('tile_changes')).toEqual(new Set([ALICE, BOB]));
      await expectSpeakers(bot, [ALICE, BOB]);
    },
    ROW_TIMEOUT,
  );

  it(
    'Teams: live captions under data-tid="closed-caption-renderer-wrapper" → a second source of who said what',
    async () => {
      // The outline shows nothing at all: the captions (and the sources they name) carry the names.
      const { bot } = await aliceAndBobSpeakThrough('teams', {
        traps: { liveCaptions: true },
        speaking: { hidden: ['outline_class', 'outline_style'] },
      });
      const signals = namesBySignal(bot);
      expect(signals.get('captions')).toEqual(new Set([ALICE, BOB]));
      expect(signals.get('outline_style')).toBeUndefined();
      await expectSpeakers(bot, [ALICE, BOB]);
    },
    ROW_TIMEOUT,
  );
});

describe('Zoom (web client)', () => {
  it(
    'Zoom: German page (ignoreLanguageHints), the invitation link, "Join Audio by Computer" → joined, Alice and Bob named from the active speaker, left through "Meeting verlassen"',
    async () => {
      const meeting = await meetingWith('zoom', {
        admission: { policy: 'after', delaySeconds: 1 },
        traps: { locale: 'de', ignoreLanguageHints: true, joinAudioDialog: true },
        participants: ALICE_AND_BOB_SPEAK,
      });
      const bot = startBot('zoom', meeting.url);
      await waitForStatus(bot, 'active');
      await client.waitForSpeechDone(meeting.id, { timeoutMs: 40_000 });
      expect(await bot.stop()).toMatchObject({ status: 'completed', reason: 'stopped' });
      const final = await client.getMeeting(meeting.id);
      expect(final.bot, bot.log()).toMatchObject({
        state: 'left',
        leaveReason: 'leave_button',
        micOn: false,
      });
      expect(bot.lastText()).toContain('Sie haben das Meeting verlassen');
      expect(namesBySignal(bot).get('active_speaker')).toEqual(new Set([ALICE, BOB]));
      await expectSpeakers(bot, [ALICE, BOB]);
    },
    ROW_TIMEOUT,
  );

  it.each([
    ['a link without pwd into a meeting that asks for a passcode', 'meeting_not_found', ''],
    ['a link whose pwd the meeting refuses ("Passcode wrong")', 'meeting_not_found', '?pwd=Wrong123'],
  ])(
    'Zoom: %s → %s',
    async (_label, reason, query) => {
      const meeting = await meetingWith('zoom', { passcode: 'Zm42pass', admission: { policy: 'open' } });
      const bot = startBot('zoom', `${simulator.url}/wc/${meeting.id}/join${query}`);
      await expectTrail(bot, ['joining', `failed:${reason}`]);
      expect((await client.getMeeting(meeting.id)).bot.state).toBe('none');
    },
    ROW_TIMEOUT,
  );

  it(
    'Zoom: the host requires sign-in → sign_in_required; an unknown meeting id → meeting_not_found',
    async () => {
      const meeting = await meetingWith('zoom', { traps: { zoomSignIn: true } });
      const signIn = startBot('zoom', meeting.url);
      await expectTrail(signIn, ['joining', 'failed:sign_in_required']);
      const unknown = startBot('zoom', `${simulator.url}/j/98765432109`);
      await expectTrail(unknown, ['joining', 'failed:meeting_not_found']);
      expect(unknown.lastText()).toContain('This meeting ID is not valid');
    },
    ROW_TIMEOUT,
  );
});
