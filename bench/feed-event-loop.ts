/**
 * A worker's event loop while hostile calendar feeds are read (issue 48): the event-loop delay
 * (perf_hooks.monitorEventLoopDelay, 10 ms resolution) while each feed of test/support/hostile-feeds.ts
 * is expanded, and how the expansion ended, two ways:
 *   inline: expandFeed on the event loop, as every poll ran before the expansion moved out of it
 *           (with today's step budget; before it, the minutely feed collected every occurrence first);
 *   child:  expandFeedInChild, as pollFeed runs it now (a process per feed, its time and memory caps).
 * The never-matching rule is not run inline: it never comes back (ical.js loops inside one call), so
 * it would hold the loop until the process is killed.
 *   nice -n 10 npx tsx bench/feed-event-loop.ts [--timeout-ms 15000] [--memory-mb 256] [--steps 1000000]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { expandFeedInChild } from '../shared/calendars/expand-in-child.js';
import { type Expansion, expandFeed } from '../shared/calendars/ics.js';
import {
  deeplyNestedFeed,
  largeFeed,
  minutelyFeed,
  neverMatchingFeed,
} from '../test/support/hostile-feeds.js';

const { values } = parseArgs({
  options: {
    'timeout-ms': { type: 'string', default: '15000' },
    'memory-mb': { type: 'string', default: '256' },
    steps: { type: 'string', default: '1000000' },
  },
});
const limits = { timeoutMs: Number(values['timeout-ms']), memoryMb: Number(values['memory-mb']) };
const now = Date.now();
const window = {
  from: new Date(now - 86_400_000),
  to: new Date(now + 30 * 86_400_000),
  maxOccurrences: 1000,
  maxSteps: Number(values.steps),
};

const feeds: { name: string; text: string; inline: boolean }[] = [
  { name: 'never-matching rule (30 February)', text: neverMatchingFeed(), inline: false },
  { name: '500 minutely events, from 30 days ago', text: minutelyFeed(500, 30), inline: true },
  { name: '500 minutely events, from today', text: minutelyFeed(500, 0), inline: true },
  { name: '5 MiB of single events', text: largeFeed(), inline: true },
  { name: '100,000 nested components', text: deeplyNestedFeed(), inline: true },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const outcomeOf = (expansion: Expansion) =>
  `read: ${expansion.occurrences.length} occurrences${expansion.truncated ? ' (cut)' : ''}`;

async function measure(expand: () => Promise<Expansion>) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  // A timer keeps the loop turning, so a held loop shows as delay.
  const ticker = setInterval(() => undefined, 5);
  delay.enable();
  // Turns of the loop before and after, so a stretch the expansion held it is sampled as a delay.
  await sleep(50);
  const started = performance.now();
  let outcome: string;
  try {
    outcome = outcomeOf(await expand());
  } catch (error) {
    outcome = `${(error as Error).name}: ${(error as Error).message.slice(0, 70)}…`;
  }
  const ms = performance.now() - started;
  await sleep(50);
  delay.disable();
  clearInterval(ticker);
  const toMs = (ns: number) => (ns / 1e6).toFixed(0);
  return {
    ms: ms.toFixed(0),
    p50: toMs(delay.percentile(50)),
    p99: toMs(delay.percentile(99)),
    max: toMs(delay.max),
    outcome,
  };
}

console.log(
  `feeds: window ${window.from.toISOString().slice(0, 10)} to ${window.to.toISOString().slice(0, 10)}, ` +
    `steps ${window.maxSteps}, child process ${limits.timeoutMs} ms / ${limits.memoryMb} MB`,
);
console.log('| feed | size | way | took (ms) | loop delay p50 / p99 / max (ms) | outcome |');
console.log('|---|---|---|---|---|---|');
for (const feed of feeds) {
  const size = `${(feed.text.length / 1024).toFixed(0)} KiB`;
  const ways: [string, () => Promise<Expansion>][] = [
    ['child', () => expandFeedInChild(feed.text, window, limits)],
  ];
  if (feed.inline) ways.unshift(['inline', async () => expandFeed(feed.text, window)]);
  for (const [way, expand] of ways) {
    const r = await measure(expand);
    console.log(
      `| ${feed.name} | ${size} | ${way} | ${r.ms} | ${r.p50} / ${r.p99} / ${r.max} | ${r.outcome} |`,
    );
  }
  if (!feed.inline)
    console.log(`| ${feed.name} | ${size} | inline | never returns | held for good | not run |`);
}
