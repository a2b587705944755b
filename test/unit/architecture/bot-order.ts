/**
 * The parts of bot/, lowest first: a part is a folder, or a file at bot/'s root. Each imports only
 * itself and the parts before it, so every arrow between them points down this list
 * (imports.test.ts enforces it; `npm run graph` draws it in docs/bot-imports.md). The bot runs alone
 * in its image, so below it all is shared/'s contract and infra only. Why this order:
 * - end-signal.ts: how a session ends (Outcome, EndSignal), the one word every part ends it with.
 * - outbox.ts: the bot's streams out (status, segments, health, chat, participants, recording).
 * - audio-utils: PCM, energy, WAV: plain functions on samples.
 * - speakers: who is shown speaking: the signals' names, a timeline per signal, the vote.
 * - audio: the page's audio capture (its page scripts, the capture's time line and losses) and each
 *   chunk sent out for the audio socket.
 * - engines: the transcription engines, over audio-utils.
 * - voices: speech synthesis, over audio-utils.
 * - recording: the meeting's recording, encoded from the capture.
 * - platforms: one driver per platform: the pages' landmarks, screens, chat panels, speaking
 *   scripts (they name speakers' signals and the capture's rate), each platform's own settings
 *   steps (incoming video; why such a step stopped: step-stopped.ts) and which driver a platform
 *   id gets (platform-drivers.ts).
 * - video: the video the bot doesn't pay for: which measures apply, their page script, and the
 *   in-call tries through a driver's setting.
 * - actions: what the bot is asked to do in the call (speak, chat, show an image) through a driver.
 * - participants: who joined, left and spoke, from the driver's looks and the speaking signals.
 * - chromium-launcher.ts, navigation-policy.ts, browser.ts: Chromium launched with its flags and
 *   its sandbox, the hosts it may go to, the browser session guarded by them.
 * - meeting-page.ts: the meeting page put together: browser, driver, capture, speaking and video
 *   scripts, the bot's own microphone and camera.
 * - session: the steps of a bot's life (taking commands, joining, the lobby, the call, lag
 *   reporting, the captured audio, leaving), over everything above.
 * - session.ts: the story of one bot in one meeting, calling those steps in order.
 * - signed-in.ts, secrets.ts, commands.ts, liveness.ts, memory-limit.ts: the process around the
 *   session: the bot account's browser session, the secrets file, the command stream's reader, the
 *   alive key, the memory limit.
 * - main.ts: the process: config, streams, signals, the session, its last word.
 */
export const BOT_ORDER = [
  'end-signal.ts',
  'outbox.ts',
  'audio-utils',
  'speakers',
  'audio',
  'engines',
  'voices',
  'recording',
  'platforms',
  'video',
  'actions',
  'participants',
  'chromium-launcher.ts',
  'navigation-policy.ts',
  'browser.ts',
  'meeting-page.ts',
  'session',
  'session.ts',
  'signed-in.ts',
  'secrets.ts',
  'commands.ts',
  'liveness.ts',
  'memory-limit.ts',
  'main.ts',
] as const;
