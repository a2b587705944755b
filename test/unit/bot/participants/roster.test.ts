import { describe, expect, it } from 'vitest';
import { Roster } from '../../../../bot/participants/roster.js';

const HOLD = 3000;
const roster = (max = 100) => new Roster({ leaveHoldMs: HOLD, maxTracked: max }, () => 'Notetaker');
const seen = (names: string[], complete = true) => ({ names, complete });

describe('Roster', () => {
  it('reports the people of the first look as joined, then only changes', () => {
    const r = roster();
    expect(r.look(seen(['Alice', 'Bob']), 1000)).toEqual([
      { type: 'participant.joined', name: 'Alice', at: 1000 },
      { type: 'participant.joined', name: 'Bob', at: 1000 },
    ]);
    expect(r.look(seen(['Bob', 'Alice']), 2000)).toEqual([]);
    expect(r.look(seen(['Alice', 'Bob', 'Carol']), 3000)).toEqual([
      { type: 'participant.joined', name: 'Carol', at: 3000 },
    ]);
  });

  it('reports a leave only after the name has been missing for the hold time and two looks, at when it went', () => {
    const r = roster();
    r.look(seen(['Alice', 'Bob']), 0);
    expect(r.look(seen(['Alice']), 1000)).toEqual([]);
    expect(r.look(seen(['Alice']), 2000)).toEqual([]);
    expect(r.look(seen(['Alice']), 4000)).toEqual([{ type: 'participant.left', name: 'Bob', at: 1000 }]);
    expect(r.look(seen(['Alice']), 9000)).toEqual([]);
  });

  it('does not report a tile that disappears for a moment (a re-render)', () => {
    const r = roster();
    r.look(seen(['Alice']), 0);
    expect(r.look(seen([]), 1000)).toEqual([]);
    expect(r.look(seen([]), 2000)).toEqual([]);
    expect(r.look(seen(['Alice']), 3500)).toEqual([]);
    // Missing again: the hold starts over.
    expect(r.look(seen([]), 5000)).toEqual([]);
    expect(r.look(seen([]), 6000)).toEqual([]);
  });

  it('reports nobody leaving while the page names fewer people than it counts, or says nothing', () => {
    const r = roster();
    r.look(seen(['Alice', 'Bob']), 0);
    expect(r.look(seen(['Alice'], false), 1000)).toEqual([]);
    expect(r.look(seen(['Alice'], false), 9000)).toEqual([]);
    expect(r.look(null, 10_000)).toEqual([]);
    expect(r.look(seen(['Alice', 'Bob']), 11_000)).toEqual([]);
  });

  it('leaves the bot out, cleans platform suffixes and reports someone back after a leave as a new join', () => {
    const r = roster();
    expect(r.look(seen(['Notetaker', 'Alice (Guest)', 'Alice', '', 'Unknown user']), 0)).toEqual([
      { type: 'participant.joined', name: 'Alice', at: 0 },
    ]);
    r.look(seen([]), 1000);
    expect(r.look(seen([]), 5000)).toEqual([{ type: 'participant.left', name: 'Alice', at: 1000 }]);
    expect(r.look(seen(['Alice']), 6000)).toEqual([{ type: 'participant.joined', name: 'Alice', at: 6000 }]);
  });

  it('follows at most maxTracked names: a bigger crowd costs no more rows', () => {
    const r = roster(3);
    const crowd = Array.from({ length: 500 }, (_, i) => `Person ${i}`);
    expect(r.look(seen(crowd, false), 0)).toHaveLength(3);
    expect(r.full).toBe(true);
    expect(r.look(seen(crowd, false), 1000)).toEqual([]);
  });
});
