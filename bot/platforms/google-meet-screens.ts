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
 * The texts below come in English (what the bot asks for with `hl=en`, see withEnglishUi) and in
 * German, so a page that shows German anyway (the account's language, a release ignoring hl) still
 * resolves. "Teilnahme anfordern" and "Jetzt teilnehmen" are the real page's (docs/platform-landmarks.md),
 * and "Mikrofon/Kamera aktivieren/deaktivieren" as far as we know; the other German texts are best
 * guesses at Google's wording, to be corrected from a real German page when one is seen.
 */

/** Every join-button text Meet is known to offer, best first (within each language). */
export const MEET_JOIN_BUTTONS = [
  'ask to join',
  'join now',
  'ask to join anyway',
  'join anyway',
  'join here too',
  'join the call now',
  'switch here',
  'teilnahme anfordern',
  'jetzt teilnehmen',
  'trotzdem teilnahme anfordern',
  'trotzdem teilnehmen',
  'auch hier teilnehmen',
  'jetzt am anruf teilnehmen',
  'hierher wechseln',
] as const;

export const MEET_INTERSTITIAL_BUTTONS = [
  'continue without microphone and camera',
  'use without an account',
  'got it',
  'dismiss',
  'ohne mikrofon und kamera fortfahren',
  'ohne konto verwenden',
  'verstanden',
] as const;

/** The name field's label (aria-label), normalised. */
export const MEET_NAME_LABELS = ['your name', 'ihr name'] as const;
export const MEET_MIC_OFF = ['turn off microphone', 'mikrofon deaktivieren'] as const;
export const MEET_MIC_ON = ['turn on microphone', 'mikrofon aktivieren'] as const;
export const MEET_CAMERA_OFF = ['turn off camera', 'kamera deaktivieren'] as const;
export const MEET_CAMERA_ON = ['turn on camera', 'kamera aktivieren'] as const;
export const MEET_LEAVE_CALL = ['leave call', 'anruf verlassen'] as const;
/** Ways out of the lobby (the lobby has no Leave call). */
export const MEET_LEAVE_LOBBY = [
  'return to home screen',
  'cancel',
  'zurück zum startbildschirm',
  'abbrechen',
] as const;
export const MEET_LEAVE_CONFIRM = [
  'just leave the meeting',
  'just leave the call',
  'besprechung nur verlassen',
  'anruf nur verlassen',
] as const;
/** Buttons that answer a post-admission dialog by going on into the call. */
export const MEET_DIALOG_ANSWERS = [
  'join now',
  'continue',
  'got it',
  'jetzt teilnehmen',
  'weiter',
  'verstanden',
] as const;

/**
 * Meet refusing the join outright, most often a suspected bot (docs/platform-landmarks.md, "Blocked,
 * said exactly"): the page, and the variants public bots report seeing.
 */
const BLOCKED_BY_PLATFORM = [
  "you can't join this video call",
  'you cannot join this video call',
  "you can't join this meeting",
  'you cannot join this meeting',
  'there is a problem connecting to this video call',
  'sie können an diesem videoanruf nicht teilnehmen',
  'sie können nicht an dieser besprechung teilnehmen',
  'beim verbinden mit diesem videoanruf ist ein problem aufgetreten',
];
/**
 * Google asking for proof of a person before the page goes on: its "unusual traffic" page, a
 * reCAPTCHA's own words, the account's "Verify it's you" (a visible reCAPTCHA challenge counts too).
 */
const VERIFICATION = [
  'our systems have detected unusual traffic from your computer network',
  "i'm not a robot",
  'are you a robot',
  "verify it's you",
  'unsere systeme haben ungewöhnlichen datenverkehr aus ihrem computernetzwerk festgestellt',
  'ich bin kein roboter',
  'bestätigen sie ihre identität',
];
const NOT_FOUND = [
  'check your meeting code',
  'invalid video call name',
  'your meeting code has expired',
  "the meeting code you entered doesn't work",
  'überprüfen sie ihren besprechungscode',
  'ungültiger name für den videoanruf',
  'ihr besprechungscode ist abgelaufen',
];
const REMOVED = [
  "you've been removed from the meeting",
  'you have been removed from the meeting',
  'sie wurden aus der besprechung entfernt',
];
const ENDED = [
  'your host ended the meeting for everyone',
  'the call ended',
  'the meeting has ended',
  'hat die besprechung für alle beendet',
  'der anruf wurde beendet',
  'die besprechung wurde beendet',
];
const DENIED = [
  'denied your request to join',
  'ask to join again',
  'ihre anfrage zur teilnahme abgelehnt',
  'erneut teilnahme anfordern',
];
const NO_RESPONSE = [
  'no one responded to your request to join',
  'niemand hat auf ihre anfrage zur teilnahme',
];
const LOBBY = [
  'asking to be let in',
  "you'll join the call when someone lets you in",
  'please wait until a meeting host brings you into the call',
  'waiting for the host to join',
  'admits you to the call',
  'waiting to be let in',
  'teilnahme wird angefragt',
  'sobald sie jemand einlässt',
  'bis ein organisator sie zum anruf hinzufügt',
  'bis der organisator sie zum anruf zulässt',
  'warten auf einlass',
];
/** Shown after a leave, and on its own when a request to join was refused. */
const LEFT = ['you left the meeting', 'sie haben die besprechung verlassen'];
/** The heading of Google's sign-in screen, shown in the page (besides a redirect to accounts.google.com). */
const SIGN_IN_HEADINGS = ['sign in', 'anmelden'];
const POST_ADMISSION_DIALOG = [
  'this video call is being recorded',
  'is taking notes',
  'your call audio and video will be shared with',
  'is being transcribed',
  'dieser videoanruf wird aufgezeichnet',
  'wird transkribiert',
];
/** Controls Meet shows only inside the call (Leave call and the mic/camera toggles don't count). */
const IN_CALL_ONLY = [
  'chat with everyone',
  'raise hand',
  'lower hand',
  'send a reaction',
  'share screen',
  'present now',
  'meeting details',
  'meeting tools',
  'turn on captions',
  'turn off captions',
  'people',
  'show everyone',
  'activities',
  'mit allen chatten',
  'hand heben',
  'hand senken',
  'reaktion senden',
  'bildschirm teilen',
  'jetzt präsentieren',
  'besprechungsdetails',
  'besprechungstools',
  'untertitel aktivieren',
  'untertitel deaktivieren',
  'personen',
  'alle anzeigen',
  'aktivitäten',
];

/**
 * The meeting URL with `hl=en`, which makes Meet show its English UI whatever the browser's or the
 * account's language; the rest of the query is kept.
 */
export function withEnglishUi(meetingUrl: string): string {
  const url = new URL(meetingUrl);
  url.searchParams.set('hl', 'en');
  return url.href;
}

export function isMeetNameField(input: InputEvidence): boolean {
  return (MEET_NAME_LABELS as readonly string[]).includes(input.label);
}

type TerminalScreen = Extract<Screen, { kind: 'failed' | 'ended' }>;

const MEET_TERMINAL_RULES: TextRule<TerminalScreen>[] = [
  { phrases: VERIFICATION, screen: { kind: 'failed', reason: 'verification_required', detail: '' } },
  { phrases: BLOCKED_BY_PLATFORM, screen: { kind: 'failed', reason: 'blocked_by_platform', detail: '' } },
  { phrases: NOT_FOUND, screen: { kind: 'failed', reason: 'meeting_not_found', detail: '' } },
  { phrases: REMOVED, screen: { kind: 'ended', reason: 'removed', detail: '' } },
  { phrases: NO_RESPONSE, screen: { kind: 'failed', reason: 'admission_timeout', detail: '' } },
  { phrases: DENIED, screen: { kind: 'failed', reason: 'admission_denied', detail: '' } },
  { phrases: ENDED, screen: { kind: 'ended', reason: 'meeting_ended', detail: '' } },
];

function inCallControls(evidence: PageEvidence): number {
  return evidence.controls.filter(
    (control) =>
      !control.inDialog &&
      IN_CALL_ONLY.some(
        (name) =>
          control.label === name ||
          control.text === name ||
          control.label.startsWith(`${name} (`) ||
          control.label.startsWith(`${name} -`),
      ),
  ).length;
}

/** The badge counts everyone; an open People list names everyone; tiles may be paged. */
function othersInCall(evidence: PageEvidence, botName: string): number | null {
  if (evidence.peopleCount !== null) return Math.max(0, evidence.peopleCount - 1);
  if (evidence.people !== null) {
    const self = botName.trim().toLowerCase();
    return evidence.people.filter((row) => !row.self && row.name.toLowerCase() !== self).length;
  }
  return evidence.meetTiles.filter((tile) => !tile.self).length;
}

/**
 * The names of the others in the call: the open People list names everyone, else the tiles (which
 * Meet pages in a large call: then the badge counts more than they name, and an absence says nothing).
 */
export function meetPeopleSeen(evidence: PageEvidence, botName: string): PeopleSeen {
  const self = botName.trim().toLowerCase();
  if (evidence.people !== null) {
    const names = evidence.people
      .filter((row) => !row.self && row.name.toLowerCase() !== self)
      .map((row) => row.name);
    return { names, complete: true };
  }
  const names = evidence.meetTiles.flatMap((tile) => (!tile.self && tile.name !== null ? [tile.name] : []));
  const named = new Set(names).size;
  return { names, complete: evidence.peopleCount === null || named >= evidence.peopleCount - 1 };
}

/** What the driver did and saw so far, which some screens need to be read right. */
export interface MeetJoinProgress {
  /** A join button was pressed. */
  asked: boolean;
  /** The call has been seen. */
  inCall: boolean;
  /** The bot pressed leave itself. */
  leaving: boolean;
}

const NOT_STARTED: MeetJoinProgress = { asked: false, inCall: false, leaving: false };

/**
 * "You left the meeting" without the bot leaving: before the call it is how Meet shows a refused
 * request (sometimes with nothing else on the page); in the call, the bot was put out of it.
 */
function leftWithoutLeaving(evidence: PageEvidence, progress: MeetJoinProgress): Screen | null {
  const left = progress.asked && !progress.leaving ? textIncludesAny(evidence.text, LEFT) : undefined;
  if (left === undefined) return null;
  return progress.inCall
    ? { kind: 'ended', reason: 'removed', detail: left }
    : { kind: 'failed', reason: 'admission_denied', detail: left };
}

/**
 * Classifies a Meet page. Terminal screens win; then dialogs and the lobby; the call is only
 * recognised with in-call-only controls present and no lobby or pre-join evidence at all.
 */
export function classifyMeetScreen(evidence: PageEvidence, progress: MeetJoinProgress = NOT_STARTED): Screen {
  if (evidence.recaptchaChallengeVisible) {
    return { kind: 'failed', reason: 'verification_required', detail: 'reCAPTCHA challenge' };
  }
  const signIn = evidence.headings.find((heading) => SIGN_IN_HEADINGS.includes(heading));
  if (signIn) return { kind: 'failed', reason: 'sign_in_required', detail: `"${signIn}" screen` };
  const terminal = firstTextRule<TerminalScreen>(evidence.text, MEET_TERMINAL_RULES);
  if (terminal) return terminal;
  const left = leftWithoutLeaving(evidence, progress);
  if (left) return left;
  const { text } = evidence;
  const dialogText = evidence.dialogs.find((dialog) => textIncludesAny(dialog, POST_ADMISSION_DIALOG));
  const dialogJoin = findControl(evidence, MEET_DIALOG_ANSWERS, {
    visible: true,
    inDialog: true,
  });
  if (dialogText !== undefined || (dialogJoin && inCallControls(evidence) > 0)) {
    return { kind: 'dialog', detail: dialogText ?? dialogJoin?.text ?? 'dialog' };
  }
  if (textIncludesAny(text, LOBBY)) return { kind: 'lobby' };
  const joinButton = findControl(evidence, MEET_JOIN_BUTTONS, { visible: true, inDialog: false });
  const nameInput = evidence.inputs.some((input) => input.visible && isMeetNameField(input));
  if (joinButton || nameInput) return { kind: 'prejoin' };
  if (inCallControls(evidence) >= 2) return { kind: 'in_call' };
  return { kind: 'loading' };
}

export function observeMeet(
  evidence: PageEvidence,
  progress: MeetJoinProgress = NOT_STARTED,
  botName = '',
): Observation {
  const screen = classifyMeetScreen(evidence, progress);
  if (screen.kind !== 'in_call') return { screen, others: null, people: null };
  return { screen, others: othersInCall(evidence, botName), people: meetPeopleSeen(evidence, botName) };
}
