import type { MeetingSetup } from './meeting-setup.js';
import type { PageMeetingView } from './page-protocol.js';
import type { PageSession } from './page-session.js';
import type { AudioMode } from './schema.js';

/** The meeting as one session's page is told it: what to show, whom to play, which traps to set. */
export function pageViewOf(setup: MeetingSetup, session: PageSession | undefined): PageMeetingView {
  const { script } = setup;
  return {
    id: setup.id,
    platform: setup.platform,
    spaceId: setup.spaceId,
    admission: script.admission.policy,
    audio: { mode: audioModeOf(setup), trackDelaySeconds: script.audio.trackDelaySeconds },
    traps: trapsFor(setup, session),
    speaking: script.speaking,
    load: script.load,
    participants: setup.participants.map((p, index) => ({
      id: p.id,
      name: p.name,
      deviceId: deviceIdOf(setup, index + 1),
    })),
    utterances: setup.utterances.map((u) => ({
      id: u.id,
      participantId: u.participantId,
      audioUrl: setup.audioUrlOf(u.id),
      durationSeconds: u.durationSeconds,
      // What the captions show (the `liveCaptions` trap); otherwise the page never gets the words.
      ...(script.traps.liveCaptions ? { text: u.text } : {}),
    })),
    // Devices 1..n are the scripted people; the bot's device number comes after them.
    selfDeviceId: deviceIdOf(setup, setup.participants.length + 1),
  };
}

/** How the page plays remote audio: the script's choice, else Meet's slots and everyone else's one mix. */
export function audioModeOf(setup: MeetingSetup): AudioMode {
  return setup.script.audio.mode ?? (setup.platform === 'google_meet' ? 'slots' : 'mixed');
}

/** Meet's `data-participant-id` of the meeting's device number `index`. */
export function deviceIdOf(setup: MeetingSetup, index: number): string {
  return `spaces/${setup.spaceId}/devices/${index}`;
}

/** The traps as this session's page sees them: a sign-in-only meeting shows a guest its sign-in screen. */
function trapsFor(setup: MeetingSetup, session: PageSession | undefined): PageMeetingView['traps'] {
  const { access, traps } = setup.script;
  if (!access.signedInOnly || session?.account) return traps;
  if (setup.platform === 'google_meet') return { ...traps, signInScreen: true };
  if (setup.platform === 'zoom') return { ...traps, zoomSignIn: true };
  return { ...traps, signIn: traps.signIn ?? 'sign_in_to_continue' };
}
