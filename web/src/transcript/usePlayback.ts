import { useEffect, useRef, useState } from 'preact/hooks';
import type { LiveSegment, Recording } from '../api/types.js';
import type { TranscriptModel } from './transcript-model.js';

export interface Playback {
  audio: { current: HTMLAudioElement | null };
  /** The transcript segment under the playhead (-1: none). */
  currentIndex: number;
  seek(segment: LiveSegment): void;
}

/**
 * Keeps the transcript in step with the recording: while it plays, the segment under the playhead
 * (recording time + the recording's `start` on the transcript's clock) is the current one, read
 * every animation frame; clicking a segment seeks to its start and plays.
 */
export function usePlayback(
  recording: Recording | undefined,
  transcript: TranscriptModel,
  version: number,
): Playback {
  const audio = useRef<HTMLAudioElement>(null);
  const [currentIndex, setCurrentIndex] = useState(-1);
  const offset = recording?.start ?? 0;

  useEffect(() => {
    const element = audio.current;
    if (!element) return;
    let frame = 0;
    const update = () => setCurrentIndex(transcript.indexAt(element.currentTime + offset));
    const tick = () => {
      update();
      frame = element.paused ? 0 : requestAnimationFrame(tick);
    };
    const start = () => {
      if (!frame) frame = requestAnimationFrame(tick);
    };
    element.addEventListener('play', start);
    element.addEventListener('seeked', update);
    element.addEventListener('timeupdate', update);
    element.addEventListener('pause', update);
    return () => {
      if (frame) cancelAnimationFrame(frame);
      element.removeEventListener('play', start);
      element.removeEventListener('seeked', update);
      element.removeEventListener('timeupdate', update);
      element.removeEventListener('pause', update);
    };
  }, [recording?.id, offset, transcript, version]);

  const seek = (segment: LiveSegment) => {
    const element = audio.current;
    if (!element) return;
    element.currentTime = Math.max(0, segment.start - offset);
    void element.play().catch(() => {
      // autoplay refused or the media failed: the position is set, the user presses play
    });
  };

  return { audio, currentIndex: recording ? currentIndex : -1, seek };
}
