/**
 * The web app with a long meeting: a meeting of 5,000 segments opened in Chromium (time to the first
 * rendered segment, to the whole transcript drawn, to interactive: the last long task over), then
 * scrolled continuously for a while as new segments arrive and change (frame times, long tasks),
 * and the size of the app's JavaScript gzipped. The API runs in this process with a fresh database;
 * the page comes from dist/web (run `npm run build:web` first).
 *   npx tsx bench/web-app.ts [--segments 5000] [--runs 5] [--scroll-seconds 10] [--arrivals-per-second 5]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { defaultWebAppDir } from '../api/routes/web-app.js';
import { upsertSegments } from '../shared/transcripts/store.js';
import { googleMeetBot, startTestApi } from '../test/support/api.js';
import { launchTestChromium } from '../test/support/chromium.js';
import { advanceMeeting } from '../test/support/meetings.js';
import { segmentRow } from '../test/support/segments.js';
import { addSegments } from '../test/support/web-app.js';

const { values } = parseArgs({
  options: {
    segments: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '5' },
    'scroll-seconds': { type: 'string', default: '10' },
    'arrivals-per-second': { type: 'string', default: '5' },
  },
});
const segmentCount = Number(values.segments);
const runs = Number(values.runs);
const scrollSeconds = Number(values['scroll-seconds']);
const arrivalsPerSecond = Number(values['arrivals-per-second']);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

// The app's JavaScript, as a browser downloads it (gzip -9 is what a compressing proxy would send at most).
const assets = join(defaultWebAppDir(), 'assets');
const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
const jsBytes = scripts.reduce((sum, name) => sum + readFileSync(join(assets, name)).length, 0);
const jsGzip = scripts.reduce(
  (sum, name) => sum + gzipSync(readFileSync(join(assets, name)), { level: 9 }).length,
  0,
);
const cssGzip = readdirSync(assets)
  .filter((name) => name.endsWith('.css'))
  .reduce((sum, name) => sum + gzipSync(readFileSync(join(assets, name)), { level: 9 }).length, 0);

const api = await startTestApi();
const user = await api.createUser({ maxConcurrentBots: 100 });
const created = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot('ben-chwe-bap') });
const meetingId = created.body.id as number;
await advanceMeeting(api.database.db, meetingId, 'active');
const speakers = ['Ann Example', 'Bo Example', 'Cy Example', 'Dee Example'];
const rows = Array.from({ length: segmentCount }, (_, index) =>
  segmentRow(
    meetingId,
    `seg-${index}`,
    index * 1.4,
    index * 1.4 + 1.3,
    `Segment ${index}: we went through the numbers for the quarter and agreed on the next steps${index % 3 === 0 ? ', with a longer remark that wraps onto a second line on a narrow screen' : ''}.`,
    speakers[index % speakers.length]!,
  ),
);
for (let index = 0; index < rows.length; index += 1000)
  await upsertSegments(api.database.db, rows.slice(index, index + 1000));

const browser = await launchTestChromium();
/** tsx compiles this file keeping function names (`__name(fn, 'fn')`); the functions sent into the page need that helper there. */
const KEEP_NAMES_SHIM = 'window.__name = (fn) => fn;';

interface OpenTimes {
  firstSegmentMs: number;
  allDrawnMs: number;
  interactiveMs: number;
  domRows: number;
}

/** Installed before the app loads: when the first row appears, when all are in, and every long task. */
function watchOpening(expected: number) {
  const marks = { first: 0, all: 0, longTaskEnds: [] as number[] };
  (window as unknown as { benchMarks: typeof marks }).benchMarks = marks;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) marks.longTaskEnds.push(entry.startTime + entry.duration);
  }).observe({ type: 'longtask', buffered: true });
  const look = () => {
    const scroller = document.querySelector('.transcript-scroller');
    if (!marks.first && document.querySelector('li.segment')) marks.first = performance.now();
    if (!marks.all && scroller?.getAttribute('data-segments') === String(expected))
      marks.all = performance.now();
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true });
}

async function openOnce(): Promise<OpenTimes> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(KEEP_NAMES_SHIM);
  await context.addInitScript((key: string) => sessionStorage.setItem('meetbot.apiKey', key), user.key);
  await context.addInitScript(watchOpening, segmentCount);
  const page = await context.newPage();
  await page.goto(`${api.baseUrl}/app/#/meetings/${meetingId}`);
  await page
    .waitForFunction(() => (window as unknown as { benchMarks: { all: number } }).benchMarks.all > 0, null, {
      timeout: 60_000,
    })
    .catch(async (error: Error) => {
      const shown = await page
        .locator('.transcript-scroller')
        .getAttribute('data-segments')
        .catch(() => null);
      await page.screenshot({ path: '/tmp/bench-web-app-failed.png' });
      throw new Error(
        `the transcript never showed ${segmentCount} segments (showing ${shown}): ${error.message}`,
      );
    });
  // Quiet for a second after the last row: whatever long task there was has ended by then.
  await page.waitForTimeout(1000);
  const marks = await page.evaluate(
    () =>
      (window as unknown as { benchMarks: { first: number; all: number; longTaskEnds: number[] } })
        .benchMarks,
  );
  const domRows = await page.locator('li.segment').count();
  await context.close();
  return {
    firstSegmentMs: marks.first,
    allDrawnMs: marks.all,
    interactiveMs: Math.max(marks.all, ...marks.longTaskEnds),
    domRows,
  };
}

const opens: OpenTimes[] = [];
for (let run = 0; run < runs; run += 1) opens.push(await openOnce());

/** Scrolls the transcript up and down every frame for `ms`, recording each frame's interval. */
function scrollAndTime(ms: number): Promise<{ frames: number[]; longTasks: number[] }> {
  return new Promise((resolve) => {
    const box = document.querySelector('.transcript-scroller') as HTMLElement;
    const frames: number[] = [];
    const longTasks: number[] = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longTasks.push(entry.duration);
    }).observe({ type: 'longtask' });
    let direction = -1;
    let last = performance.now();
    const end = last + ms;
    const step = (now: number) => {
      frames.push(now - last);
      last = now;
      if (box.scrollTop <= 0) direction = 1;
      if (box.scrollTop + box.clientHeight >= box.scrollHeight - 1) direction = -1;
      box.scrollTop += direction * 60;
      if (now < end) requestAnimationFrame(step);
      else resolve({ frames, longTasks });
    };
    requestAnimationFrame(step);
  });
}

const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
await context.addInitScript(KEEP_NAMES_SHIM);
await context.addInitScript((key: string) => sessionStorage.setItem('meetbot.apiKey', key), user.key);
const page = await context.newPage();
await page.goto(`${api.baseUrl}/app/#/meetings/${meetingId}`);
await page.waitForFunction(
  (expected) =>
    document.querySelector('.transcript-scroller')?.getAttribute('data-segments') === String(expected),
  segmentCount,
  { timeout: 60_000 },
);
let arrived = 0;
let stop = false;
const arrivals = (async () => {
  const every = 1000 / arrivalsPerSecond;
  while (!stop) {
    const index = segmentCount + arrived;
    const start = index * 1.4;
    // Each new segment arrives as a partial one, then again final with its whole text (replaced in place).
    await addSegments(api, meetingId, [
      segmentRow(meetingId, `seg-${index}`, start, start + 0.6, 'And one more', 'Ann Example', {
        final: false,
      }),
    ]);
    await addSegments(api, meetingId, [
      segmentRow(
        meetingId,
        `seg-${index}`,
        start,
        start + 1.3,
        'And one more thing before we close.',
        'Ann Example',
      ),
    ]);
    arrived += 1;
    await new Promise((resolve) => setTimeout(resolve, every));
  }
})();
const scrolled = await page.evaluate(scrollAndTime, scrollSeconds * 1000);
stop = true;
await arrivals;
await page.waitForFunction(
  (expected) =>
    document.querySelector('.transcript-scroller')?.getAttribute('data-segments') === String(expected),
  segmentCount + arrived,
  { timeout: 30_000 },
);
const rowsDrawn = await page.locator('li.segment').count();
await context.close();
await browser.close();
await api.close();

const frames = scrolled.frames.slice(1);
const fps = frames.length / (frames.reduce((sum, frame) => sum + frame, 0) / 1000);
console.log(
  `web app, a meeting of ${segmentCount} segments, ${runs} openings (Chromium headless, this machine)`,
);
console.log(
  `  first segment drawn: median ${median(opens.map((o) => o.firstSegmentMs)).toFixed(0)} ms (runs: ${opens.map((o) => o.firstSegmentMs.toFixed(0)).join(', ')})`,
);
console.log(
  `  whole transcript in: median ${median(opens.map((o) => o.allDrawnMs)).toFixed(0)} ms (runs: ${opens.map((o) => o.allDrawnMs.toFixed(0)).join(', ')})`,
);
console.log(
  `  interactive (last long task over): median ${median(opens.map((o) => o.interactiveMs)).toFixed(0)} ms (runs: ${opens.map((o) => o.interactiveMs.toFixed(0)).join(', ')})`,
);
console.log(`  rows in the page: ${opens.map((o) => o.domRows).join(', ')} of ${segmentCount}`);
console.log(
  `scrolling ${scrollSeconds} s while ${arrived} segments arrived (each partial, then final): ${frames.length} frames, ${fps.toFixed(1)} fps; frame time p50 ${percentile(frames, 50).toFixed(1)} ms, p95 ${percentile(frames, 95).toFixed(1)} ms, p99 ${percentile(frames, 99).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms; frames over 50 ms: ${frames.filter((f) => f > 50).length}; long tasks: ${scrolled.longTasks.length} (longest ${Math.max(0, ...scrolled.longTasks).toFixed(0)} ms); rows in the page after: ${rowsDrawn}`,
);
console.log(
  `JavaScript: ${scripts.length} file(s), ${(jsBytes / 1024).toFixed(1)} KiB, ${(jsGzip / 1024).toFixed(1)} KiB gzipped; CSS ${(cssGzip / 1024).toFixed(1)} KiB gzipped`,
);
process.exit(0);
