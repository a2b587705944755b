/**
 * Why a best-effort step in the call (a driver's incoming-video setting) was stopped before it was
 * done: the reason of its `abandoned` signal. The drivers' steps read it (google-meet-audio-only.ts,
 * teams-incoming-video-off.ts); the session's step runner sets it (bot/session/in-call-step.ts).
 * - `call_over`: the meeting ended or failed, or the bot is to leave. The step presses nothing more,
 *   not even its own Escape (it could land on the leave's confirmation; the leave closes what is open).
 * - `gave_way`: other work waits for the page (a camera or microphone switch, a chat message). The
 *   step stops between its steps and closes what it opened; it is tried again at a later look.
 */
export const STEP_STOPPED = { callOver: 'call_over', gaveWay: 'gave_way' } as const;

/** Whether a step stopped (or not) still closes its menus and dialogs: all but one whose call is over. */
export function tidiesUp(abandoned: AbortSignal | undefined): boolean {
  return !abandoned?.aborted || abandoned.reason === STEP_STOPPED.gaveWay;
}

/** Whether the step was stopped for other work, not for the end of the call. */
export function gaveWay(abandoned: AbortSignal): boolean {
  return abandoned.aborted && abandoned.reason === STEP_STOPPED.gaveWay;
}
