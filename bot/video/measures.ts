/**
 * The ways a bot avoids paying for video it never uses, and which of them a bot applies. What each
 * saves, why it is safe and what was measured or rejected: docs/platform-landmarks.md, "Video".
 *
 * - `incoming_video_off`: the platform's own setting that stops others' cameras reaching the page
 *   (Meet: Settings → Video → Receive resolution "Audio only"; Teams: View → "Turn off incoming
 *   video"). The only measure that saves receiving and decoding: the platform stops sending. Shared
 *   screens still arrive on both platforms.
 * - `hide_remote_video`: the page's <video> elements are not rendered (display: none), so the
 *   compositor draws no video frames: what still arrives (a shared screen, or everything when the
 *   setting could not be reached) is decoded but not painted.
 */
export const VIDEO_MEASURES = ['incoming_video_off', 'hide_remote_video'] as const;
export type VideoMeasure = (typeof VIDEO_MEASURES)[number];

export interface VideoMeasureChoice {
  /** The bot's `video.skip` (BOT_SKIP_VIDEO): false applies none. */
  skip: boolean;
  /** Whether the platform's driver can reach the incoming-video setting. */
  driverTurnsOffIncomingVideo: boolean;
}

/** The measures a bot applies, in the order it applies them (the page script first, at page load). */
export function selectVideoMeasures({
  skip,
  driverTurnsOffIncomingVideo,
}: VideoMeasureChoice): VideoMeasure[] {
  if (!skip) return [];
  const measures: VideoMeasure[] = ['hide_remote_video'];
  if (driverTurnsOffIncomingVideo) measures.push('incoming_video_off');
  return measures;
}
