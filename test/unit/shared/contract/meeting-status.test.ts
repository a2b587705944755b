import { describe, expect, it } from 'vitest';
import { canTransition, MEETING_STATUSES } from '../../../../shared/contract/meeting-status.js';

describe('meeting state machine', () => {
  it('moves forward along requested → joining → awaiting_admission → active', () => {
    expect(canTransition('requested', 'joining')).toBe(true);
    expect(canTransition('joining', 'awaiting_admission')).toBe(true);
    expect(canTransition('awaiting_admission', 'active')).toBe(true);
    // A bot may skip a step it had no chance to report (e.g. let straight in).
    expect(canTransition('requested', 'active')).toBe(true);
  });

  it('never moves back', () => {
    expect(canTransition('active', 'joining')).toBe(false);
    expect(canTransition('awaiting_admission', 'joining')).toBe(false);
    expect(canTransition('active', 'active')).toBe(false);
  });

  it('ends in completed or failed from any non-terminal state, and terminal states are final', () => {
    for (const from of ['requested', 'joining', 'awaiting_admission', 'active'] as const) {
      expect(canTransition(from, 'completed')).toBe(true);
      expect(canTransition(from, 'failed')).toBe(true);
    }
    for (const from of ['completed', 'failed'] as const) {
      for (const to of MEETING_STATUSES) expect(canTransition(from, to)).toBe(false);
    }
  });
});
