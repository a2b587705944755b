import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertSegments } from '../../../shared/transcripts/store.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { launchTestChromium } from '../../support/chromium.js';
import { segmentRow } from '../../support/segments.js';

// Proof a player loads GET /transcripts?format=vtt: a real Chromium fetches it from the API through a
// <video>'s <track> (the browser's own WebVTT parser, the answer's real headers) and we read its cues.
let api: TestApi;
let user: TestUser;
let browser: Browser;

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser();
  browser = await launchTestChromium();
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

interface CueSeen {
  id: string;
  startTime: number;
  endTime: number;
  text: string;
  /** What the player shows: the cue as HTML, entities decoded. */
  shown: string;
  /** The voice span's speaker, as the player parsed it. */
  voice: string | null;
}

describe('the WebVTT transcript in a browser', () => {
  it('loads as a <track> of a <video>, one cue per segment with its times, speaker voice and text', async () => {
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('vtt-trac-kkk'),
    });
    expect(created.status).toBe(201);
    const meetingId: number = created.body.id;
    await upsertSegments(api.database.db, [
      segmentRow(meetingId, 'c', 3725.5, 3727.25, 'An hour\nlater.', null),
      segmentRow(meetingId, 'a', 1, 2.5, 'Hello everyone.', 'Alice'),
      segmentRow(meetingId, 'b', 4.0004, 6.9996, 'Fish & chips --> <b>now</b>', 'Tom & <Jerry>'),
      segmentRow(meetingId, 'x', 5, 6, '  ', 'Alice'),
    ]);

    // The page comes from the API's own origin, so the track is a same-origin fetch; the key rides
    // along as the header the API reads.
    const context = await browser.newContext({ extraHTTPHeaders: { 'X-API-Key': user.key } });
    const page = await context.newPage();
    await page.route(`${api.baseUrl}/player.html`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><video muted><track kind="subtitles" srclang="en" label="Transcript" default
          src="/transcripts/google_meet/vtt-trac-kkk?format=vtt"></video>`,
      }),
    );
    const trackAnswer = page.waitForResponse((response) => response.url().includes('format=vtt'));
    await page.goto(`${api.baseUrl}/player.html`);
    expect((await trackAnswer).headers()['content-type']).toBe('text/vtt; charset=utf-8');

    const cues = await page.evaluate(
      () =>
        new Promise<CueSeen[] | string>((resolve) => {
          const element = document.querySelector('track')!;
          const read = () =>
            Array.from(element.track.cues ?? [], (cue) => {
              const vtt = cue as VTTCue;
              const html = vtt.getCueAsHTML();
              const voice = html.querySelector('span[title]');
              return {
                id: vtt.id,
                startTime: vtt.startTime,
                endTime: vtt.endTime,
                text: vtt.text,
                shown: html.textContent ?? '',
                voice: voice?.getAttribute('title') ?? null,
              };
            });
          const failed = 'the track failed to load';
          // It may have settled before this script ran.
          if (element.readyState === HTMLTrackElement.LOADED) resolve(read());
          if (element.readyState === HTMLTrackElement.ERROR) resolve(failed);
          element.addEventListener('load', () => resolve(read()));
          element.addEventListener('error', () => resolve(failed));
          setTimeout(
            () => resolve(`the track neither loaded nor failed (state ${element.readyState})`),
            30_000,
          );
          // A hidden track loads too, should the default one not be picked on its own.
          if (element.track.mode === 'disabled') element.track.mode = 'hidden';
        }),
    );
    await context.close();

    expect(cues).toEqual([
      {
        id: '1',
        startTime: 1,
        endTime: 2.5,
        text: '<v Alice>Hello everyone.</v>',
        shown: 'Hello everyone.',
        voice: 'Alice',
      },
      {
        id: '2',
        startTime: 4,
        endTime: 7,
        text: '<v Tom &amp; &lt;Jerry&gt;>Fish &amp; chips --&gt; &lt;b&gt;now&lt;/b&gt;</v>',
        shown: 'Fish & chips --> <b>now</b>',
        voice: 'Tom & <Jerry>',
      },
      {
        id: '3',
        startTime: 3725.5,
        endTime: 3727.25,
        text: 'An hour later.',
        shown: 'An hour later.',
        voice: null,
      },
    ]);
  });
});
