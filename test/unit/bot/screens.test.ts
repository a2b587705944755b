import { describe, expect, it } from 'vitest';
import type { ControlEvidence, InputEvidence, PageEvidence } from '../../../bot/platforms/evidence.js';
import { normalizeText } from '../../../bot/platforms/evidence.js';
import {
  classifyMeetScreen,
  observeMeet,
  withEnglishUi,
} from '../../../bot/platforms/google-meet-screens.js';
import { classifyTeamsScreen, observeTeams, teamsSwitchState } from '../../../bot/platforms/teams-screens.js';
import { AdmissionTracker } from '../../../bot/session/admission.js';

function control(label: string, extra: Partial<ControlEvidence> = {}): ControlEvidence {
  return {
    label: normalizeText(label),
    text: '',
    tid: null,
    id: null,
    disabled: false,
    visible: true,
    inDialog: false,
    state: '',
    ...extra,
  };
}

function page(extra: Partial<PageEvidence> = {}): PageEvidence {
  return {
    url: 'https://meet.google.com/abc-defg-hij',
    text: '',
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
    ...(extra.text === undefined ? {} : { text: normalizeText(extra.text) }),
  };
}

const meetToolbar = [
  control('Turn off microphone'),
  control('Turn off camera'),
  control('Leave call'),
  control('Chat with everyone'),
  control('Raise hand'),
  control('Send a reaction'),
  control('Meeting details'),
];

describe('Google Meet screens', () => {
  it('never calls the lobby a call, even with the whole toolbar and a tile on screen', () => {
    const lobby = page({
      text: 'Asking to be let in… You’ll join the call when someone lets you in Return to home screen',
      controls: [...meetToolbar, control('', { text: 'return to home screen' })],
      meetTiles: [{ id: 'spaces/x/devices/1', name: null, self: false }],
      peopleCount: 3,
    });
    expect(classifyMeetScreen(lobby)).toEqual({ kind: 'lobby' });
    expect(observeMeet(lobby).others).toBeNull();
    expect(observeMeet(lobby).people).toBeNull();
  });

  it('names the others from the open People list, else from the tiles, which may be paged', () => {
    const withList = page({
      controls: meetToolbar,
      meetTiles: [{ id: 'spaces/x/devices/1', name: 'Alice', self: false }],
      people: [
        { name: 'Alice', self: false },
        { name: 'Bob', self: false },
        { name: 'Bot', self: true },
      ],
      peopleCount: 3,
    });
    expect(observeMeet(withList, undefined, 'Bot').people).toEqual({
      names: ['Alice', 'Bob'],
      complete: true,
    });
    // The badge counts four (the bot too) but only two tiles are shown: an absence says nothing.
    const paged = page({
      controls: meetToolbar,
      meetTiles: [
        { id: 'spaces/x/devices/1', name: 'Alice', self: false },
        { id: 'spaces/x/devices/9', name: 'Bot', self: true },
      ],
      peopleCount: 4,
    });
    expect(observeMeet(paged, undefined, 'Bot').people).toEqual({ names: ['Alice'], complete: false });
  });

  it('needs call-only controls, not just Leave call and the toggles', () => {
    const sharedControlsOnly = page({
      controls: [control('Turn off microphone'), control('Turn off camera'), control('Leave call')],
    });
    expect(classifyMeetScreen(sharedControlsOnly).kind).toBe('loading');
    const call = page({
      controls: meetToolbar,
      meetTiles: [
        { id: 'spaces/x/devices/1', name: 'Alice', self: false },
        { id: 'spaces/x/devices/9', name: 'Bot', self: true },
      ],
    });
    expect(observeMeet(call)).toEqual({
      screen: { kind: 'in_call' },
      others: 1,
      people: { names: ['Alice'], complete: true },
    });
  });

  it('prefers the People count for who else is here', () => {
    const call = page({ controls: meetToolbar, peopleCount: 4 });
    expect(observeMeet(call).others).toBe(3);
  });

  it('treats a post-admission dialog as a dialog, not as the call', () => {
    const recording = page({
      controls: [
        ...meetToolbar,
        control('', { text: 'join now', inDialog: true }),
        control('', { text: 'leave', inDialog: true }),
      ],
      dialogs: [normalizeText('This video call is being recorded. By joining, you consent.')],
    });
    expect(classifyMeetScreen(recording)).toMatchObject({ kind: 'dialog' });
  });

  it('sees the pre-join form through any join button variant', () => {
    for (const label of ['Ask to join', 'Join now', 'Join anyway', 'Switch here']) {
      expect(classifyMeetScreen(page({ controls: [control('', { text: normalizeText(label) })] })).kind).toBe(
        'prejoin',
      );
    }
    const nameOnly = page({
      inputs: [
        {
          label: 'your name',
          placeholder: '',
          name: '',
          tid: null,
          visible: true,
          disabled: false,
          value: '',
        },
      ],
    });
    expect(classifyMeetScreen(nameOnly).kind).toBe('prejoin');
  });

  it('does not read "Return to home screen" as a denial', () => {
    expect(classifyMeetScreen(page({ text: 'Return to home screen' })).kind).toBe('loading');
  });

  it('recognises the end screens with their reasons', () => {
    const cases: [string, unknown][] = [
      [
        'Someone in the call denied your request to join. You left the meeting',
        { kind: 'failed', reason: 'admission_denied' },
      ],
      [
        'No one responded to your request to join the call. Ask to join again',
        { kind: 'failed', reason: 'admission_timeout' },
      ],
      ['Check your meeting code', { kind: 'failed', reason: 'meeting_not_found' }],
      ['Invalid video call name.', { kind: 'failed', reason: 'meeting_not_found' }],
      ["You can't join this video call", { kind: 'failed', reason: 'blocked_by_platform' }],
      ['You’ve been removed from the meeting', { kind: 'ended', reason: 'removed' }],
      [
        'Your host ended the meeting for everyone. The call ended',
        { kind: 'ended', reason: 'meeting_ended' },
      ],
    ];
    for (const [text, expected] of cases) {
      expect(classifyMeetScreen(page({ text, controls: meetToolbar })), text).toMatchObject(
        expected as object,
      );
    }
    expect(classifyMeetScreen(page({ recaptchaChallengeVisible: true }))).toMatchObject({
      reason: 'verification_required',
    });
  });
});

const teamsForm = {
  nameInput: {
    label: '',
    placeholder: 'type your name',
    name: '',
    tid: 'prejoin-display-name-input',
    visible: true,
    disabled: false,
    value: '',
  },
  join: control('', { text: 'join now', tid: 'prejoin-join-button' }),
};
const teamsCallControls = [
  control('Chat', { tid: 'chat-button' }),
  control('People, 3 participants', { tid: 'roster-button' }),
  control('Leave', { tid: 'hangup-main-btn', id: 'hangup-button' }),
];

describe('Teams screens', () => {
  it('reads an empty form (Join disabled, name editable) as the form, not the lobby', () => {
    const empty = page({ inputs: [teamsForm.nameInput], controls: [{ ...teamsForm.join, disabled: true }] });
    expect(classifyTeamsScreen(empty).kind).toBe('prejoin');
  });

  it('reads a disabled Join with a locked form, or the lobby text, as the lobby even with call controls', () => {
    const locked = page({
      inputs: [{ ...teamsForm.nameInput, disabled: true, value: 'Bot' }],
      controls: [{ ...teamsForm.join, disabled: true }, ...teamsCallControls],
    });
    expect(classifyTeamsScreen(locked).kind).toBe('lobby');
    const text = page({ text: 'Someone will let you in shortly', controls: teamsCallControls });
    expect(classifyTeamsScreen(text).kind).toBe('lobby');
  });

  it('treats the "without audio or video?" modal as a dialog although Join now is behind it', () => {
    const modal = page({
      inputs: [teamsForm.nameInput],
      controls: [teamsForm.join, control('', { text: 'continue without audio or video', inDialog: true })],
      dialogs: [normalizeText("Are you sure you don't want audio or video?")],
    });
    expect(classifyTeamsScreen(modal)).toMatchObject({ kind: 'dialog' });
  });

  it('needs the hang-up and another call control, and no Join button', () => {
    expect(classifyTeamsScreen(page({ controls: [teamsCallControls[2]!] })).kind).toBe('loading');
    const call = page({
      controls: teamsCallControls,
      teamsTiles: [
        { id: 'Alice', name: 'Alice', self: false },
        { id: 'Bot', name: 'Bot', self: false },
      ],
    });
    expect(observeTeams(call, 'Bot')).toEqual({
      screen: { kind: 'in_call' },
      others: 1,
      people: { names: ['Alice'], complete: true },
    });
    expect(classifyTeamsScreen(page({ controls: [...teamsCallControls, teamsForm.join] })).kind).toBe(
      'prejoin',
    );
  });

  it('counts nobody else when Teams says so', () => {
    const alone = page({ text: "You're the only one here", controls: teamsCallControls });
    expect(observeTeams(alone, 'Bot').others).toBe(0);
  });

  it('does not read a generic alert as removal', () => {
    const notice = page({ text: 'Alice joined the meeting', controls: teamsCallControls });
    expect(classifyTeamsScreen(notice).kind).toBe('in_call');
  });

  it('recognises the end screens with their reasons', () => {
    const cases: [string, unknown][] = [
      ['Sorry, but you were denied access to the meeting.', { kind: 'failed', reason: 'admission_denied' }],
      ['Sorry, no one let you in', { kind: 'failed', reason: 'admission_timeout' }],
      ["You've been removed from this meeting", { kind: 'ended', reason: 'removed' }],
      ['Meeting ended. Sorry, this meeting has ended.', { kind: 'ended', reason: 'meeting_ended' }],
      ['We need to verify your info before you can join', { kind: 'failed', reason: 'sign_in_required' }],
      ["Verify you're a real person", { kind: 'failed', reason: 'verification_required' }],
      ['Sign in to continue', { kind: 'failed', reason: 'sign_in_required' }],
      ['Enter your email, phone, or Skype.', { kind: 'failed', reason: 'sign_in_required' }],
      ['Pick an account', { kind: 'failed', reason: 'sign_in_required' }],
      ["Sorry, we couldn't connect you", { kind: 'failed', reason: 'blocked_by_platform' }],
      [
        'Looks like the meeting URL is incorrect. Please check the URL and try again.',
        { kind: 'failed', reason: 'meeting_not_found' },
      ],
      ['Looks like the meeting URL is incorrect.', { kind: 'failed', reason: 'meeting_not_found' }],
    ];
    for (const [text, expected] of cases) {
      expect(classifyTeamsScreen(page({ text, controls: teamsCallControls })), text).toMatchObject(
        expected as object,
      );
    }
  });
});

describe('second-pass landmarks (docs/platform-landmarks.md)', () => {
  const asked = { asked: true, inCall: false, leaving: false };

  it('Meet: reads the lobby text variants as the lobby', () => {
    for (const text of [
      'Please wait until the meeting host admits you to the call',
      'Waiting to be let in…',
    ]) {
      expect(classifyMeetScreen(page({ text }), asked).kind, text).toBe('lobby');
    }
  });

  it('Meet: "You left the meeting" alone is a denial after asking, a removal in the call, nothing after leaving', () => {
    const left = page({ text: 'You left the meeting' });
    expect(classifyMeetScreen(left).kind).toBe('loading');
    expect(classifyMeetScreen(left, asked)).toMatchObject({ kind: 'failed', reason: 'admission_denied' });
    expect(classifyMeetScreen(left, { ...asked, inCall: true })).toMatchObject({
      kind: 'ended',
      reason: 'removed',
    });
    expect(classifyMeetScreen(left, { asked: true, inCall: true, leaving: true }).kind).toBe('loading');
  });

  it('Meet: a "Sign in" heading is the sign-in screen; a "Sign in" button on the form is not', () => {
    expect(
      classifyMeetScreen(page({ text: 'Sign in to continue to Google Meet', headings: ['sign in'] })),
    ).toMatchObject({
      kind: 'failed',
      reason: 'sign_in_required',
    });
    const form = page({
      text: "Sign in What's your name? Ask to join",
      headings: ["what's your name?"],
      controls: [control('', { text: 'sign in' }), control('', { text: 'ask to join' })],
    });
    expect(classifyMeetScreen(form).kind).toBe('prejoin');
  });

  it('Meet: counts others from the People list when there is no badge, leaving the bot out', () => {
    const call = page({
      controls: meetToolbar,
      people: [
        { name: 'Notetaker', self: true },
        { name: 'Alice', self: false },
        { name: 'Bob', self: false },
      ],
      meetTiles: [{ id: 'spaces/x/devices/1', name: 'Alice', self: false }],
    });
    expect(observeMeet(call, { asked: true, inCall: false, leaving: false }, 'Notetaker').others).toBe(2);
  });

  it("Teams: Microsoft's login form is sign-in whatever its texts", () => {
    const login = page({
      text: 'Microsoft Sign in No account? Create one!',
      inputs: [
        {
          label: '',
          placeholder: 'email, phone, or skype',
          name: 'loginfmt',
          tid: null,
          visible: true,
          disabled: false,
          value: '',
        },
      ],
    });
    expect(classifyTeamsScreen(login)).toMatchObject({ kind: 'failed', reason: 'sign_in_required' });
  });

  it('Teams: reads a switch from checked (input) or aria-checked', () => {
    const evidence = page({
      controls: [
        control('Microphone', { tid: 'toggle-mute', state: 'true' }),
        control('Camera', { tid: 'toggle-video', state: 'false' }),
      ],
    });
    expect(teamsSwitchState(evidence, 'toggle-mute')).toBe('on');
    expect(teamsSwitchState(evidence, 'toggle-video')).toBe('off');
    expect(teamsSwitchState(page(), 'toggle-mute')).toBeNull();
  });
});

describe('locale: English asked for, German pages still resolve', () => {
  const asked = { asked: true, inCall: false, leaving: false };
  const input = (extra: Partial<InputEvidence>): InputEvidence => ({
    label: '',
    placeholder: '',
    name: '',
    tid: null,
    visible: true,
    disabled: false,
    value: '',
    ...extra,
  });

  it('Meet: the meeting URL asks for English (hl=en) and keeps its query', () => {
    expect(withEnglishUi('https://meet.google.com/abc-defg-hij')).toBe(
      'https://meet.google.com/abc-defg-hij?hl=en',
    );
    expect(withEnglishUi('https://meet.google.com/abc-defg-hij?authuser=1&hl=de#x')).toBe(
      'https://meet.google.com/abc-defg-hij?authuser=1&hl=en#x',
    );
  });

  it('Meet: German form, lobby, call, dialog and end screens', () => {
    const form = page({
      text: 'Wie heißen Sie? Teilnahme anfordern',
      inputs: [input({ label: 'ihr name' })],
      controls: [control('', { text: 'teilnahme anfordern' })],
    });
    expect(classifyMeetScreen(form).kind).toBe('prejoin');
    expect(classifyMeetScreen(page({ inputs: [input({ label: 'ihr name' })] })).kind).toBe('prejoin');
    expect(classifyMeetScreen(page({ controls: [control('Jetzt teilnehmen')] })).kind).toBe('prejoin');
    expect(
      classifyMeetScreen(
        page({ text: 'Teilnahme wird angefragt… Sie nehmen am Anruf teil, sobald Sie jemand einlässt' }),
        asked,
      ).kind,
    ).toBe('lobby');
    const call = page({
      controls: [
        control('Mikrofon deaktivieren'),
        control('Anruf verlassen'),
        control('Mit allen chatten'),
        control('Hand heben'),
        control('Personen - 3 Teilnehmer'),
      ],
    });
    expect(classifyMeetScreen(call, asked).kind).toBe('in_call');
    expect(
      classifyMeetScreen(
        page({ ...call, dialogs: [normalizeText('Dieser Videoanruf wird aufgezeichnet')] }),
        asked,
      ).kind,
    ).toBe('dialog');
    const cases: [string, object][] = [
      [
        'Jemand im Anruf hat Ihre Anfrage zur Teilnahme abgelehnt Erneut Teilnahme anfordern',
        { kind: 'failed', reason: 'admission_denied' },
      ],
      [
        'Niemand hat auf Ihre Anfrage zur Teilnahme am Anruf reagiert Erneut Teilnahme anfordern',
        { kind: 'failed', reason: 'admission_timeout' },
      ],
      ['Sie wurden aus der Besprechung entfernt', { kind: 'ended', reason: 'removed' }],
      ['Der Organisator hat die Besprechung für alle beendet', { kind: 'ended', reason: 'meeting_ended' }],
      ['Sie können an diesem Videoanruf nicht teilnehmen', { kind: 'failed', reason: 'blocked_by_platform' }],
      ['Überprüfen Sie Ihren Besprechungscode', { kind: 'failed', reason: 'meeting_not_found' }],
      ['Sie haben die Besprechung verlassen', { kind: 'failed', reason: 'admission_denied' }],
    ];
    for (const [text, screen] of cases)
      expect(classifyMeetScreen(page({ text }), asked), text).toMatchObject(screen);
    expect(classifyMeetScreen(page({ headings: ['anmelden'] }))).toMatchObject({
      reason: 'sign_in_required',
    });
  });

  it('Teams: German form, lobby, modal, call and end screens', () => {
    expect(
      classifyTeamsScreen(page({ inputs: [input({ placeholder: 'geben sie ihren namen ein' })] })).kind,
    ).toBe('prejoin');
    expect(classifyTeamsScreen(page({ controls: [control('In diesem Browser fortfahren')] })).kind).toBe(
      'prejoin',
    );
    expect(classifyTeamsScreen(page({ text: 'Jemand wird Sie in Kürze einlassen' })).kind).toBe('lobby');
    expect(
      classifyTeamsScreen(
        page({ dialogs: [normalizeText('Möchten Sie wirklich ohne Audio oder Video teilnehmen?')] }),
      ).kind,
    ).toBe('dialog');
    const call = page({
      text: 'Sie sind die einzige Person hier',
      controls: [control('Verlassen', { tid: 'hangup-main-btn' }), control('Mehr')],
    });
    expect(observeTeams(call, 'Bot')).toEqual({
      screen: { kind: 'in_call' },
      others: 0,
      people: { names: [], complete: true },
    });
    const cases: [string, object][] = [
      ['Konto auswählen', { kind: 'failed', reason: 'sign_in_required' }],
      [
        'Geben Sie Ihre E-Mail-Adresse, Telefonnummer oder Ihren Skype-Namen ein.',
        { kind: 'failed', reason: 'sign_in_required' },
      ],
      ['Bestätigen Sie, dass Sie ein Mensch sind', { kind: 'failed', reason: 'verification_required' }],
      [
        'Ihnen wurde leider der Zugriff auf die Besprechung verweigert.',
        { kind: 'failed', reason: 'admission_denied' },
      ],
      ['Leider hat Sie niemand eingelassen', { kind: 'failed', reason: 'admission_timeout' }],
      ['Sie wurden aus dieser Besprechung entfernt', { kind: 'ended', reason: 'removed' }],
      ['Besprechung beendet', { kind: 'ended', reason: 'meeting_ended' }],
    ];
    for (const [text, screen] of cases)
      expect(classifyTeamsScreen(page({ text })), text).toMatchObject(screen);
  });
});

describe('AdmissionTracker', () => {
  it('admits only after consecutive in-call looks', () => {
    const tracker = new AdmissionTracker(2);
    expect(tracker.observe({ kind: 'in_call' })).toBe(false);
    expect(tracker.observe({ kind: 'lobby' })).toBe(false);
    expect(tracker.observe({ kind: 'in_call' })).toBe(false);
    expect(tracker.observe({ kind: 'in_call' })).toBe(true);
  });
});
