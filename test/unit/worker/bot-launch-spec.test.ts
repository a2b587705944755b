import { describe, expect, it } from 'vitest';
import {
  BOT_CONFIG_ENV,
  type BotConfig,
  botConfigSchema,
  parseBotConfig,
  parseBotSecrets,
  transcriptionConfig,
  withBotSecrets,
} from '../../../shared/contract/bot-config.js';
import { parseConfig } from '../../../shared/infra/config.js';
import type { MeetingRecord } from '../../../shared/meetings/store.js';
import { type BotContainerSpec, Labels } from '../../../worker/runtime/bot-runtime.js';
import { botContainerSpec, transcriptionConfigFrom } from '../../../worker/runtime/bot-launch-spec.js';
import { botSeccompProfile } from '../../../worker/runtime/bot-seccomp-profile.js';

describe('transcriptionConfigFrom', () => {
  it('passes the worker’s EMBEDDED_PROFILE on to the bot', () => {
    const config = transcriptionConfigFrom(parseConfig({ EMBEDDED_PROFILE: 'fast' }));
    expect(config).toEqual({ engine: 'embedded', profile: 'fast', extraArgs: [] });
    expect(transcriptionConfig.parse(config)).toEqual(config);
  });

  it('sends the default profile when the worker sets none', () => {
    expect(transcriptionConfigFrom(parseConfig({}))).toMatchObject({
      engine: 'embedded',
      profile: 'balanced',
    });
  });
});

describe('botConfigFor', () => {
  const meeting: MeetingRecord = {
    id: 42,
    userId: 7,
    platform: 'google_meet',
    nativeMeetingId: 'abc-defg-hij',
    status: 'requested',
    meetingUrl: 'https://meet.google.com/abc-defg-hij',
    passcode: null,
    botName: 'Notes',
    language: null,
    task: 'transcribe',
    botContainerId: null,
    startTime: null,
    endTime: null,
    data: {},
    launchSessionId: null,
    workerId: null,
    launchedAt: null,
    relaunchCount: 0,
    relaunchRequestedAt: null,
    recordingEnabled: false,
    joinAt: null,
    scheduleKey: null,
    authenticated: false,
    botAccountId: null,
    joinRetries: 0,
    retryDueAt: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };

  it.each([true, false])('tells the bot to record when the meeting asked for it (%s)', (enabled) => {
    const config = parseConfig({});
    const spec = botContainerSpec(config, { ...meeting, recordingEnabled: enabled }, 'session-1');
    const botConfig = botConfigSchema.parse(JSON.parse(spec.env[BOT_CONFIG_ENV]!));
    expect(botConfig.recording).toEqual({ enabled });
  });

  it('sends the bot to the meeting URL without parameters stored before URLs were normalised', () => {
    const config = parseConfig({});
    const stored = { ...meeting, meetingUrl: 'https://meet.google.com/abc-defg-hij?authuser=4#x' };
    const botConfig = botConfigSchema.parse(
      JSON.parse(botContainerSpec(config, stored, 'session-1').env[BOT_CONFIG_ENV]!),
    );
    expect(botConfig.meetingUrl).toBe('https://meet.google.com/abc-defg-hij');
  });

  it('holds the credential it is given, the bot’s own streams, and no other secret', () => {
    const config = parseConfig({
      REDIS_URL: 'redis://:workers-secret@127.0.0.1:6379',
      BOT_REDIS_URL: undefined,
    });
    const own = 'redis://meetbot%3Abot%3Asession-1:bot-secret@127.0.0.1:6379';
    const spec = botContainerSpec(config, meeting, 'session-1', null, own);
    expect(Object.keys(spec.env)).toEqual([BOT_CONFIG_ENV]);
    expect(spec.env[BOT_CONFIG_ENV]).not.toContain('workers-secret');
    expect(spec.env[BOT_CONFIG_ENV]).not.toContain('bot-secret@');
    expect(configAsTheBotReadsIt(spec)).toMatchObject({ redisUrl: own, streams: 'own' });
  });

  it('puts no secret in the environment: the Redis password and the engines’ API keys are in a 0600 file of the bot', () => {
    const config = parseConfig({
      TRANSCRIPTION_ENGINE: 'openai',
      OPENAI_BASE_URL: 'https://stt.example.com/v1',
      OPENAI_API_KEY: 'sk-transcription-key-123',
      SPEECH_ENGINE: 'openai',
      SPEECH_OPENAI_BASE_URL: 'https://tts.example.com/v1',
      SPEECH_OPENAI_API_KEY: 'sk-speech-key-456',
    });
    const own = 'redis://meetbot%3Abot%3Asession-1:bot-p%40ss%2Fword@127.0.0.1:6379';
    const spec = botContainerSpec(config, meeting, 'session-1', null, own);
    const everythingInspectShows = JSON.stringify({ env: spec.env, labels: spec.labels, name: spec.name });
    for (const secret of ['sk-transcription-key-123', 'sk-speech-key-456', 'bot-p%40ss', 'bot-p@ss']) {
      expect(everythingInspectShows).not.toContain(secret);
    }
    const sent = botConfigSchema.parse(JSON.parse(spec.env[BOT_CONFIG_ENV]!));
    expect(new URL(sent.redisUrl).password).toBe('');
    expect(decodeURIComponent(new URL(sent.redisUrl).username)).toBe('meetbot:bot:session-1');
    expect(sent.secretsPath).toBe('/home/bot/bot-secrets.json');
    expect(spec.files).toEqual([
      expect.objectContaining({
        directory: '/home/bot',
        name: 'bot-secrets.json',
        mode: 0o600,
        uid: 10001,
        gid: 10001,
      }),
    ]);
    // The bot puts them back as they were.
    const read = configAsTheBotReadsIt(spec);
    expect(read.redisUrl).toBe(own);
    expect(read.transcription).toMatchObject({ engine: 'openai', apiKey: 'sk-transcription-key-123' });
    expect(read.speech).toMatchObject({ engine: 'openai', apiKey: 'sk-speech-key-456' });
    expect(read.secretsPath).toBeUndefined();
  });

  it('sends no secrets file when there is no secret, and takes a config that carries its secrets itself (an older worker)', () => {
    const spec = botContainerSpec(parseConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }), meeting, 'session-1');
    expect(spec.files).toEqual([]);
    expect(parseBotConfig(spec.env[BOT_CONFIG_ENV]).secretsPath).toBeUndefined();
    const older = JSON.parse(spec.env[BOT_CONFIG_ENV]!);
    older.redisUrl = 'redis://u:inline-password@127.0.0.1:6379';
    expect(parseBotConfig(JSON.stringify(older)).redisUrl).toBe('redis://u:inline-password@127.0.0.1:6379');
  });

  it('a config from a worker older than per-bot streams (no `streams`) means the shared ones', () => {
    const config = parseConfig({});
    const sent = JSON.parse(botContainerSpec(config, meeting, 'session-1').env[BOT_CONFIG_ENV]!);
    delete sent.streams;
    expect(botConfigSchema.parse(sent).streams).toBe('shared');
  });

  it("runs Chromium's sandbox under the bot seccomp profile by default, and neither with BOT_CHROMIUM_SANDBOX=off", () => {
    const on = botContainerSpec(parseConfig({}), meeting, 'session-1');
    expect(botConfigSchema.parse(JSON.parse(on.env[BOT_CONFIG_ENV]!)).browser.sandbox).toBe(true);
    expect(JSON.parse(on.seccompProfile!)).toEqual(botSeccompProfile());

    const off = botContainerSpec(parseConfig({ BOT_CHROMIUM_SANDBOX: 'off' }), meeting, 'session-1');
    expect(botConfigSchema.parse(JSON.parse(off.env[BOT_CONFIG_ENV]!)).browser.sandbox).toBe(false);
    expect(off.seccompProfile).toBeNull();
  });
  it('asks the bot for its video measures by default (on) and with BOT_SKIP_VIDEO=on or true, and for none with off or false', () => {
    const videoOf = (env: Record<string, string>) =>
      botConfigSchema.parse(
        JSON.parse(botContainerSpec(parseConfig(env), meeting, 'session-1').env[BOT_CONFIG_ENV]!),
      ).video;
    expect(videoOf({})).toEqual({ skip: true });
    expect(videoOf({ BOT_SKIP_VIDEO: 'on' })).toEqual({ skip: true });
    expect(videoOf({ BOT_SKIP_VIDEO: 'off' })).toEqual({ skip: false });
    expect(videoOf({ BOT_SKIP_VIDEO: 'false' })).toEqual({ skip: false });
    expect(videoOf({ BOT_SKIP_VIDEO: 'true' })).toEqual({ skip: true });
  });
  it('tells the bot how its page hears the meeting (BOT_AUDIO_CAPTURE, audio-context by default), and refuses any other way at startup', () => {
    const captureOf = (env: Record<string, string>) =>
      botConfigSchema.parse(
        JSON.parse(botContainerSpec(parseConfig(env), meeting, 'session-1').env[BOT_CONFIG_ENV]!),
      ).audioCapture;
    expect(captureOf({})).toBe('audio-context');
    expect(captureOf({ BOT_AUDIO_CAPTURE: 'track-processor' })).toBe('track-processor');
    expect(() => parseConfig({ BOT_AUDIO_CAPTURE: 'webaudio' })).toThrow(/BOT_AUDIO_CAPTURE/);
  });

  it("puts a signed-in bot's session in a 0600 file of the bot user, never in its environment or labels", () => {
    const account = {
      id: 7,
      displayName: 'Ada Bot',
      storageState: {
        cookies: [
          {
            name: 'SID',
            value: 'secret-cookie-value-123',
            domain: '.google.com',
            path: '/',
            expires: -1,
            httpOnly: true,
            secure: true,
            sameSite: 'Lax' as const,
          },
        ],
        origins: [],
      },
    };
    const spec = botContainerSpec(
      parseConfig({}),
      { ...meeting, authenticated: true },
      'session-1',
      null,
      undefined,
      account,
    );
    const everythingInspectShows = JSON.stringify({ env: spec.env, labels: spec.labels, name: spec.name });
    expect(everythingInspectShows).not.toContain('secret-cookie-value-123');
    const botConfig = botConfigSchema.parse(JSON.parse(spec.env[BOT_CONFIG_ENV]!));
    expect(botConfig).toMatchObject({
      botName: 'Ada Bot',
      signedIn: { storageStatePath: '/home/bot/bot-account-session.json' },
    });
    expect(spec.files).toHaveLength(1);
    const [file] = spec.files!;
    expect(file).toMatchObject({
      directory: '/home/bot',
      name: 'bot-account-session.json',
      mode: 0o600,
      uid: 10001,
      gid: 10001,
    });
    expect(JSON.parse(file!.content.toString('utf8'))).toEqual(account.storageState);
  });

  it('gives an anonymous bot no file and no signedIn', () => {
    const spec = botContainerSpec(parseConfig({}), meeting, 'session-1');
    expect(spec.files).toEqual([]);
    expect(botConfigSchema.parse(JSON.parse(spec.env[BOT_CONFIG_ENV]!)).signedIn).toBeUndefined();
  });
});

describe('one Docker engine, two deployments on one Redis', () => {
  const meeting = {
    id: 42,
    userId: 7,
    relaunchCount: 0,
    platform: 'google_meet',
    meetingUrl: 'https://meet.google.com/abc-defg-hij',
  } as MeetingRecord;
  const specOn = (redisUrl: string) =>
    botContainerSpec(parseConfig({ REDIS_URL: redisUrl, QUEUE_PREFIX: 'meetbot' }), meeting, 'session-1');

  it('names and labels the bots of different Redis databases apart, even on the same prefix', () => {
    const first = specOn('redis://127.0.0.1:6379/1');
    const second = specOn('redis://127.0.0.1:6379/2');
    expect(first.name).not.toBe(second.name);
    expect(first.labels[Labels.deployment]).not.toBe(second.labels[Labels.deployment]);
    // ioredis also takes the database as a query parameter: the same deployment as the path's.
    expect(specOn('redis://127.0.0.1:6379?db=2').labels).toEqual(second.labels);
  });

  it('keeps the bare prefix on database 0, as containers launched before carry it', () => {
    for (const url of ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379/0']) {
      const spec = specOn(url);
      expect(spec.name).toBe('meetbot-meetbot-meeting-42');
      expect(spec.labels[Labels.deployment]).toBe('meetbot');
    }
  });
});

describe('container names', () => {
  it('give every launch of a meeting its own name: relaunches after a lost host and join retries', () => {
    const config = parseConfig({ QUEUE_PREFIX: 'meetbot' });
    const nameOf = (relaunchCount: number, joinRetries: number) =>
      botContainerSpec(
        config,
        {
          id: 42,
          userId: 7,
          relaunchCount,
          joinRetries,
          platform: 'google_meet',
          meetingUrl: 'https://meet.google.com/abc-defg-hij',
        } as MeetingRecord,
        's',
      ).name;
    expect([nameOf(0, 0), nameOf(1, 0), nameOf(0, 1), nameOf(0, 2), nameOf(1, 1)]).toEqual([
      'meetbot-meetbot-meeting-42',
      'meetbot-meetbot-meeting-42-relaunch-1',
      'meetbot-meetbot-meeting-42-retry-1',
      'meetbot-meetbot-meeting-42-retry-2',
      'meetbot-meetbot-meeting-42-relaunch-1-retry-1',
    ]);
  });
});

/** The config the bot ends up with: its environment's, with the secrets file the worker put in. */
function configAsTheBotReadsIt(spec: BotContainerSpec): BotConfig {
  const config = parseBotConfig(spec.env[BOT_CONFIG_ENV]);
  const file = spec.files?.find(
    (candidate) => `${candidate.directory}/${candidate.name}` === config.secretsPath,
  );
  if (!config.secretsPath) return config;
  expect(file, 'the secrets file the config names').toBeDefined();
  return withBotSecrets(config, parseBotSecrets(file!.content.toString('utf8'), config.secretsPath));
}
