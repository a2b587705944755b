import { randomInt } from 'node:crypto';

export const SIM_PLATFORMS = ['google_meet', 'teams', 'zoom'] as const;
export type SimPlatform = (typeof SIM_PLATFORMS)[number];

/** The real Meet code shape: three groups of lowercase letters. */
export const MEET_CODE_PATTERN = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;
/** Teams prints 9–15 digit meeting ids; the service accepts up to 20. */
export const TEAMS_ID_PATTERN = /^[0-9]{9,20}$/;
export const TEAMS_PASSCODE_PATTERN = /^[A-Za-z0-9]{4,20}$/;
/** Zoom's meeting ids: 9–11 digits. */
export const ZOOM_ID_PATTERN = /^[0-9]{9,11}$/;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const PASSCODE_CHARS = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

function pick(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export function generateMeetingId(platform: SimPlatform): string {
  if (platform === 'google_meet') return `${pick(LETTERS, 3)}-${pick(LETTERS, 4)}-${pick(LETTERS, 3)}`;
  // Zoom's ids today are mostly 11 digits, never with a leading zero.
  if (platform === 'zoom') return `${randomInt(1, 10)}${pick('0123456789', 10)}`;
  // A leading zero would read oddly in a Teams id, so the first digit is 1–9.
  return `${randomInt(1, 10)}${pick('0123456789', 12)}`;
}

export function generatePasscode(): string {
  return pick(PASSCODE_CHARS, 6);
}

/** Meet's tiles carry ids shaped like `spaces/<space>/devices/<n>`; the space is per meeting. */
export function generateSpaceId(): string {
  return pick(`${LETTERS}${LETTERS.toUpperCase()}0123456789`, 12);
}

export function isValidMeetingId(platform: SimPlatform, id: string): boolean {
  if (platform === 'google_meet') return MEET_CODE_PATTERN.test(id);
  return (platform === 'zoom' ? ZOOM_ID_PATTERN : TEAMS_ID_PATTERN).test(id);
}

/** The path a browser opens for a meeting, relative to the simulator's origin. */
export function meetingPath(platform: SimPlatform, id: string, passcode?: string): string {
  if (platform === 'google_meet') return `/${id}`;
  // Zoom: the invitation link, which opens the landing page ("Join from your browser").
  if (platform === 'zoom') return passcode ? `/j/${id}?pwd=${encodeURIComponent(passcode)}` : `/j/${id}`;
  return passcode ? `/meet/${id}?p=${encodeURIComponent(passcode)}` : `/meet/${id}`;
}
