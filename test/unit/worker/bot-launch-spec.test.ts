import { describe, expect, it } from 'vitest';
import { BOT_CONFIG_ENV, botConfigSchema, transcriptionConfig } from '../../../shared/contract/bot-config.js';
import { parseConfig } from '../../../shared/infra/config.js';
import type { MeetingRecord } from '../../../shared/meetings/store.js';
import { Labels } from '../../../worker/runtime/bot-runtime.js';
import { botContainerSpec, transcriptionConfigFrom } from '../../../worker/runtime/bot-launch-spec.js';

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
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };

  it.each([true, false])('tells the bot to record when the meeting asked for it (%s)', (enabled) => {
    const config = parseConfig({});
    const spec = botContainerSpec(config, { ...meeting, recordingEnabled: enabled }, 'session-1');
    const botConfig = botConfigSchema.parse(JSON.parse(spec.env[BOT_CONFIG_ENV]!));
    expect(botConfig.recording).toEqual({ enabled });
  });
});

describe('one Docker engine, two deployments on one Redis', () => {
  const meeting = { id: 42, userId: 7, relaunchCount: 0 } as MeetingRecord;
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
