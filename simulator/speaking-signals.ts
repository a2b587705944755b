/** Where each platform's page shows who is talking, and which of those signals a meeting's script hides (`speaking`). */
import { z } from 'zod';
import type { SimPlatform } from './ids.js';

/** Where Meet's page shows who is talking; each can be hidden per meeting (`speaking.hidden`). */
export const MEET_SPEAKING_SIGNALS = ['audio_level', 'tile_class', 'people_panel', 'webrtc'] as const;
export type MeetSpeakingSignal = (typeof MEET_SPEAKING_SIGNALS)[number];
/** Where Teams' page shows who is talking. */
export const TEAMS_SPEAKING_SIGNALS = ['outline_class', 'outline_style', 'webrtc'] as const;
export type TeamsSpeakingSignal = (typeof TEAMS_SPEAKING_SIGNALS)[number];
/**
 * Where Zoom's web client shows who is talking: the active-speaker frame (the large video names the
 * last person heard) and the speaker bar's `--active` tile; one mixed WebRTC source besides.
 */
export const ZOOM_SPEAKING_SIGNALS = ['active_speaker', 'webrtc'] as const;
export type ZoomSpeakingSignal = (typeof ZOOM_SPEAKING_SIGNALS)[number];
export type SpeakingSignal = MeetSpeakingSignal | TeamsSpeakingSignal | ZoomSpeakingSignal;
const SPEAKING_SIGNALS = [
  ...new Set<SpeakingSignal>([...MEET_SPEAKING_SIGNALS, ...TEAMS_SPEAKING_SIGNALS, ...ZOOM_SPEAKING_SIGNALS]),
] as [SpeakingSignal, ...SpeakingSignal[]];
export const PLATFORM_SPEAKING_SIGNALS: Record<SimPlatform, readonly string[]> = {
  google_meet: MEET_SPEAKING_SIGNALS,
  teams: TEAMS_SPEAKING_SIGNALS,
  zoom: ZOOM_SPEAKING_SIGNALS,
};
/** Speaking classes seen on the real Meet's tiles (docs/platform-landmarks.md, "Who is speaking"); they churn. */
export const MEET_KNOWN_SPEAKING_CLASSES = ['Oaajhc', 'HX2H7', 'wEsLMd', 'OgVli'] as const;
export type MeetSpeakingClass = (typeof MEET_KNOWN_SPEAKING_CLASSES)[number];

export const speakingInput = z.object({
  /**
   * Signals the page never shows, to test a bot's speaker detection with one missing. Meet:
   * `audio_level` (the tile's data-audio-level stays "0"), `tile_class` (no speaking class on the
   * tile), `people_panel` (the People row's mic-level stays at opacity 0). Teams: `outline_class`
   * (vdi-frame-occlusion never toggles), `outline_style` (the outline's opacity and border-width
   * never change). Both: `webrtc` (no RTP audio-level header extension, so the receivers'
   * getSynchronizationSources() report no audioLevel).
   */
  hidden: z
    .array(
      z.enum(SPEAKING_SIGNALS, {
        error: `unknown speaking signal (google_meet: ${MEET_SPEAKING_SIGNALS.join(', ')}; teams: ${TEAMS_SPEAKING_SIGNALS.join(', ')}; zoom: ${ZOOM_SPEAKING_SIGNALS.join(', ')})`,
      }),
    )
    .max(SPEAKING_SIGNALS.length)
    .default([]),
  /** Meet: the class a speaking tile gets: a new generated name per page load, or a known real one. */
  tileClass: z.enum(['generated', ...MEET_KNOWN_SPEAKING_CLASSES]).default('generated'),
});
export type Speaking = z.output<typeof speakingInput>;
export type SpeakingInput = z.input<typeof speakingInput>;
