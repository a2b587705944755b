import { describe, expect, it } from 'vitest';
import { type ControlEvidence, normalizeText, type PageEvidence } from '../../../bot/platforms/evidence.js';
import { classifyZoomScreen, observeZoom, type ZoomEvidence } from '../../../bot/platforms/zoom-screens.js';

/** Zoom's screens from hand-made evidence (docs/platform-landmarks.md, "Zoom (web client)"). */

function control(text: string, extra: Partial<ControlEvidence> = {}): ControlEvidence {
  return {
    label: '',
    text: normalizeText(text),
    tid: null,
    id: null,
    disabled: false,
    visible: true,
    inDialog: false,
    state: '',
    ...extra,
  };
}

function zoomPage(
  extra: Partial<PageEvidence> = {},
  zoom: Partial<ZoomEvidence> = {},
): { evidence: PageEvidence; zoom: ZoomEvidence } {
  return {
    evidence: {
      url: 'https://zoom.us/wc/85412369870/join?pwd=Xy12ab',
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
    },
    zoom: {
      nameField: null,
      passcodeField: null,
      joinButton: null,
      previewMic: null,
      previewCamera: null,
      footerAudio: null,
      footerVideo: null,
      footerLeave: false,
      participantCount: null,
      tileNames: [],
      ...zoom,
    },
  };
}

const field = (value = '') => ({ visible: true, disabled: false, value });
const inCall: Partial<ZoomEvidence> = {
  footerLeave: true,
  footerAudio: 'mute my microphone',
  participantCount: 3,
  tileNames: ['Alice Martin', 'Bob Chen', 'Notetaker'],
};

describe('Zoom screens', () => {
  it('reads the landing page and the form as prejoin', () => {
    const landing = zoomPage({
      url: 'https://acme.zoom.us/j/85412369870',
      text: 'Click Open Zoom Workplace … Having issues with Zoom Workplace? Join from your browser',
      controls: [control('Launch Meeting'), control('Join from your browser')],
    });
    expect(classifyZoomScreen(landing)).toEqual({ kind: 'prejoin' });
    const form = zoomPage(
      { text: 'Join Meeting Your Name Join' },
      { nameField: field(), joinButton: { visible: true, disabled: true } },
    );
    expect(classifyZoomScreen(form)).toEqual({ kind: 'prejoin' });
  });

  it('fails a passcode the meeting refused, or asks for when the link had none, as meeting_not_found', () => {
    const asked = { nameField: field('Notetaker'), passcodeField: field('Xy12ab') };
    expect(classifyZoomScreen(zoomPage({ text: 'Passcode wrong' }, asked), true)).toMatchObject({
      kind: 'failed',
      reason: 'meeting_not_found',
      detail: 'the meeting refused the passcode (passcode wrong)',
    });
    // Before the bot typed its passcode, the field alone is still the form.
    expect(classifyZoomScreen(zoomPage({ text: 'Join Meeting' }, asked))).toEqual({ kind: 'prejoin' });
    const noPwd = zoomPage({ url: 'https://zoom.us/wc/85412369870/join' }, { passcodeField: field() });
    expect(classifyZoomScreen(noPwd)).toMatchObject({
      kind: 'failed',
      reason: 'meeting_not_found',
      detail: 'the meeting asks for a passcode and none was given',
    });
  });

  it.each([
    ['Please wait, the meeting host will let you in soon.', 'en'],
    ['Waiting for the host to start this meeting', 'en'],
    ['Bitte warten, der Meeting-Host lässt Sie gleich eintreten.', 'de'],
    ['Warten, bis der Host dieses Meeting startet', 'de'],
  ])('reads %j as the lobby (%s)', (text) => {
    expect(classifyZoomScreen(zoomPage({ text }, { footerLeave: false }))).toEqual({ kind: 'lobby' });
  });

  it('reads the "Join Audio" dialog over the call as a dialog, then the call with its head count', () => {
    const dialog = zoomPage(
      {
        text: 'Join Audio Join Audio by Computer',
        controls: [control('Join Audio by Computer', { inDialog: true })],
      },
      { ...inCall, footerAudio: 'join audio' },
    );
    expect(classifyZoomScreen(dialog)).toEqual({ kind: 'dialog', detail: 'join audio' });
    expect(observeZoom(zoomPage({ text: 'Alice Martin Bob Chen' }, inCall), 'Notetaker')).toEqual({
      screen: { kind: 'in_call' },
      others: 2,
      people: { names: ['Alice Martin', 'Bob Chen'], complete: true },
    });
    // Speaker view shows a few tiles: with more people counted than named, an absence says nothing.
    expect(observeZoom(zoomPage({}, { ...inCall, participantCount: 5 }), 'Notetaker').people?.complete).toBe(
      false,
    );
    expect(observeZoom(zoomPage({}, { ...inCall, participantCount: null }), 'Notetaker').people).toEqual({
      names: ['Alice Martin', 'Bob Chen'],
      complete: false,
    });
    // Without the participants button's count, the tiles but the bot's own.
    expect(observeZoom(zoomPage({}, { ...inCall, participantCount: null }), 'Notetaker').others).toBe(2);
    // The footer's Leave alone is not the call.
    expect(classifyZoomScreen(zoomPage({}, { footerLeave: true }))).toEqual({ kind: 'loading' });
  });

  it.each([
    ['This meeting ID is not valid. Please check and try again.', 'failed', 'meeting_not_found'],
    ['This meeting link is invalid (3,001)', 'failed', 'meeting_not_found'],
    [
      'Diese Meeting-ID ist ungültig. Bitte überprüfen Sie sie und versuchen Sie es erneut.',
      'failed',
      'meeting_not_found',
    ],
    ['Sign in to join this meeting', 'failed', 'sign_in_required'],
    [
      'The host requires authentication on the commercial Zoom platform to join this meeting',
      'failed',
      'sign_in_required',
    ],
    ['Please verify that you are not a robot Check Captcha', 'failed', 'verification_required'],
    ['You are unable to join this meeting', 'failed', 'blocked_by_platform'],
    ['The host has declined your request to join this meeting.', 'failed', 'admission_denied'],
    ['No one admitted you to this meeting.', 'failed', 'admission_timeout'],
    ['You have been removed from this meeting by the host', 'ended', 'removed'],
    ['Sie wurden vom Host aus diesem Meeting entfernt', 'ended', 'removed'],
    ['This meeting has been ended by host', 'ended', 'meeting_ended'],
    ['Dieses Meeting wurde vom Host beendet', 'ended', 'meeting_ended'],
  ])('reads %j as %s: %s, even with the call behind it', (text, kind, reason) => {
    expect(classifyZoomScreen(zoomPage({ text }, inCall))).toMatchObject({ kind, reason });
  });

  it('reads a redirect to the sign-in page as sign_in_required', () => {
    expect(classifyZoomScreen(zoomPage({ url: 'https://zoom.us/signin#/login' }))).toMatchObject({
      kind: 'failed',
      reason: 'sign_in_required',
    });
  });
});
