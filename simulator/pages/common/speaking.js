// Which speaking signals a meeting's page shows: its script can hide each (`speaking.hidden`,
// simulator/schema.ts), so a bot is tested with any one of them missing.

/** Whether the page shows `signal` (e.g. 'audio_level', 'outline_style', 'webrtc'). */
export function showsSignal(meeting, signal) {
  return !meeting.speaking.hidden.includes(signal);
}
