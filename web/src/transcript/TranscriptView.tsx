import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { LiveSegment } from '../api/types.js';
import { clock } from '../format.js';
import { RowHeights } from './row-heights.js';

/** Rows drawn beyond the visible ones, above and below. */
const OVERSCAN = 6;
const ESTIMATED_ROW_PX = 64;
/** Within this distance of the bottom the list follows new segments. */
const BOTTOM_SLACK_PX = 48;

export interface TranscriptViewProps {
  segments: readonly LiveSegment[];
  /** Moves with every change of `segments` (they are changed in place). */
  version: number;
  /** The segment playing now, highlighted and kept in view. */
  currentIndex: number;
  /** Seeks the recording to a segment; undefined while there is nothing to play. */
  onSeek: ((segment: LiveSegment) => void) | undefined;
}

/**
 * The transcript as a virtual list: only the rows on screen (and a few around them) are in the
 * page, whatever the length, so a meeting of thousands of segments opens and scrolls as fast as a
 * short one. It follows new segments while the reader is at the bottom and stops once they scroll
 * up; "Jump to latest" resumes.
 */
export function TranscriptView(props: TranscriptViewProps) {
  const { segments, currentIndex } = props;
  const scroller = useRef<HTMLElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const heights = useRef(new RowHeights(ESTIMATED_ROW_PX)).current;
  const [viewport, setViewport] = useState({ top: 0, height: 480 });
  const [following, setFollowing] = useState(true);
  const followingRef = useRef(true);
  const lastUserScroll = useRef(0);
  const [, setMeasured] = useState(0);

  heights.setCount(segments.length);
  const first = Math.max(0, heights.indexAt(viewport.top) - OVERSCAN);
  const last = Math.min(segments.length - 1, heights.indexAt(viewport.top + viewport.height) + OVERSCAN);

  const follow = (value: boolean) => {
    followingRef.current = value;
    setFollowing(value);
  };

  // After each render: measure the drawn rows, keep what the reader looks at in place, follow the end.
  useLayoutEffect(() => {
    const box = scroller.current;
    if (!box || !list.current) return;
    const anchorIndex = heights.indexAt(box.scrollTop);
    const anchorShift = box.scrollTop - heights.offsetOf(anchorIndex);
    let changed = false;
    for (const row of list.current.children) {
      const index = Number((row as HTMLElement).dataset.index);
      if (heights.set(index, (row as HTMLElement).offsetHeight)) changed = true;
    }
    if (changed) {
      if (!followingRef.current) box.scrollTop = heights.offsetOf(anchorIndex) + anchorShift;
      setMeasured((n) => n + 1);
    }
    if (followingRef.current && segments.length > 0) box.scrollTop = box.scrollHeight;
    if (box.clientHeight !== viewport.height || box.scrollTop !== viewport.top)
      setViewport({ top: box.scrollTop, height: box.clientHeight });
  });

  // While playing, the current segment stays in view unless the reader scrolled in the last 3 s.
  useLayoutEffect(() => {
    const box = scroller.current;
    if (!box || currentIndex < 0 || Date.now() - lastUserScroll.current < 3000) return;
    const top = heights.offsetOf(currentIndex);
    const bottom = heights.offsetOf(currentIndex + 1);
    if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) {
      follow(false);
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  }, [currentIndex]);

  const onScroll = () => {
    const box = scroller.current!;
    const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - BOTTOM_SLACK_PX;
    if (atBottom !== followingRef.current) follow(atBottom);
    setViewport({ top: box.scrollTop, height: box.clientHeight });
  };
  const userScrolled = () => {
    lastUserScroll.current = Date.now();
  };

  const rows = [];
  for (let index = first; index <= last; index += 1) {
    const segment = segments[index]!;
    const current = index === currentIndex;
    rows.push(
      <li
        key={segment.segment_id}
        data-index={index}
        data-segment-id={segment.segment_id}
        class={`segment${current ? ' current' : ''}${segment.final ? '' : ' partial'}`}
        style={{ top: `${heights.offsetOf(index)}px` }}
        aria-setsize={segments.length}
        aria-posinset={index + 1}
        aria-current={current ? 'true' : undefined}
      >
        <div class="segment-head">
          {props.onSeek ? (
            <button
              type="button"
              class="time"
              aria-label={`Play from ${clock(segment.start)}`}
              onClick={() => props.onSeek?.(segment)}
            >
              {clock(segment.start)}
            </button>
          ) : (
            <span class="time">{clock(segment.start)}</span>
          )}
          <span class="speaker">{segment.speaker}</span>
          {!segment.final && <span class="hint">(still changing)</span>}
        </div>
        <p class="text">{segment.text}</p>
      </li>,
    );
  }

  return (
    <div class="transcript">
      <section
        ref={scroller}
        class="transcript-scroller"
        // A scrolling region must take the keyboard's focus, so its arrow keys scroll it.
        // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
        tabIndex={0}
        aria-label="Transcript"
        onScroll={onScroll}
        onWheel={userScrolled}
        onTouchMove={userScrolled}
        onKeyDown={userScrolled}
        onPointerDown={userScrolled}
        data-segments={segments.length}
      >
        {segments.length === 0 ? (
          <p class="empty">No transcript yet.</p>
        ) : (
          <ol ref={list} class="segments" style={{ height: `${heights.total()}px` }}>
            {rows}
          </ol>
        )}
      </section>
      {!following && segments.length > 0 && (
        <button
          type="button"
          class="jump"
          onClick={() => {
            follow(true);
            const box = scroller.current;
            if (box) box.scrollTop = box.scrollHeight;
          }}
        >
          Jump to latest
        </button>
      )}
    </div>
  );
}
