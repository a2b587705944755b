import { describe, expect, it } from 'vitest';
import type { LiveSegment } from '../../../web/src/api/types.js';
import { TranscriptModel } from '../../../web/src/transcript/transcript-model.js';

function segment(
  id: string,
  start: number,
  text = `text ${id}`,
  extra: Partial<LiveSegment> = {},
): LiveSegment {
  return {
    segment_id: id,
    final: true,
    start,
    end: start + 2,
    text,
    speaker: 'Alice',
    language: 'en',
    absolute_start_time: new Date(Date.UTC(2026, 0, 1) + start * 1000).toISOString(),
    absolute_end_time: new Date(Date.UTC(2026, 0, 1) + (start + 2) * 1000).toISOString(),
    created_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

const ids = (model: TranscriptModel) => model.segments.map((s) => s.segment_id);

describe('the web app’s transcript model', () => {
  it('orders segments by start whatever order they arrive in', () => {
    const model = new TranscriptModel();
    for (const s of [segment('c', 9), segment('a', 1), segment('d', 12), segment('b', 5)]) model.upsert(s);
    expect(ids(model)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('replaces a segment sent again with the same id in place, and moves it when its start changed', () => {
    const model = new TranscriptModel();
    for (const s of [segment('a', 1), segment('b', 5, 'Let'), segment('c', 9)]) model.upsert(s);
    const before = model.version;
    model.upsert(segment('b', 5, 'Let me share my screen.'));
    expect(model.segments.map((s) => s.text)).toEqual(['text a', 'Let me share my screen.', 'text c']);
    expect(model.version).toBeGreaterThan(before);
    model.upsert(segment('b', 10, 'Moved.'));
    expect(ids(model)).toEqual(['a', 'c', 'b']);
    expect(model.size).toBe(3);
  });

  it('leaves out a segment whose text became empty', () => {
    const model = new TranscriptModel();
    model.upsert(segment('a', 1));
    model.upsert(segment('b', 2, 'um'));
    model.upsert(segment('b', 2, '  '));
    expect(ids(model)).toEqual(['a']);
    model.upsert(segment('b', 2, 'back'));
    expect(ids(model)).toEqual(['a', 'b']);
  });

  it('finds the segment under a playhead, and none in the gaps', () => {
    const model = new TranscriptModel();
    for (const s of [segment('a', 0), segment('b', 5), segment('c', 10)]) model.upsert(s);
    expect([-1, 0, 1.9, 3, 5, 6.5, 8, 11, 13].map((t) => model.indexAt(t))).toEqual([
      -1, 0, 0, -1, 1, 1, -1, 2, -1,
    ]);
  });
});
