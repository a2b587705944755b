import { describe, expect, it } from 'vitest';
import { createMeetingInput } from '../../../simulator/schema.js';

describe('createMeetingInput', () => {
  it('fills defaults for a minimal meeting', () => {
    const meeting = createMeetingInput.parse({ platform: 'google_meet' });
    expect(meeting.admission).toEqual({ policy: 'after', delaySeconds: 1 });
    expect(meeting.audio.trackDelaySeconds).toBe(0);
    expect(meeting.traps.recordingDialog).toBe(false);
    expect(meeting.participants).toEqual([]);
  });

  it('accepts the real id shapes per platform', () => {
    expect(createMeetingInput.safeParse({ platform: 'google_meet', id: 'abc-defg-hij' }).success).toBe(true);
    expect(
      createMeetingInput.safeParse({ platform: 'teams', id: '9381234567123', passcode: 'Xy12ab' }).success,
    ).toBe(true);
    expect(createMeetingInput.safeParse({ platform: 'google_meet', id: '9381234567123' }).success).toBe(
      false,
    );
    expect(createMeetingInput.safeParse({ platform: 'teams', id: 'abc-defg-hij' }).success).toBe(false);
  });

  it('refuses what the platform does not have', () => {
    const issues = (input: unknown) => {
      const result = createMeetingInput.safeParse(input);
      return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
    };
    expect(issues({ platform: 'teams', audio: { mode: 'slots' } })).toEqual(['audio.mode']);
    expect(issues({ platform: 'google_meet', passcode: 'abcd12' })).toEqual(['passcode']);
    expect(issues({ platform: 'teams', traps: { recordingDialog: true } })).toEqual([
      'traps.recordingDialog',
    ]);
    expect(issues({ platform: 'google_meet', traps: { midJoinReload: true } })).toEqual([
      'traps.midJoinReload',
    ]);
  });

  it('refuses duplicate names, negative times, empty text and unknown policies', () => {
    expect(
      createMeetingInput.safeParse({ platform: 'google_meet', participants: [{ name: 'A' }, { name: 'A' }] })
        .success,
    ).toBe(false);
    expect(
      createMeetingInput.safeParse({
        platform: 'google_meet',
        participants: [{ name: 'A', utterances: [{ at: -1, text: 'x' }] }],
      }).success,
    ).toBe(false);
    expect(
      createMeetingInput.safeParse({
        platform: 'google_meet',
        participants: [{ name: 'A', utterances: [{ at: 1, text: ' ' }] }],
      }).success,
    ).toBe(false);
    expect(
      createMeetingInput.safeParse({ platform: 'google_meet', admission: { policy: 'maybe' } }).success,
    ).toBe(false);
  });
});
