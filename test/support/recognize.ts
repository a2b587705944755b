import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEngine } from '../../bot/engines/embedded/embedded-engine.js';
import type { EngineSegment } from '../../bot/engines/engine.js';
import { silentLogger } from '../../bot/engines/engine-logger.js';

const RATE = 16_000;

/** What the embedded recognizer hears in 16 kHz audio, fed as the bot feeds it (200 ms chunks). */
export async function recognize(samples: Int16Array): Promise<string> {
  const workDir = mkdtempSync(join(tmpdir(), 'meetbot-test-asr-'));
  const segments: EngineSegment[] = [];
  let failure: Error | undefined;
  const engine = new EmbeddedEngine(
    { engine: 'embedded', profile: 'balanced', extraArgs: [] },
    { language: 'en', task: 'transcribe' },
    {
      onSegment: (segment) => segments.push(segment),
      onFatalError: (error) => {
        failure ??= error;
      },
    },
    silentLogger(),
    { workDir },
  );
  try {
    await engine.start();
    for (let offset = 0; offset < samples.length; offset += RATE / 5)
      engine.write(samples.subarray(offset, offset + RATE / 5));
    engine.write(new Int16Array(RATE));
    await engine.flush();
  } finally {
    await engine.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  if (failure) throw new Error(`the recognizer failed: ${failure.message}`);
  return segments
    .filter((segment) => segment.final)
    .map((segment) => segment.text)
    .join(' ');
}

/** A text's words of three letters or more, lower-cased: what `overlap` compares. */
export function contentWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z' ]/g, ' ')
    .split(/\s+/)
    .filter((word) => word.length > 2);
}

/** Share of `expected`'s words that `heard` contains. */
export function overlap(expected: string, heard: string): number {
  const said = new Set(contentWords(heard));
  const wanted = contentWords(expected);
  return wanted.length === 0 ? 0 : wanted.filter((word) => said.has(word)).length / wanted.length;
}
