/**
 * Where the joining browser (the bot) is in a meeting, as the simulator sees it.
 * - prejoin: the page is open on the pre-join form
 * - lobby: asked to join, waiting to be let in
 * - admitted: let in, but a post-admission dialog holds media back until answered
 * - in_call: in the call with media flowing
 * - left: pressed Leave/hang-up/"Return to home screen"/the lobby's Cancel, or its page went away
 * - denied / timed_out: the host refused, or nobody answered before the lobby timeout
 * - blocked: the platform refused the join outright (anonymous joins not allowed, anti-bot)
 * - removed / ended: the host removed the bot, or ended the meeting while the bot was there
 */
export const BOT_STATES = [
  'none',
  'prejoin',
  'lobby',
  'admitted',
  'in_call',
  'left',
  'denied',
  'timed_out',
  'blocked',
  'removed',
  'ended',
] as const;
export type BotState = (typeof BOT_STATES)[number];

export const LEAVE_REASONS = [
  'leave_button',
  'dialog_leave',
  'return_home',
  'lobby_cancel',
  'page_closed',
] as const;
export type LeaveReason = (typeof LEAVE_REASONS)[number];

/** States from which the bot may (re)ask to join: the pre-join form and the "try again" screens. */
const CAN_ASK: readonly BotState[] = ['prejoin', 'left', 'denied', 'timed_out', 'removed'];
const WAITING_OR_IN: readonly BotState[] = ['lobby', 'admitted', 'in_call'];

const TRANSITIONS: Record<BotState, readonly BotState[]> = {
  none: ['prejoin'],
  prejoin: ['lobby', 'admitted', 'in_call', 'blocked', 'left', 'ended'],
  lobby: ['admitted', 'in_call', 'denied', 'timed_out', 'left', 'ended'],
  admitted: ['in_call', 'left', 'removed', 'ended'],
  in_call: ['left', 'removed', 'ended'],
  left: ['lobby', 'admitted', 'in_call'],
  denied: ['lobby', 'admitted', 'in_call', 'left'],
  timed_out: ['lobby', 'admitted', 'in_call', 'left'],
  blocked: [],
  removed: ['lobby', 'admitted', 'in_call', 'left'],
  ended: [],
};

export function canTransition(from: BotState, to: BotState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function canAskToJoin(state: BotState): boolean {
  return CAN_ASK.includes(state);
}

/** Lobby, dialog or call: the states a closed page turns into `left`. */
export function isWaitingOrIn(state: BotState): boolean {
  return WAITING_OR_IN.includes(state);
}

export function isInCall(state: BotState): boolean {
  return state === 'admitted' || state === 'in_call';
}
