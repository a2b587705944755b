import { describe, expect, it } from 'vitest';
import { MEET_CAMERA_OFF, MEET_MIC_ON } from '../../../bot/platforms/google-meet-screens.js';
import { accessibleName } from '../../../bot/platforms/page-actions.js';
import { TEAMS_CAMERA_OFF, TEAMS_CAMERA_ON, TEAMS_MIC_OFF } from '../../../bot/platforms/teams-screens.js';

/** The toggles' labels as public bots see them on the real pages (docs/platform-landmarks.md). */
describe('microphone and camera toggle labels', () => {
  it('match with the shortcut the pages append, and only the whole label', () => {
    const meetMicOn = accessibleName(MEET_MIC_ON);
    expect(meetMicOn.test('Turn on microphone (ctrl + d)')).toBe(true);
    expect(meetMicOn.test('Turn on microphone (⌘ + d)')).toBe(true);
    expect(meetMicOn.test('Turn on microphone')).toBe(true);
    expect(meetMicOn.test('Turn on microphone for everyone')).toBe(false);
    expect(accessibleName(MEET_CAMERA_OFF).test('Turn off camera (ctrl + e)')).toBe(true);

    const teamsMute = accessibleName(TEAMS_MIC_OFF);
    expect(teamsMute.test('Mute (Ctrl+Shift+M)')).toBe(true);
    expect(teamsMute.test('Mute mic')).toBe(true);
    expect(teamsMute.test('Unmute (Ctrl+Shift+M)')).toBe(false);
  });

  it("take every wording of Teams' camera toggle, on and off never confused", () => {
    const on = accessibleName(TEAMS_CAMERA_ON);
    const off = accessibleName(TEAMS_CAMERA_OFF);
    for (const label of [
      'Turn camera on',
      'Turn on camera',
      'Turn video on',
      'Turn on video (Ctrl+Shift+O)',
    ]) {
      expect([on.test(label), off.test(label)], label).toEqual([true, false]);
    }
    for (const label of [
      'Turn camera off',
      'Turn off camera',
      'Turn video off',
      'Turn off video (Ctrl+Shift+O)',
    ]) {
      expect([on.test(label), off.test(label)], label).toEqual([false, true]);
    }
  });
});
