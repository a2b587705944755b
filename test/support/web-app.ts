import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { announceMeetingChanges } from '../../shared/meetings/changes.js';
import {
  findOrCreateRecording,
  markRecordingReady,
  type RecordingRecord,
  recordChunk,
} from '../../shared/recordings/store.js';
import { type SegmentUpsert, upsertSegments } from '../../shared/transcripts/store.js';
import type { TestApi, TestUser } from './api.js';

/** What a page of the web app did that it must never do: ask another origin, break its CSP, fail a script. */
export interface PageWatch {
  foreignRequests: string[];
  policyViolations: string[];
  scriptErrors: string[];
  /** Every URL the page asked for (to check the key never rides in one). */
  urls: string[];
}

export interface AppPage {
  context: BrowserContext;
  page: Page;
  watch: PageWatch;
}

/** A fresh browser context (its own sessionStorage) on the app, watched. */
export async function openApp(
  browser: Browser,
  baseUrl: string,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<AppPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const watch: PageWatch = { foreignRequests: [], policyViolations: [], scriptErrors: [], urls: [] };
  const origin = new URL(baseUrl).origin;
  page.on('request', (request) => {
    const url = request.url();
    watch.urls.push(url);
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'))
      watch.foreignRequests.push(url);
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) watch.policyViolations.push(message.text());
  });
  page.on('pageerror', (error) => watch.scriptErrors.push(error.message));
  const answer = await page.goto(`${baseUrl}/app/`);
  if (answer?.status() === 503)
    throw new Error(`the API has no web app to serve: run \`npm run build:web\` (${await answer.text()})`);
  return { context, page, watch };
}

/** Signs in through the form, as a person would. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Meetings' }).waitFor();
}

/** Writes segments as the ingester does, then announces them (the live streams wake on that). */
export async function addSegments(api: TestApi, meetingId: number, segments: SegmentUpsert[]): Promise<void> {
  await upsertSegments(api.database.db, segments);
  await announceMeetingChanges(api.redis, api.prefix, [meetingId]);
}

export async function announce(api: TestApi, meetingId: number): Promise<void> {
  await announceMeetingChanges(api.redis, api.prefix, [meetingId]);
}

/**
 * A real Ogg Opus file (as bots record: 16 kHz mono) of `seconds`: a quiet tone made by sox and
 * Debian's opusenc, so a browser decodes and plays it.
 */
export function oggOpus(seconds: number): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'meetbot-web-audio-'));
  try {
    const wav = join(dir, 'in.wav');
    const made = spawnSync('sox', [
      '-n',
      '-r',
      '16000',
      '-c',
      '1',
      '-b',
      '16',
      wav,
      'synth',
      String(seconds),
      'sine',
      '440',
      'vol',
      '0.1',
    ]);
    if (made.error) throw new Error(`sox is missing (Debian's sox): ${made.error.message}`);
    if (made.status !== 0) throw new Error(`sox failed: ${made.stderr.toString()}`);
    const encoded = spawnSync('opusenc', ['--quiet', '--bitrate', '24', wav, join(dir, 'out.opus')]);
    if (encoded.error) throw new Error(`opusenc is missing (Debian's opus-tools): ${encoded.error.message}`);
    if (encoded.status !== 0) throw new Error(`opusenc failed: ${encoded.stderr.toString()}`);
    return readFileSync(join(dir, 'out.opus'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let sessionCounter = 0;
/** A ready recording of `bytes` (`seconds` long) for a meeting, as the worker leaves one after the bot left. */
export async function readyRecording(
  api: TestApi,
  owner: TestUser,
  meetingId: number,
  bytes: Buffer,
  seconds: number,
): Promise<RecordingRecord> {
  sessionCounter += 1;
  const db = api.database.db;
  const created = await findOrCreateRecording(db, {
    meetingId,
    userId: owner.id,
    sessionId: `web-session-${sessionCounter}`,
    startSeconds: 0,
  });
  await api.recordingStorage.putChunk(created.storageKey, 0, bytes);
  await recordChunk(db, created.id, { seq: 0, sizeBytes: bytes.length, endSeconds: seconds, final: true });
  const { sizeBytes } = await api.recordingStorage.assemble(created.storageKey, [0]);
  return (await markRecordingReady(db, created.id, sizeBytes))!;
}

/** Runs axe-core (from npm) in the page; the violations of impact serious or critical. */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  const source = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
  // Injected through the DevTools protocol rather than a <script>: the page's CSP allows no inline script.
  await page.evaluate(source);
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[]; passes: unknown[] }> } }
    ).axe;
    const { violations, passes } = await axe.run();
    if (passes.length === 0) return ['axe-core checked nothing'];
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
            .slice(0, 3)
            .map((node) => node.target.join(' '))
            .join('; ')}`,
      );
  });
  return result;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}
