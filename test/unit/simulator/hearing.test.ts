import { describe, expect, it } from 'vitest';
import { BotHearing, MIC_SAMPLE_RATE } from '../../../simulator/hearing.js';
import { parseWav } from '../../../simulator/wav.js';

const chunk = (loudFrom: number | null, length = 1600) => {
  const pcm = new Int16Array(length);
  if (loudFrom !== null) for (let i = loudFrom; i < length; i++) pcm[i] = i % 2 === 0 ? 5000 : -5000;
  return pcm;
};

describe('BotHearing', () => {
  it('times the first audible sample and recognizes the span when the microphone closes', async () => {
    const heard: Buffer[] = [];
    const hearing = new BotHearing(async (wav) => {
      heard.push(wav);
      return 'hello there';
    });
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    hearing.audio(chunk(null), new Date(t0 + 100));
    hearing.audio(chunk(800), new Date(t0 + 200));
    hearing.audio(chunk(0), new Date(t0 + 300));
    expect(hearing.snapshot()).toEqual([
      expect.objectContaining({
        openedAt: '2026-01-01T00:00:00.000Z',
        firstAudibleAt: '2026-01-01T00:00:00.150Z',
        status: 'listening',
        text: null,
      }),
    ]);
    hearing.close(new Date(t0 + 400));
    await new Promise((resolve) => setImmediate(resolve));
    const [span] = hearing.snapshot();
    expect(span).toMatchObject({ status: 'recognized', text: 'hello there', audioSeconds: 0.3 });
    expect(span?.closedAt).toBe('2026-01-01T00:00:00.400Z');
    expect(parseWav(heard[0]!)).toMatchObject({ sampleRate: MIC_SAMPLE_RATE, durationSeconds: 0.3 });
  });

  it('opens a new span after each close, and a silent span is heard as nothing without the recognizer', async () => {
    let calls = 0;
    const hearing = new BotHearing(async () => {
      calls += 1;
      return 'x';
    });
    hearing.audio(chunk(null), new Date());
    hearing.close(new Date());
    hearing.close(new Date());
    hearing.audio(chunk(0), new Date());
    hearing.close(new Date());
    await new Promise((resolve) => setImmediate(resolve));
    expect(hearing.snapshot().map((span) => [span.status, span.text])).toEqual([
      ['recognized', ''],
      ['recognized', 'x'],
    ]);
    expect(calls).toBe(1);
  });

  it('reports a recognizer failure on the span', async () => {
    const hearing = new BotHearing(async () => {
      throw new Error('no recognizer');
    });
    hearing.audio(chunk(0), new Date());
    hearing.close(new Date());
    await new Promise((resolve) => setImmediate(resolve));
    expect(hearing.snapshot()[0]).toMatchObject({ status: 'failed', error: 'no recognizer' });
  });
});
