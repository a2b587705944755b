import { describe, expect, it } from 'vitest';
import { applyParticipantChange } from '../../../../shared/participants/changes.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, seconds));
const message = (type: Parameters<typeof applyParticipantChange>[1]['type'], seconds: number) => ({
  meetingId: 1,
  name: 'Alice',
  type,
  at: at(seconds),
});

describe('applyParticipantChange', () => {
  it('applies only what changes the state: a second join (a relaunched bot) or stop is no event', () => {
    let state = applyParticipantChange(undefined, message('participant.joined', 10));
    expect(state.applied).toBe(true);
    state = applyParticipantChange(state.after, message('participant.joined', 20));
    expect(state.applied).toBe(false);
    expect(state.after).toMatchObject({ present: true, firstSeenAt: at(10), lastSeenAt: at(20) });
    state = applyParticipantChange(state.after, message('participant.speech_started', 21));
    expect(state.applied).toBe(true);
    state = applyParticipantChange(state.after, message('participant.speech_started', 22));
    expect(state.applied).toBe(false);
    state = applyParticipantChange(state.after, message('participant.left', 30));
    expect(state.applied).toBe(true);
    expect(state.after).toMatchObject({ present: false, speaking: false, lastSeenAt: at(30) });
    expect(applyParticipantChange(state.after, message('participant.speech_stopped', 31)).applied).toBe(
      false,
    );
    expect(applyParticipantChange(state.after, message('participant.left', 31)).applied).toBe(false);
  });

  it('keeps the earliest first sighting when messages arrive late', () => {
    const first = applyParticipantChange(undefined, message('participant.joined', 50)).after;
    const earlier = applyParticipantChange(first, message('participant.speech_started', 40)).after;
    expect(earlier).toMatchObject({ firstSeenAt: at(40), lastSeenAt: at(50) });
  });
});
