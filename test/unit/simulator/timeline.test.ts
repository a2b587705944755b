import { describe, expect, it } from 'vitest';
import { participantInput } from '../../../simulator/schema.js';
import {
  assignVoices,
  buildTimeline,
  findTimelineProblems,
  planChat,
  planParticipants,
  planUtterances,
} from '../../../simulator/timeline.js';

const script = (raw: unknown[]) => raw.map((p) => participantInput.parse(p));
const fixedDuration = (seconds: number) => () => seconds;

describe('assignVoices', () => {
  it('gives each participant a distinct voice while there are enough', () => {
    const voices = assignVoices([{}, {}, {}, {}, {}]);
    expect(new Set(voices).size).toBe(5);
  });

  it('keeps requested voices and does not hand them to others', () => {
    const voices = assignVoices([{ voice: 'slt' }, {}, {}]);
    expect(voices[0]).toBe('slt');
    expect(voices.slice(1)).not.toContain('slt');
    expect(new Set(voices).size).toBe(3);
  });

  it('cycles once the voices run out', () => {
    expect(assignVoices(Array.from({ length: 7 }, () => ({}))).length).toBe(7);
  });
});

describe('planUtterances', () => {
  it('orders utterances by start time across participants with stable ids', () => {
    const scripts = script([
      { name: 'A', utterances: [{ at: 5, text: 'later' }] },
      { name: 'B', utterances: [{ at: 1, text: 'first' }] },
    ]);
    const utterances = planUtterances(scripts, planParticipants(scripts), fixedDuration(1));
    expect(utterances.map((u) => [u.id, u.text, u.participantId])).toEqual([
      ['u1', 'first', 'p2'],
      ['u2', 'later', 'p1'],
    ]);
  });
});

describe('findTimelineProblems', () => {
  it('accepts a script that can play out', () => {
    const scripts = script([
      {
        name: 'A',
        joinAt: 2,
        leaveAt: 10,
        utterances: [
          { at: 3, text: 'hi' },
          { at: 6, text: 'bye' },
        ],
      },
    ]);
    const participants = planParticipants(scripts);
    expect(
      findTimelineProblems(participants, planUtterances(scripts, participants, fixedDuration(2))),
    ).toEqual([]);
  });

  it('rejects speaking before joining, after leaving, or over oneself', () => {
    const scripts = script([
      { name: 'Early', joinAt: 5, utterances: [{ at: 1, text: 'too soon' }] },
      { name: 'Late', leaveAt: 4, utterances: [{ at: 3, text: 'runs past leaving' }] },
      {
        name: 'Overlap',
        utterances: [
          { at: 1, text: 'one' },
          { at: 2, text: 'two' },
        ],
      },
    ]);
    const participants = planParticipants(scripts);
    const problems = findTimelineProblems(
      participants,
      planUtterances(scripts, participants, fixedDuration(2)),
    );
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/Early.*before joining/);
    expect(problems.join('\n')).toMatch(/Late.*after leaving/);
    expect(problems.join('\n')).toMatch(/Overlap.*previous utterance/);
  });

  it('rejects leaving before joining', () => {
    const participants = planParticipants(script([{ name: 'A', joinAt: 5, leaveAt: 5 }]));
    expect(findTimelineProblems(participants, [])).toEqual(['A: leaveAt must be after joinAt']);
  });
});

describe('buildTimeline', () => {
  it('puts joins before speech before leaves at equal times, and the end last', () => {
    const scripts = script([
      { name: 'A', joinAt: 0, leaveAt: 4 },
      { name: 'B', joinAt: 4, utterances: [{ at: 4, text: 'hello' }] },
    ]);
    const participants = planParticipants(scripts);
    const utterances = planUtterances(scripts, participants, fixedDuration(1));
    const events = buildTimeline(participants, utterances, 4);
    expect(events.map((e) => e.kind)).toEqual(['join', 'speak', 'leave', 'end']);
    expect(events.every((e) => e.at === 4)).toBe(true);
  });

  it('has no join event for people already in the call', () => {
    const participants = planParticipants(script([{ name: 'A' }]));
    expect(buildTimeline(participants, [], undefined)).toEqual([]);
  });
});

describe('planChat', () => {
  it('orders the messages by time and schedules them between joins and leaves', () => {
    const scripts = script([
      { name: 'Alice', leaveAt: 5, chat: [{ at: 5, text: 'bye' }] },
      { name: 'Bob', joinAt: 2, chat: [{ at: 2, text: 'hello' }] },
    ]);
    const participants = planParticipants(scripts);
    const chat = planChat(scripts, participants);
    expect(chat).toEqual([
      { id: 'c1', participantId: 'p2', text: 'hello', at: 2 },
      { id: 'c2', participantId: 'p1', text: 'bye', at: 5 },
    ]);
    expect(buildTimeline(participants, [], undefined, chat).map((e) => e.kind)).toEqual([
      'join',
      'chat',
      'chat',
      'leave',
    ]);
    // Writing at the moment of leaving counts as not being there.
    expect(findTimelineProblems(participants, [], chat)).toEqual([
      'Alice: writes in chat at 5s while not in the call',
    ]);
  });
});
