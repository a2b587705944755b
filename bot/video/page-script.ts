import { DECODED_FRAMES_SCRIPT } from './decoded-frames.js';
import { HIDE_REMOTE_VIDEO_SCRIPT } from './hide-remote-video.js';
import type { VideoMeasure } from './measures.js';

/**
 * The one script both drivers' pages get before their own scripts (addInitScript): the page-level
 * measures chosen, and the decoded-frames counter the bot's log reads whatever was chosen.
 */
export function videoPageScript(measures: readonly VideoMeasure[]): string {
  const parts = [DECODED_FRAMES_SCRIPT];
  if (measures.includes('hide_remote_video')) parts.push(HIDE_REMOTE_VIDEO_SCRIPT);
  return parts.join('\n');
}
