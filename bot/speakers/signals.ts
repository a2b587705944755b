import { z } from 'zod';

/**
 * The independent ways a meeting page shows who is talking; each is watched on its own and they
 * vote (speaking-scripts.ts watches them, attribution.ts combines them).
 *
 *   audio_level     Meet tiles' `data-audio-level` (and explicit speaking markers)
 *   speaking_class  class names seen to mean "speaking" (Meet's generated ones, Teams'
 *                   vdi-frame-occlusion): they churn or stop changing, so they only hint
 *   tile_changes    any class/style/aria/data attribute inside a tile that leaves its usual value,
 *                   whatever it is called (the usual value is what most tiles show most of the time)
 *   people_panel    Meet's People list: the mic-level element in a person's row
 *   outline_style   Teams' voice-level outline: its opacity or a speaking marker
 *   captions        Teams' live captions (when on): the author of a caption whose text is growing
 *   active_speaker  Zoom's active speaker: the large video's name (the person heard last) and the
 *                   speaker bar's `--active` tile
 *   webrtc          the WebRTC receivers' per-source audio levels: page-independent, but a source
 *                   is not a person (Meet's three slots rotate, Teams and Zoom mix everyone into one), so
 *                   a source's stretch of talk gets a name only from the page signals' vote over it
 */
export const SPEAKING_SIGNALS = [
  'audio_level',
  'speaking_class',
  'tile_changes',
  'people_panel',
  'outline_style',
  'captions',
  'active_speaker',
  'webrtc',
] as const;
export const speakingSignal = z.enum(SPEAKING_SIGNALS);
export type SpeakingSignal = z.infer<typeof speakingSignal>;

/** How much a signal's opinion counts in the vote. */
export const SIGNAL_WEIGHT: Record<SpeakingSignal, number> = {
  audio_level: 1,
  speaking_class: 0.5,
  tile_changes: 1,
  people_panel: 1,
  outline_style: 1,
  captions: 1,
  active_speaker: 1,
  webrtc: 1,
};

/** The names the webrtc signal reports are source keys, not people. */
export const WEBRTC_SOURCE_PREFIX = 'source:';
