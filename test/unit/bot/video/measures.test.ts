import { describe, expect, it } from 'vitest';
import type { PlatformDriver } from '../../../../bot/platforms/driver.js';
import { STEP_STOPPED } from '../../../../bot/platforms/step-stopped.js';
import { HIDE_REMOTE_VIDEO_CSS } from '../../../../bot/video/hide-remote-video.js';
import { selectVideoMeasures } from '../../../../bot/video/measures.js';
import { videoPageScript } from '../../../../bot/video/page-script.js';
import { VideoMeasures } from '../../../../bot/video/video-measures.js';
import { botConfigSchema } from '../../../../shared/contract/bot-config.js';
import { createLogger } from '../../../../shared/infra/logger.js';

const log = createLogger('video-test', 'silent');

describe('the video measures a bot applies', () => {
  it('with skip on: the page measure always, the platform setting when the driver can reach it', () => {
    expect(selectVideoMeasures({ skip: true, driverTurnsOffIncomingVideo: true })).toEqual([
      'hide_remote_video',
      'incoming_video_off',
    ]);
    expect(selectVideoMeasures({ skip: true, driverTurnsOffIncomingVideo: false })).toEqual([
      'hide_remote_video',
    ]);
  });

  it('with skip off: none, whatever the driver can do', () => {
    expect(selectVideoMeasures({ skip: false, driverTurnsOffIncomingVideo: true })).toEqual([]);
  });

  it('a config without `video` (a worker from before) means the measures, as BOT_SKIP_VIDEO is by default', () => {
    const config = botConfigSchema.parse({
      meetingId: 1,
      sessionId: 's',
      platform: 'teams',
      meetingUrl: 'https://teams.microsoft.com/l/meetup-join/x',
      botName: 'Bot',
      language: null,
      redisUrl: 'redis://127.0.0.1:6379',
      streamPrefix: 'p',
    });
    expect(config.video).toEqual({ skip: true });
  });

  it('the page script hides video only when that measure is chosen, and always counts decoded frames', () => {
    expect(videoPageScript(['hide_remote_video'])).toContain(JSON.stringify(HIDE_REMOTE_VIDEO_CSS));
    expect(videoPageScript([])).not.toContain('display: none');
    expect(videoPageScript([])).toContain('framesDecoded');
  });
});

describe('VideoMeasures in the call', () => {
  /** A call that is still on: the tries are never abandoned. */
  const ON = new AbortController().signal;
  const driver = (answers: (boolean | Error)[]) => {
    let calls = 0;
    return {
      get calls() {
        return calls;
      },
      turnOffIncomingVideo: async () => {
        const answer = answers[Math.min(calls, answers.length - 1)]!;
        calls += 1;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    } as unknown as PlatformDriver & { calls: number };
  };

  it('stops trying once the setting is off', async () => {
    const measures = new VideoMeasures(['incoming_video_off'], async () => 0, log);
    const page = driver([false, true]);
    await measures.turnOffIncomingVideo(page, ON);
    expect(measures.pending).toBe(true);
    await measures.turnOffIncomingVideo(page, ON);
    expect(measures.pending).toBe(false);
    await measures.turnOffIncomingVideo(page, ON);
    expect(page.calls).toBe(2);
  });

  it('gives up after five failed tries, a thrown one included, without throwing', async () => {
    const measures = new VideoMeasures(['incoming_video_off'], async () => 0, log);
    const page = driver([new Error('menu went away'), false]);
    for (let i = 0; i < 7; i += 1) await measures.turnOffIncomingVideo(page, ON);
    expect(page.calls).toBe(5);
    expect(measures.pending).toBe(false);
  });

  it('does not count a try that gave way to other work; one stopped as the call is over counts', async () => {
    const measures = new VideoMeasures(['incoming_video_off'], async () => 0, log);
    const page = driver([false]);
    const stopped = (reason: string) => {
      const controller = new AbortController();
      controller.abort(reason);
      return controller.signal;
    };
    for (let i = 0; i < 7; i += 1) await measures.turnOffIncomingVideo(page, stopped(STEP_STOPPED.gaveWay));
    expect(page.calls).toBe(7);
    expect(measures.pending).toBe(true);
    for (let i = 0; i < 7; i += 1) await measures.turnOffIncomingVideo(page, stopped(STEP_STOPPED.callOver));
    expect(page.calls).toBe(12);
    expect(measures.pending).toBe(false);
  });

  it('starts no second try while one is still busy on the page (one the session stopped waiting for)', async () => {
    const measures = new VideoMeasures(['incoming_video_off'], async () => 0, log);
    let calls = 0;
    let finish = (_off: boolean) => {};
    const page = {
      turnOffIncomingVideo: () => {
        calls += 1;
        return new Promise<boolean>((resolve) => (finish = resolve));
      },
    } as unknown as PlatformDriver;
    const busy = measures.turnOffIncomingVideo(page, ON);
    await measures.turnOffIncomingVideo(page, ON);
    expect(calls).toBe(1);
    finish(true);
    await busy;
    expect(measures.pending).toBe(false);
  });

  it('does nothing in the call when the measure was not chosen', async () => {
    const measures = new VideoMeasures(['hide_remote_video'], async () => 0, log);
    const page = driver([true]);
    expect(measures.pending).toBe(false);
    await measures.turnOffIncomingVideo(page, ON);
    expect(page.calls).toBe(0);
  });
});
