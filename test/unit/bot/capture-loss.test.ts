import { describe, expect, it } from 'vitest';
import { type CaptureLossReport, CaptureLossWatch } from '../../../bot/audio/capture-loss.js';

const T0 = Date.parse('2026-12-02T10:00:00.000Z');

/**
 * Feeds the watch once a second for `seconds`, the capture's clock running at `speed` of real time
 * (1: keeps time; 0.5: hears half of every second), starting from `state`; returns the reports.
 */
function run(
  watch: CaptureLossWatch,
  state: { now: number; missing: number },
  seconds: number,
  speed: number,
  jitter = 0,
): CaptureLossReport[] {
  const reports: CaptureLossReport[] = [];
  for (let i = 0; i < seconds; i += 1) {
    state.now += 1000;
    state.missing += 1 - speed;
    const wobble = jitter * Math.sin(i);
    const report = watch.observe(state.missing + wobble, state.now);
    if (report) reports.push(report);
  }
  return reports;
}

describe('CaptureLossWatch', () => {
  it('says nothing while the capture keeps time, its readings wobbling', () => {
    const watch = new CaptureLossWatch();
    const state = { now: T0, missing: 0 };
    expect(run(watch, state, 600, 1, 0.05)).toEqual([]);
  });

  it('reports a stretch at half speed once the clock keeps time again, with what it lost', () => {
    const watch = new CaptureLossWatch();
    const state = { now: T0, missing: 0 };
    expect(run(watch, state, 20, 1)).toEqual([]);
    const lossStarted = state.now;
    expect(run(watch, state, 30, 0.5)).toEqual([]);
    const lossEnded = state.now;
    const reports = run(watch, state, 30, 1);
    expect(reports).toHaveLength(1);
    const [report] = reports;
    expect(report!.lostSeconds).toBeCloseTo(15, 5);
    // The span covers the loss, give or take the window the watch looks through.
    expect(report!.from).toBeLessThanOrEqual(lossStarted + 2000);
    expect(report!.from).toBeGreaterThanOrEqual(lossStarted - 10_000);
    expect(report!.to).toBeGreaterThanOrEqual(lossEnded);
    expect(report!.to).toBeLessThanOrEqual(lossEnded + 12_000);
    // And nothing more once the capture keeps time.
    expect(run(watch, state, 120, 1)).toEqual([]);
  });

  it('lets a hiccup of a second or two pass unreported', () => {
    const watch = new CaptureLossWatch();
    const state = { now: T0, missing: 0 };
    run(watch, state, 20, 1);
    expect([...run(watch, state, 3, 0.5), ...run(watch, state, 60, 1)]).toEqual([]);
  });

  it('reports a loss that goes on once a minute, in stretches that follow each other', () => {
    const watch = new CaptureLossWatch();
    const state = { now: T0, missing: 0 };
    const reports = run(watch, state, 150, 0.5);
    expect(reports).toHaveLength(2);
    expect(reports[1]!.from).toBe(reports[0]!.to);
    for (const report of reports) expect(report.lostSeconds).toBeGreaterThanOrEqual(25);
  });

  it('reports a stretch still open when the capture ends, and nothing when there is none', () => {
    const watch = new CaptureLossWatch();
    const state = { now: T0, missing: 0 };
    const keptTime = new CaptureLossWatch();
    run(keptTime, { ...state }, 20, 1);
    expect(keptTime.finish(state.missing, state.now + 20_000)).toBeNull();
    run(watch, state, 20, 1);
    expect(run(watch, state, 30, 0.5)).toEqual([]);
    const report = watch.finish(state.missing, state.now);
    expect(report).not.toBeNull();
    expect(report!.lostSeconds).toBeCloseTo(15, 5);
    expect(report!.to).toBe(state.now);
    // Closed by it: a second finish says nothing again.
    expect(watch.finish(state.missing, state.now)).toBeNull();
  });

  it('does not report at the end a stretch too short to tell', () => {
    const watch = new CaptureLossWatch();
    const state = { now: T0, missing: 0 };
    run(watch, state, 20, 1);
    run(watch, state, 4, 0.5);
    expect(watch.finish(state.missing, state.now)).toBeNull();
  });
});
