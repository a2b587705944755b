import { describe, expect, it } from 'vitest';
import { SegmentIds } from '../../../bot/engines/segment-ids.js';
import { SegmentTracker } from '../../../bot/engines/whisperlive/segment-tracker.js';
import { serverSegment } from '../../../bot/engines/whisperlive/whisperlive-protocol.js';

const tracker = (origin = 0) => new SegmentTracker(new SegmentIds('t'), origin);

describe('SegmentTracker', () => {
  it('emits a growing segment under one id until completed, then never again', () => {
    const t = tracker(10);
    const first = t.update([{ start: 0.5, end: 1.2, text: ' Hello', completed: false }], 'en');
    const second = t.update([{ start: 0.5, end: 2.0, text: 'Hello there', completed: false }], 'en');
    const done = t.update([{ start: 0.5, end: 2.1, text: 'Hello there.', completed: true }], 'en');
    const repeat = t.update([{ start: 0.5, end: 2.1, text: 'Hello there.', completed: true }], 'en');
    expect([...first, ...second, ...done].map((s) => [s.text, s.final, s.start, s.end])).toEqual([
      ['Hello', false, 10.5, 11.2],
      ['Hello there', false, 10.5, 12],
      ['Hello there.', true, 10.5, 12.1],
    ]);
    expect(new Set([...first, ...second, ...done].map((s) => s.id)).size).toBe(1);
    expect(repeat).toEqual([]);
  });

  it('reads times sent as strings and skips unchanged repeats', () => {
    const t = tracker();
    const segment = serverSegment.parse({ start: '1.000', end: '2.500', text: 'same', completed: false });
    expect(segment).toMatchObject({ start: 1, end: 2.5 });
    expect(t.update([segment], null)).toHaveLength(1);
    expect(t.update([segment], null)).toEqual([]);
  });

  it('keeps the id when the segment in progress moves its start', () => {
    const t = tracker();
    const [open] = t.update([{ start: 3.0, end: 4.0, text: 'we should', completed: false }], 'en');
    const [moved] = t.update([{ start: 3.2, end: 5.0, text: 'we should meet', completed: false }], 'en');
    const [done] = t.update([{ start: 3.1, end: 5.2, text: 'we should meet.', completed: true }], 'en');
    expect(moved!.id).toBe(open!.id);
    expect(done!.id).toBe(open!.id);
    expect(done!.final).toBe(true);
  });

  it('gives a new id to the next segment after a completed one, in one message', () => {
    const t = tracker();
    t.update([{ start: 0, end: 1, text: 'one', completed: false }], 'en');
    const out = t.update(
      [
        { start: 0, end: 1.1, text: 'one.', completed: true },
        { start: 2, end: 2.5, text: 'two', completed: false },
      ],
      'en',
    );
    expect(out.map((s) => [s.text, s.final])).toEqual([
      ['one.', true],
      ['two', false],
    ]);
    expect(out[0]!.id).not.toBe(out[1]!.id);
  });

  it('treats every segment but the last as completed when the server leaves the flag out', () => {
    const t = tracker();
    const out = t.update(
      [
        { start: 0, end: 1, text: 'a' },
        { start: 1, end: 2, text: 'b' },
      ],
      'de',
    );
    expect(out.map((s) => [s.text, s.final, s.language])).toEqual([
      ['a', true, 'de'],
      ['b', false, 'de'],
    ]);
  });

  it('finishes what was shown in progress when the session ends', () => {
    const t = tracker();
    t.update([{ start: 0, end: 1, text: 'half a sen', completed: false }], 'en');
    expect(t.finishAll().map((s) => [s.text, s.final])).toEqual([['half a sen', true]]);
    expect(t.finishAll()).toEqual([]);
  });

  it('ignores empty text in progress and empty completed segments never shown', () => {
    const t = tracker();
    expect(t.update([{ start: 0, end: 1, text: ' ', completed: false }], 'en')).toEqual([]);
    expect(t.update([{ start: 0, end: 1, text: '', completed: true }], 'en')).toEqual([]);
  });
});
