/**
 * The worker settings a run may set from its own environment, to compare:
 * - BOT_IMAGE, BOT_CHROMIUM (`full`): another bot image or Chromium build;
 * - EMBEDDED_PROFILE (`fast`): the recognizer's setting;
 * - BOT_SKIP_VIDEO (`on`/`off`): the bot's video measures;
 * - BOT_SETTLE_LIMIT_SECONDS (0: off): bots settling in one at a time;
 * - BOT_AUDIO_CAPTURE (`track-processor`): how the bots' pages hear the meeting;
 * - BOT_LOG_LEVEL (`debug`): what the bots' logs (`--logs`) keep.
 */
export const PASSED_THROUGH = [
  'BOT_IMAGE',
  'BOT_CHROMIUM',
  'EMBEDDED_PROFILE',
  'BOT_SKIP_VIDEO',
  'BOT_SETTLE_LIMIT_SECONDS',
  'BOT_AUDIO_CAPTURE',
  'BOT_LOG_LEVEL',
] as const;

/** Those of PASSED_THROUGH this process's environment sets, for the worker's environment. */
export function passedThrough(): Record<string, string> {
  return Object.fromEntries(
    PASSED_THROUGH.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])),
  );
}
