import { describe, expect, it } from 'vitest';
import { createMeetingInput } from '../../../simulator/schema.js';
import {
  MEET_KNOWN_SPEAKING_CLASSES,
  MEET_SPEAKING_SIGNALS,
  TEAMS_SPEAKING_SIGNALS,
} from '../../../simulator/speaking-signals.js';

describe('createMeetingInput', () => {
  it('fills defaults for a minimal meeting', () => {
    const meeting = createMeetingInput.parse({ platform: 'google_meet' });
    expect(meeting.admission).toEqual({ policy: 'after', delaySeconds: 1 });
    expect(meeting.audio.trackDelaySeconds).toBe(0);
    expect(meeting.traps.recordingDialog).toBe(false);
    expect(meeting.participants).toEqual([]);
  });

  it('has the realistic load off unless asked, and only known screen-share modes', () => {
    expect(createMeetingInput.parse({ platform: 'teams' }).load).toEqual({
      cameras: false,
      screenShare: 'off',
      pageWeight: false,
    });
    expect(
      createMeetingInput.parse({ platform: 'google_meet', load: { cameras: true, screenShare: 'half' } })
        .load,
    ).toEqual({ cameras: true, screenShare: 'half', pageWeight: false });
    const bad = createMeetingInput.safeParse({ platform: 'google_meet', load: { screenShare: 'sometimes' } });
    expect(bad.success ? [] : bad.error.issues.map((i) => i.path.join('.'))).toEqual(['load.screenShare']);
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

  it('has live captions on Teams only, off by default', () => {
    expect(createMeetingInput.parse({ platform: 'teams' }).traps.liveCaptions).toBe(false);
    expect(createMeetingInput.parse({ platform: 'teams', traps: {} }).traps.liveCaptions).toBe(false);
    const on = createMeetingInput.parse({ platform: 'teams', traps: { liveCaptions: true } });
    expect(on.traps.liveCaptions).toBe(true);
    const meet = createMeetingInput.safeParse({ platform: 'google_meet', traps: { liveCaptions: true } });
    expect(meet.success).toBe(false);
    expect(meet.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['traps.liveCaptions', 'only exists on teams'],
    ]);
    expect(
      createMeetingInput.safeParse({ platform: 'google_meet', traps: { liveCaptions: false } }).success,
    ).toBe(true);
    expect(createMeetingInput.safeParse({ platform: 'teams', traps: { liveCaptions: 'yes' } }).success).toBe(
      false,
    );
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

  describe('speaking', () => {
    const issues = (input: unknown) => {
      const result = createMeetingInput.safeParse(input);
      return result.success
        ? []
        : result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    };

    it('hides nothing and uses a generated Meet class by default', () => {
      expect(createMeetingInput.parse({ platform: 'google_meet' }).speaking).toEqual({
        hidden: [],
        tileClass: 'generated',
      });
      expect(createMeetingInput.parse({ platform: 'teams', speaking: {} }).speaking.hidden).toEqual([]);
    });

    it("accepts each of the platform's own signals and Meet's known classes", () => {
      for (const signal of MEET_SPEAKING_SIGNALS) {
        expect(issues({ platform: 'google_meet', speaking: { hidden: [signal] } })).toEqual([]);
      }
      for (const signal of TEAMS_SPEAKING_SIGNALS) {
        expect(issues({ platform: 'teams', speaking: { hidden: [signal] } })).toEqual([]);
      }
      for (const tileClass of MEET_KNOWN_SPEAKING_CLASSES) {
        const meeting = createMeetingInput.parse({ platform: 'google_meet', speaking: { tileClass } });
        expect(meeting.speaking.tileClass).toBe(tileClass);
      }
      const all = createMeetingInput.parse({
        platform: 'google_meet',
        speaking: { hidden: ['webrtc', 'tile_class'], tileClass: 'OgVli' },
      });
      expect(all.speaking).toEqual({ hidden: ['webrtc', 'tile_class'], tileClass: 'OgVli' });
    });

    it("refuses another platform's signals, at their index", () => {
      const meet = issues({ platform: 'google_meet', speaking: { hidden: ['webrtc', 'outline_class'] } });
      expect(meet).toHaveLength(1);
      expect(meet[0]?.path).toBe('speaking.hidden.1');
      expect(meet[0]?.message).toMatch(/^only exists on teams/);
      const teams = issues({ platform: 'teams', speaking: { hidden: ['people_panel', 'audio_level'] } });
      expect(teams.map((i) => i.path)).toEqual(['speaking.hidden.0', 'speaking.hidden.1']);
      expect(teams[0]?.message).toMatch(/^only exists on google_meet/);
    });

    it('refuses unknown signals and classes, and a tile class on Teams', () => {
      const unknown = issues({ platform: 'google_meet', speaking: { hidden: ['speaking_ring'] } });
      expect(unknown.map((i) => i.path)).toEqual(['speaking.hidden.0']);
      expect(unknown[0]?.message).toMatch(/unknown speaking signal.*google_meet: audio_level/);
      expect(
        issues({ platform: 'google_meet', speaking: { tileClass: 'xYz12' } }).map((i) => i.path),
      ).toEqual(['speaking.tileClass']);
      expect(issues({ platform: 'teams', speaking: { tileClass: 'HX2H7' } })).toEqual([
        { path: 'speaking.tileClass', message: 'only exists on google_meet' },
      ]);
      expect(issues({ platform: 'teams', speaking: { tileClass: 'generated' } })).toEqual([]);
      expect(issues({ platform: 'teams', speaking: { hidden: 'webrtc' } }).map((i) => i.path)).toEqual([
        'speaking.hidden',
      ]);
    });
  });
});
