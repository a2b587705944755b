import type { Observation, PeopleSeen, Screen } from './driver.js';
import {
  findControl,
  firstTextRule,
  type InputEvidence,
  type PageEvidence,
  type TextRule,
  textIncludesAny,
} from './evidence.js';

/*
 * The texts below come in English (what the bot asks for: its browser context's locale and
 * Accept-Language are en-US, see bot/browser.ts) and in German, so a page that shows German anyway
 * still resolves. Microsoft's login texts ("Konto auswählen", "Geben Sie Ihre E-Mail-Adresse,
 * Telefonnummer oder Ihren Skype-Namen ein") and "Jetzt teilnehmen" are the real ones as far as we
 * know; the other German texts are best guesses at Microsoft's wording, to be corrected from a real
 * German page when one is seen. Most controls are found by data-tid, which has no language.
 */

export const TEAMS_CONTINUE_IN_BROWSER = [
  'continue on this browser',
  'join on this browser',
  'join meeting from this browser',
  'join on the web instead',
  'in diesem browser fortfahren',
  'in diesem browser teilnehmen',
  'an der besprechung in diesem browser teilnehmen',
] as const;
export const TEAMS_NO_AV_CONFIRM = [
  'continue without audio or video',
  'ohne audio oder video fortfahren',
] as const;
/** The name field's placeholder, normalised (the field is found by data-tid first). */
export const TEAMS_NAME_PLACEHOLDERS = ['type your name', 'geben sie ihren namen ein'] as const;
/** Leave or cancel controls without a known data-tid, and a leave confirmation's button. */
export const TEAMS_LEAVE = ['leave', 'cancel', 'verlassen', 'abbrechen'] as const;
export const TEAMS_LEAVE_CONFIRM = ['leave', 'verlassen'] as const;
export const TEAMS_JOIN_TID = 'prejoin-join-button';
export const TEAMS_NAME_TID = 'prejoin-display-name-input';
export const TEAMS_HANGUP_TIDS = ['hangup-main-btn', 'call-hangup'];
export const TEAMS_HANGUP_IDS = ['hangup-button'];

export const TEAMS_CANCEL_TID = 'prejoin-cancel-button';
/** The call toolbar's microphone toggle (`#microphone-button`), named by what pressing it does. */
export const TEAMS_MIC_ON = ['unmute mic', 'unmute', 'stummschaltung des mikrofons aufheben'] as const;
export const TEAMS_MIC_OFF = ['mute mic', 'mute', 'mikrofon stummschalten'] as const;
/**
 * The call toolbar's camera toggle (`#video-button`): builds word it either way round, and some say
 * video (public bots list all four).
 */
export const TEAMS_CAMERA_ON = [
  'turn camera on',
  'turn on camera',
  'turn video on',
  'turn on video',
  'kamera einschalten',
] as const;
export const TEAMS_CAMERA_OFF = [
  'turn camera off',
  'turn off camera',
  'turn video off',
  'turn off video',
  'kamera ausschalten',
] as const;
export const TEAMS_TOGGLE_TIDS = { microphone: 'toggle-mute', camera: 'toggle-video' } as const;

/** The sign-in family: each one means an anonymous guest can't join this meeting. */
const SIGN_IN = [
  'we need to verify your info before you can join',
  'sign in to join this meeting',
  'sign in to continue',
  'enter your email, phone, or skype',
  'pick an account',
  'wir müssen ihre angaben überprüfen, bevor sie teilnehmen können',
  'melden sie sich an, um an dieser besprechung teilzunehmen',
  'melden sie sich an, um fortzufahren',
  'geben sie ihre e-mail-adresse, telefonnummer oder ihren skype-namen ein',
  'konto auswählen',
];
/** Microsoft's challenge for anonymous guests (a puzzle or a code to read) before the join form. */
const VERIFICATION = [
  "verify you're a real person",
  "verify you're human",
  'solve the puzzle to continue',
  'bestätigen sie, dass sie ein mensch sind',
];
/** Microsoft's login form, recognised by its field whatever the page says around it. */
const LOGIN_FIELD_NAMES = ['loginfmt'];
/** Teams refusing the join outright (its counterpart of Meet's "You can't join this video call"). */
const BLOCKED_BY_PLATFORM = [
  "we couldn't connect you",
  "you can't join this meeting",
  'wir konnten keine verbindung herstellen',
  'sie können nicht an dieser besprechung teilnehmen',
];
const NOT_FOUND = [
  'looks like the meeting url is incorrect',
  "this meeting link isn't valid",
  'die besprechungs-url scheint falsch zu sein',
];
const REMOVED = [
  "you've been removed from this meeting",
  'you have been removed from this meeting',
  'sie wurden aus dieser besprechung entfernt',
];
const DENIED = [
  'you were denied access to the meeting',
  'your request to join was declined',
  'zugriff auf die besprechung verweigert',
  'ihre teilnahmeanfrage wurde abgelehnt',
];
const NO_RESPONSE = [
  'no one responded to your request to join',
  'sorry, no one let you in',
  'niemand hat auf ihre teilnahmeanfrage reagiert',
  'leider hat sie niemand eingelassen',
];
const ENDED = [
  'meeting ended',
  'call ended',
  'this meeting has ended',
  'the meeting has ended',
  'besprechung beendet',
  'anruf beendet',
  'diese besprechung wurde leider beendet',
];
const LOBBY = [
  'someone will let you in shortly',
  'someone will let you in soon',
  'waiting for someone to let you in',
  'jemand wird sie in kürze einlassen',
  'sollte sie in kürze einlassen',
];
const NO_AV_MODAL = [
  "don't want audio or video",
  'do not want audio or video',
  'ohne audio oder video teilnehmen',
];
const ALONE = ["you're the only one here", 'sie sind die einzige person hier'];
/** Call controls besides hang-up; the hang-up alone is not proof (some lobbies show one). */
const CALL_CONTROL_TIDS = [
  'roster-button',
  'chat-button',
  'raise-hand-button',
  'more-button',
  'callingButtons-showMoreBtn',
];
const CALL_CONTROL_IDS = ['callingButtons-showMoreBtn', 'roster-button', 'chat-button', 'raisehands-button'];
const CALL_CONTROL_LABELS = [
  'more',
  'more actions',
  'people',
  'show participants',
  'chat',
  'raise',
  'raise hand',
  'react',
  'mehr',
  'weitere aktionen',
  'personen',
  'teilnehmer anzeigen',
  'hand heben',
  'reagieren',
];

type TerminalScreen = Extract<Screen, { kind: 'failed' | 'ended' }>;

const TEAMS_TERMINAL_RULES: TextRule<TerminalScreen>[] = [
  { phrases: VERIFICATION, screen: { kind: 'failed', reason: 'verification_required', detail: '' } },
  { phrases: SIGN_IN, screen: { kind: 'failed', reason: 'sign_in_required', detail: '' } },
  { phrases: BLOCKED_BY_PLATFORM, screen: { kind: 'failed', reason: 'blocked_by_platform', detail: '' } },
  { phrases: NOT_FOUND, screen: { kind: 'failed', reason: 'meeting_not_found', detail: '' } },
  { phrases: REMOVED, screen: { kind: 'ended', reason: 'removed', detail: '' } },
  { phrases: DENIED, screen: { kind: 'failed', reason: 'admission_denied', detail: '' } },
  { phrases: NO_RESPONSE, screen: { kind: 'failed', reason: 'admission_timeout', detail: '' } },
  { phrases: ENDED, screen: { kind: 'ended', reason: 'meeting_ended', detail: '' } },
];

export function isTeamsNameField(input: InputEvidence): boolean {
  return (
    input.tid === TEAMS_NAME_TID || (TEAMS_NAME_PLACEHOLDERS as readonly string[]).includes(input.placeholder)
  );
}

function hasHangup(evidence: PageEvidence): boolean {
  return evidence.controls.some(
    (control) =>
      !control.inDialog &&
      ((control.tid !== null && TEAMS_HANGUP_TIDS.includes(control.tid)) ||
        (control.id !== null && TEAMS_HANGUP_IDS.includes(control.id))),
  );
}

/**
 * A mic/camera switch's state whichever shape it has (a checkbox input's `checked`, or
 * aria-checked): 'on', 'off', or null when there is no such switch or it doesn't say.
 */
export function teamsSwitchState(evidence: PageEvidence, tid: string): 'on' | 'off' | null {
  const control = evidence.controls.find((candidate) => candidate.tid === tid && candidate.visible);
  if (control?.state === 'true') return 'on';
  if (control?.state === 'false') return 'off';
  return null;
}

function otherCallControls(evidence: PageEvidence): number {
  return evidence.controls.filter(
    (control) =>
      !control.inDialog &&
      ((control.tid !== null && CALL_CONTROL_TIDS.includes(control.tid)) ||
        (control.id !== null && CALL_CONTROL_IDS.includes(control.id)) ||
        CALL_CONTROL_LABELS.includes(control.label)),
  ).length;
}

function othersInCall(evidence: PageEvidence, botName: string): number | null {
  if (textIncludesAny(evidence.text, ALONE)) return 0;
  const self = botName.trim().toLowerCase();
  return evidence.teamsTiles.filter((tile) => tile.id.trim().toLowerCase() !== self).length;
}

/** The names of the others' video tiles (the roster shows them all; alone: nobody). */
export function teamsPeopleSeen(evidence: PageEvidence, botName: string): PeopleSeen {
  if (textIncludesAny(evidence.text, ALONE)) return { names: [], complete: true };
  const self = botName.trim().toLowerCase();
  const names = evidence.teamsTiles.flatMap((tile) =>
    tile.name !== null && tile.id.trim().toLowerCase() !== self ? [tile.name] : [],
  );
  const named = new Set(names).size;
  return { names, complete: evidence.peopleCount === null || named >= evidence.peopleCount - 1 };
}

/**
 * Classifies a Teams page. Terminal screens win; a "without audio or video?" modal is a dialog even
 * with Join now behind it; a lobby is the lobby text or a disabled Join button; the call needs the
 * hang-up control plus another call control, and no visible Join button or lobby text.
 */
export function classifyTeamsScreen(evidence: PageEvidence): Screen {
  const login = evidence.inputs.find((input) => LOGIN_FIELD_NAMES.includes(input.name));
  if (login) return { kind: 'failed', reason: 'sign_in_required', detail: `login form (${login.name})` };
  const terminal = firstTextRule<TerminalScreen>(evidence.text, TEAMS_TERMINAL_RULES);
  if (terminal) return terminal;
  const { text } = evidence;
  const confirm = findControl(evidence, TEAMS_NO_AV_CONFIRM, { visible: true });
  if (confirm || evidence.dialogs.some((dialog) => textIncludesAny(dialog, NO_AV_MODAL))) {
    return { kind: 'dialog', detail: 'without audio or video' };
  }
  if (textIncludesAny(text, LOBBY)) return { kind: 'lobby' };
  const join = evidence.controls.find((control) => control.tid === TEAMS_JOIN_TID && control.visible);
  const editableName = evidence.inputs.some(
    (input) => input.visible && !input.disabled && isTeamsNameField(input),
  );
  // The lobby keeps the form with Join disabled; an empty form also disables Join, but its name
  // field is still editable.
  if (join?.disabled && !editableName) return { kind: 'lobby' };
  const continueButton = findControl(evidence, TEAMS_CONTINUE_IN_BROWSER, { visible: true });
  if (join || editableName || continueButton) return { kind: 'prejoin' };
  if (hasHangup(evidence) && otherCallControls(evidence) >= 1) return { kind: 'in_call' };
  return { kind: 'loading' };
}

export function observeTeams(evidence: PageEvidence, botName: string): Observation {
  const screen = classifyTeamsScreen(evidence);
  if (screen.kind !== 'in_call') return { screen, others: null, people: null };
  return { screen, others: othersInCall(evidence, botName), people: teamsPeopleSeen(evidence, botName) };
}
