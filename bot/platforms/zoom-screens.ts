import type { Observation, PeopleSeen, Screen } from './driver.js';
import {
  COLLECT_EVIDENCE_SCRIPT,
  firstTextRule,
  type PageEvidence,
  type TextRule,
  textIncludesAny,
} from './evidence.js';

/*
 * Zoom's web client (docs/platform-landmarks.md, "Zoom"). Its form and toolbar are found by ids and
 * classes public bots rely on (#input-for-name, #input-for-pwd, button.preview-join-button,
 * .join-audio-container__btn, the footer's "Leave"); its screens by their texts, in English (what the
 * bot asks for, bot/browser.ts) and in German. The German texts are our best rendering of Zoom's
 * wording, to be corrected from a real German page when one is seen.
 */

export const ZOOM_JOIN_FROM_BROWSER = [
  'join from your browser',
  'join from browser',
  'über ihren browser beitreten',
] as const;
/** The permission prompt some builds show before the form (and again for the microphone alone). */
export const ZOOM_CONTINUE_WITHOUT_DEVICES = [
  'continue without microphone and camera',
  'continue without microphone',
  'ohne mikrofon und kamera fortfahren',
] as const;
export const ZOOM_JOIN_AUDIO_BY_COMPUTER = [
  'join audio by computer',
  'join with computer audio',
  'per computer für audio beitreten',
] as const;
/** The footer's microphone toggle, named by what pressing it does. */
export const ZOOM_MIC_ON = [
  'unmute my microphone',
  'unmute',
  'stummschaltung meines mikrofons aufheben',
] as const;
export const ZOOM_MIC_OFF = ['mute my microphone', 'mute', 'mein mikrofon stummschalten'] as const;
export const ZOOM_CAMERA_ON = ['start my video', 'start video', 'mein video starten'] as const;
export const ZOOM_CAMERA_OFF = ['stop my video', 'stop video', 'mein video beenden'] as const;
/** The preview's buttons say what pressing does: "Mute" while the microphone is on. */
export const ZOOM_PREVIEW_MIC_IS_ON = ['mute', 'stummschalten'] as const;
export const ZOOM_PREVIEW_CAMERA_IS_ON = ['stop video', 'video beenden'] as const;
export const ZOOM_LEAVE = ['leave', 'verlassen'] as const;
export const ZOOM_LEAVE_MEETING = ['leave meeting', 'meeting verlassen'] as const;

const SIGN_IN = [
  'sign in to join this meeting',
  'the host requires authentication',
  'melden sie sich an, um diesem meeting beizutreten',
  'der host verlangt eine authentifizierung',
];
const VERIFICATION = [
  'check captcha',
  'verify that you are not a robot',
  'captcha prüfen',
  'kein roboter sind',
];
const NOT_FOUND = [
  'this meeting id is not valid',
  'this meeting link is invalid',
  'invalid meeting id',
  'meeting does not exist',
  'diese meeting-id ist ungültig',
];
const BLOCKED_BY_PLATFORM = [
  'you are unable to join this meeting',
  'sie können diesem meeting nicht beitreten',
];
const REMOVED = [
  'you have been removed from this meeting',
  'you have been removed from the meeting',
  'sie wurden vom host aus diesem meeting entfernt',
  'sie wurden aus diesem meeting entfernt',
];
const DENIED = ['declined your request to join', 'hat ihre beitrittsanfrage abgelehnt'];
const NO_RESPONSE = ['no one admitted you to this meeting', 'niemand hat sie zu diesem meeting zugelassen'];
const ENDED = [
  'this meeting has been ended by host',
  'this meeting has been ended by the host',
  'the meeting has ended',
  'this meeting has ended',
  'dieses meeting wurde vom host beendet',
];
const PASSCODE_WRONG = ['passcode wrong', 'incorrect passcode', 'falscher kenncode'];
/** The waiting room, and the screen before the host starts the meeting (both: asked to join, not in). */
const LOBBY = [
  'the meeting host will let you in soon',
  'waiting for the host to start this meeting',
  'waiting for the host to start the meeting',
  "host has joined. we've let them know you're here",
  'der meeting-host lässt sie gleich eintreten',
  'warten, bis der host dieses meeting startet',
];

type TerminalScreen = Extract<Screen, { kind: 'failed' | 'ended' }>;

const ZOOM_TERMINAL_RULES: TextRule<TerminalScreen>[] = [
  { phrases: VERIFICATION, screen: { kind: 'failed', reason: 'verification_required', detail: '' } },
  { phrases: SIGN_IN, screen: { kind: 'failed', reason: 'sign_in_required', detail: '' } },
  { phrases: BLOCKED_BY_PLATFORM, screen: { kind: 'failed', reason: 'blocked_by_platform', detail: '' } },
  { phrases: NOT_FOUND, screen: { kind: 'failed', reason: 'meeting_not_found', detail: '' } },
  { phrases: REMOVED, screen: { kind: 'ended', reason: 'removed', detail: '' } },
  { phrases: DENIED, screen: { kind: 'failed', reason: 'admission_denied', detail: '' } },
  { phrases: NO_RESPONSE, screen: { kind: 'failed', reason: 'admission_timeout', detail: '' } },
  { phrases: ENDED, screen: { kind: 'ended', reason: 'meeting_ended', detail: '' } },
];

interface ZoomField {
  visible: boolean;
  disabled: boolean;
  value: string;
}

/** What only Zoom's page has: its form's ids and classes, its toolbar's buttons, its video tiles. */
export interface ZoomEvidence {
  nameField: ZoomField | null;
  passcodeField: ZoomField | null;
  joinButton: { visible: boolean; disabled: boolean } | null;
  /** aria-labels of the preview's buttons, normalised (they say what pressing does). */
  previewMic: string | null;
  previewCamera: string | null;
  /** aria-labels of the call footer's audio and video buttons, normalised. */
  footerAudio: string | null;
  footerVideo: string | null;
  /** The footer's Leave button is shown (outside any dialog). */
  footerLeave: boolean;
  /** The participants button's count ("…participants list pane,[3]…"), the bot included; null when absent. */
  participantCount: number | null;
  /** Names on the video tiles (speaker bar, active speaker, gallery), each once. */
  tileNames: string[];
}

export interface ZoomPage {
  evidence: PageEvidence;
  zoom: ZoomEvidence;
}

/** The shared evidence and Zoom's own in one look (plain JavaScript, as evidence.ts explains). */
export const ZOOM_EVIDENCE_SCRIPT = `(() => {
  const evidence = ${COLLECT_EVIDENCE_SCRIPT};
  const norm = (value) => (value || '').replace(/\\s+/g, ' ').trim().toLowerCase();
  const shown = (el) => Boolean(el) && el.isConnected && el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
  const field = (selector) => {
    const el = document.querySelector(selector);
    return el ? { visible: shown(el), disabled: el.disabled === true || el.readOnly === true, value: el.value || '' } : null;
  };
  const join = document.querySelector('button.preview-join-button');
  const label = (selector) => {
    const el = document.querySelector(selector);
    return el && shown(el) ? norm(el.getAttribute('aria-label') || el.textContent) : null;
  };
  const dialogs = '[role=dialog], [role=alertdialog]';
  const footerLeave = [...document.querySelectorAll('button[aria-label]')].some((el) =>
    ['leave', 'verlassen'].includes(norm(el.getAttribute('aria-label'))) && !el.closest(dialogs) && shown(el));
  let participantCount = null;
  for (const el of document.querySelectorAll('[aria-label]')) {
    const match = /(participants list|teilnehmerliste)[^\\[]*\\[(\\d+)\\]/i.exec(el.getAttribute('aria-label') || '');
    if (match) { participantCount = Number(match[2]); break; }
  }
  const tileNames = [];
  document.querySelectorAll('.video-avatar__avatar-footer').forEach((footer) => {
    const span = footer.querySelector('span');
    const name = ((span && span.textContent) || footer.textContent || '').trim();
    if (name && !tileNames.includes(name)) tileNames.push(name);
  });
  return {
    evidence,
    zoom: {
      nameField: field('#input-for-name'),
      passcodeField: field('#input-for-pwd'),
      joinButton: join ? { visible: shown(join), disabled: join.disabled === true } : null,
      previewMic: label('#preview-audio-control-button'),
      previewCamera: label('#preview-video-control-button'),
      footerAudio: label('button.join-audio-container__btn'),
      footerVideo: label('button.send-video-container__btn'),
      footerLeave,
      participantCount,
      tileNames,
    },
  };
})()`;

function linkPasscode(url: string): string | null {
  try {
    return new URL(url).searchParams.get('pwd');
  } catch {
    return null;
  }
}

/**
 * Classifies a Zoom page. Terminal screens win; a passcode the meeting refused (or asks for when the
 * link had none) fails as meeting_not_found; the "Join Audio" dialog is a dialog even over the call;
 * the waiting room and the not-yet-started screen are the lobby; the form (or the landing page's
 * "Join from your browser") is prejoin; the call needs the footer's Leave and its audio button.
 */
export function classifyZoomScreen({ evidence, zoom }: ZoomPage, passcodeTyped = false): Screen {
  const terminal = firstTextRule<TerminalScreen>(evidence.text, ZOOM_TERMINAL_RULES);
  if (terminal) return terminal;
  if (evidence.url.includes('/signin')) {
    return { kind: 'failed', reason: 'sign_in_required', detail: 'sent to the sign-in page' };
  }
  const askedForPasscode = zoom.passcodeField?.visible === true;
  const wrong = textIncludesAny(evidence.text, PASSCODE_WRONG);
  if (askedForPasscode && wrong && passcodeTyped) {
    return {
      kind: 'failed',
      reason: 'meeting_not_found',
      detail: `the meeting refused the passcode (${wrong})`,
    };
  }
  if (askedForPasscode && linkPasscode(evidence.url) === null) {
    return {
      kind: 'failed',
      reason: 'meeting_not_found',
      detail: 'the meeting asks for a passcode and none was given',
    };
  }
  if (
    evidence.controls.some(
      (control) => control.visible && ZOOM_JOIN_AUDIO_BY_COMPUTER.includes(control.text as never),
    )
  ) {
    return { kind: 'dialog', detail: 'join audio' };
  }
  if (
    evidence.controls.some(
      (control) => control.visible && ZOOM_CONTINUE_WITHOUT_DEVICES.includes(control.text as never),
    )
  ) {
    return { kind: 'dialog', detail: 'continue without microphone and camera' };
  }
  if (textIncludesAny(evidence.text, LOBBY)) return { kind: 'lobby' };
  const onForm = zoom.nameField?.visible === true || zoom.joinButton?.visible === true || askedForPasscode;
  const landing = evidence.controls.some(
    (control) => control.visible && ZOOM_JOIN_FROM_BROWSER.includes(control.text as never),
  );
  if (onForm || landing) return { kind: 'prejoin' };
  if (zoom.footerLeave && (zoom.footerAudio !== null || zoom.participantCount !== null))
    return { kind: 'in_call' };
  return { kind: 'loading' };
}

/** The others in the call: the participants button's count less the bot, else the tiles but the bot's. */
function othersInCall(zoom: ZoomEvidence, botName: string): number | null {
  if (zoom.participantCount !== null) return Math.max(0, zoom.participantCount - 1);
  const self = botName.trim().toLowerCase();
  return zoom.tileNames.filter((name) => name.trim().toLowerCase() !== self).length;
}

/**
 * The names on the others' tiles. Zoom's speaker view shows a few tiles only, so they are everyone
 * only when the participants button counts no more (the bot included).
 */
export function zoomPeopleSeen(zoom: ZoomEvidence, botName: string): PeopleSeen {
  const self = botName.trim().toLowerCase();
  const names = zoom.tileNames.filter((name) => name.trim().toLowerCase() !== self);
  return { names, complete: zoom.participantCount !== null && names.length >= zoom.participantCount - 1 };
}

export function observeZoom(page: ZoomPage, botName: string, passcodeTyped = false): Observation {
  const screen = classifyZoomScreen(page, passcodeTyped);
  if (screen.kind !== 'in_call') return { screen, others: null, people: null };
  return { screen, others: othersInCall(page.zoom, botName), people: zoomPeopleSeen(page.zoom, botName) };
}
