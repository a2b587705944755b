import { describe, expect, it } from 'vitest';
import { BOT_CONFIG_ENV, botConfigSchema, transcriptionConfig } from '../../../shared/contract/bot-config.js';
import { parseConfig } from '../../../shared/infra/config.js';
import type { MeetingRecord } from '../../../shared/meetings/store.js';
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
