import { describe, expect, it } from 'vitest';
import { normalizeText, type PageEvidence } from '../../../bot/platforms/evidence.js';
import { classifyMeetScreen } from '../../../bot/platforms/google-meet-screens.js';
import { classifyTeamsScreen } from '../../../bot/platforms/teams-screens.js';

/** The screens that keep a bot out, each with its own reason (docs/platform-landmarks.md, "Blocked, said exactly"). */

function page(text: string, extra: Partial<PageEvidence> = {}): PageEvidence {
  return {
    url: 'https://meet.google.com/abc-defg-hij',
    text: normalizeText(text),
    controls: [],
    inputs: [],
    dialogs: [],
    meetTiles: [],
    teamsTiles: [],
    peopleCount: null,
    people: null,
    headings: [],
    recaptchaChallengeVisible: false,
    ...extra,
  };
}

describe('Meet: screens that keep the bot out', () => {
  it.each([
    ["You can't join this video call", 'blocked_by_platform'],
    ['You cannot join this video call', 'blocked_by_platform'],
    ["You can't join this meeting", 'blocked_by_platform'],
    ['There is a problem connecting to this video call. Try again', 'blocked_by_platform'],
    ['Sie können an diesem Videoanruf nicht teilnehmen', 'blocked_by_platform'],
    ['Our systems have detected unusual traffic from your computer network.', 'verification_required'],
    ["I'm not a robot", 'verification_required'],
    ['Are you a robot?', 'verification_required'],
    ['Verify it’s you', 'verification_required'],
    ['Ich bin kein Roboter', 'verification_required'],
    ['Check your meeting code', 'meeting_not_found'],
    ['Your meeting code has expired', 'meeting_not_found'],
  ])('"%s" → %s', (text, reason) => {
    expect(classifyMeetScreen(page(text))).toMatchObject({ kind: 'failed', reason });
  });

  it('a visible reCAPTCHA challenge is a verification, with nothing else on the page', () => {
    expect(classifyMeetScreen(page('', { recaptchaChallengeVisible: true }))).toEqual({
      kind: 'failed',
      reason: 'verification_required',
      detail: 'reCAPTCHA challenge',
    });
  });

  it('the sign-in heading wins over the refusal texts (a signed-in account is what is missing)', () => {
    expect(
      classifyMeetScreen(page("You can't join this video call", { headings: ['sign in'] })),
    ).toMatchObject({
      reason: 'sign_in_required',
    });
  });

  it("the refusal's detail is the text seen", () => {
    expect(classifyMeetScreen(page("You can't join this video call"))).toMatchObject({
      detail: "you can't join this video call",
    });
  });
});

describe('Teams: screens that keep the bot out', () => {
  it.each([
    ["Sorry, we couldn't connect you", 'blocked_by_platform'],
    ["You can't join this meeting", 'blocked_by_platform'],
    ['Wir konnten keine Verbindung herstellen', 'blocked_by_platform'],
    ['Verify you’re a real person. Solve the puzzle to continue', 'verification_required'],
    ["Verify you're human", 'verification_required'],
    ['Bestätigen Sie, dass Sie ein Mensch sind', 'verification_required'],
    ['We need to verify your info before you can join', 'sign_in_required'],
    ['Sign in to join this meeting', 'sign_in_required'],
    ["This meeting link isn't valid", 'meeting_not_found'],
  ])('"%s" → %s', (text, reason) => {
    expect(classifyTeamsScreen(page(text))).toMatchObject({ kind: 'failed', reason });
  });
});
